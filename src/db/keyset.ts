import type { Knex } from 'knex';

/**
 * Keyset paging, the one way every store reads a page of a growing list (docs/graphql.md "Pagination": one pagination
 * model). src/graphql/relay.ts turns a connection's `first`/`after`/`last`/`before` into a
 * {@link KeysetPage} and the rows read here into the connection (`connectionFromRows`).
 */

/**
 * One page request over a list in a fixed order: the `limit` items strictly after `after` and
 * strictly before `before` in list order (either null for no bound), from the front
 * (`forward`) or from the back (`backward`). `K` is the list's key: a row id, or the columns
 * of its order (`{createdAt, id}`).
 */
export interface KeysetPage<K> {
  /** Items wanted, 1-500 (src/graphql/relay.ts checks the bound). */
  limit: number;
  direction: 'forward' | 'backward';
  after: K | null;
  before: K | null;
}

/** One column of a list's order, and the value a key holds for it. */
export interface KeyColumn<K> {
  column: string;
  of(key: K): string | number;
}

/** The key columns of a list ordered by one numeric column (its row id). */
export function byId(column = 'id'): KeyColumn<number>[] {
  return [{ column, of: (id) => id }];
}

/** The key columns of a list ordered by creation time (epoch ms), ties by id. */
export function byCreated(prefix = ''): KeyColumn<{ createdAt: number; id: string }>[] {
  return [
    { column: `${prefix}created_at`, of: (k) => k.createdAt },
    { column: `${prefix}id`, of: (k) => k.id },
  ];
}

/**
 * Restricts `q` to one page of `page`: the rows strictly between `after` and `before` in list
 * order, ordered in the paging direction (list order forward, reverse list order backward, as
 * `connectionFromRows` expects), at most `limit + 1` of them: the extra row only says that more
 * follow. List order is `order` on every column of `columns` in turn; a key is compared as a row
 * value, `(a, b) > (x, y)` being `a > x or (a = x and b > y)`, which an index on the columns
 * serves as one range read.
 */
export function keysetPage<Q extends Knex.QueryBuilder, K>(
  q: Q,
  page: KeysetPage<K>,
  columns: readonly KeyColumn<K>[],
  order: 'asc' | 'desc',
): Q {
  const [afterOp, beforeOp] = order === 'asc' ? (['>', '<'] as const) : (['<', '>'] as const);
  if (page.after !== null) past(q, columns, page.after, afterOp);
  if (page.before !== null) past(q, columns, page.before, beforeOp);
  const direction = page.direction === 'forward' ? order : order === 'asc' ? 'desc' : 'asc';
  for (const c of columns) q.orderBy(c.column, direction);
  q.limit(page.limit + 1);
  return q;
}

/** `(columns) op (key)` as a row-value comparison. */
function past<K>(q: Knex.QueryBuilder, columns: readonly KeyColumn<K>[], key: K, op: '<' | '>'): void {
  q.andWhere((w) => {
    columns.forEach((c, i) =>
      w.orWhere((x) => {
        for (const equal of columns.slice(0, i)) x.andWhere(equal.column, equal.of(key));
        x.andWhere(c.column, op, c.of(key));
      }),
    );
  });
}
