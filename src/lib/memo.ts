/**
 * Memoises `fn` by its string argument (header values such as `accept` and
 * `content-type`, of which clients send few distinct ones): at most `max` results are kept, and
 * the memo is emptied when full, so hostile variety costs memory only up to `max` entries.
 */
export function memoByString<T>(fn: (key: string) => T, max = 256): (key: string) => T {
  const memo = new Map<string, T>();
  return (key) => {
    let value = memo.get(key);
    if (value === undefined && !memo.has(key)) {
      value = fn(key);
      if (memo.size >= max) memo.clear();
      memo.set(key, value);
    }
    return value as T;
  };
}
