import DataLoader from 'dataloader';

/**
 * A per-request DataLoader over rows read by key: the keys asked for in one tick go to `read` in
 * one call (one `WHERE key IN (…)` statement, or a few), and each key is answered with the row
 * whose `keyOf` equals it exactly, or undefined when `read` returned none (another tenant's key,
 * a key that names nothing). `read` may return the rows in any order and skip keys. Build one per
 * request: it caches what it read. The batches behind `nodes(ids:)` and `_entities`
 * (docs/graphql.md "Ids"). `beforeRead` runs before each batch's `read`: throwing from it (the
 * GraphQL deadline) fails that batch's loads with its error and reads nothing.
 * @throws whatever `beforeRead` or `read` throws, to every load of that batch.
 */
export function keyedLoader<K, V>(
  read: (keys: readonly K[]) => Promise<Iterable<V>>,
  keyOf: (row: V) => K,
  beforeRead: () => void = () => undefined,
): DataLoader<K, V | undefined> {
  return new DataLoader<K, V | undefined>(async (keys) => {
    beforeRead();
    const found = new Map<K, V>();
    for (const row of await read(keys)) found.set(keyOf(row), row);
    return keys.map((k) => found.get(k));
  });
}
