import { Knex } from 'knex';
import {
  DEFAULT_TRANSACTION_RETRY,
  SQLITE_IMMEDIATE,
  databaseFailureOf,
  dialectOf,
  retryingTransaction,
} from '../db/knex';

/**
 * Most rows of one section written per transaction. Small enough that a batch holds SQLite's write
 * lock for a few tens of milliseconds, well under a serving gateway's `SQLITE_BUSY_TIMEOUT_MS`
 * (200 ms by default), so its charges and donations keep committing between the batches.
 */
export const DEFAULT_BATCH_ROWS = 200;

/**
 * How long a batch should hold its locks, ms: a quarter of a gateway's default
 * `SQLITE_BUSY_TIMEOUT_MS`. The import sizes its next batch from how long the last one took
 * (see {@link nextBatchRows}), since a row's cost varies (a location with hundreds of infos) and
 * a busy process stretches every statement.
 */
export const TARGET_BATCH_MS = 50;

/**
 * The rows of the next batch after one of `rows` rows ran for `elapsedMs`: scaled towards
 * {@link TARGET_BATCH_MS}, at most doubled, between 1 and `maxRows`.
 */
export function nextBatchRows(rows: number, elapsedMs: number, maxRows: number): number {
  const scaled = Math.floor((rows * TARGET_BATCH_MS) / Math.max(elapsedMs, 1));
  return Math.max(1, Math.min(maxRows, rows * 2, scaled));
}

/**
 * How long one batch waits, in all, for its turn at the write lock (SQLite) or for the row locks
 * it needs (MySQL/MariaDB lock wait timeouts) before the import gives up: 60 s.
 */
export const DEFAULT_LOCK_WAIT_MS = 60_000;

/**
 * Pause after each batch on SQLite, longer than the longest interval (16 ms) at which a waiting
 * gateway retries `BEGIN IMMEDIATE` (src/db/sqlite.ts): every writer queued behind a batch gets
 * the lock before the import's next batch can take it again.
 */
export const SQLITE_BATCH_PAUSE_MS = 20;

/** Waits `ms` milliseconds without blocking the event loop. */
export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * The transaction options of a batch: on SQLite `BEGIN IMMEDIATE` (the write lock is taken at
 * once and waited for without blocking the event loop, so the batch's first read can never be
 * made stale by a gateway's commit, which would fail its first write with SQLITE_BUSY at once);
 * on MySQL/MariaDB READ COMMITTED, so every locking read sees the latest committed row.
 */
function batchConfig(db: Knex): Knex.TransactionConfig {
  return dialectOf(db) === 'mysql'
    ? { isolationLevel: 'read committed' }
    : ({ [SQLITE_IMMEDIATE]: true } as Knex.TransactionConfig);
}

/**
 * Runs one batch of the import, `scope`, in a short transaction of its own that waits its turn:
 * a deadlock or Galera certification conflict reruns it whole (`retryingTransaction`,
 * src/db/retry.ts: up to 32 attempts with jittered backoff); a busy SQLite file or a MySQL lock
 * wait that ran out (a `timeout` of `databaseFailureOf`) is tried again after 5, 10 … 250 ms
 * until `lockWaitMs` has passed since the batch began. On SQLite each batch is followed by a
 * pause of {@link SQLITE_BATCH_PAUSE_MS}, so the import yields the lock. `scope` may therefore run more than once
 * and must have no effect outside its transaction.
 * @throws the last error of the database once the waits are spent, or any other error at once.
 */
export async function writeBatch<T>(
  db: Knex,
  scope: (trx: Knex.Transaction) => Promise<T>,
  lockWaitMs: number = DEFAULT_LOCK_WAIT_MS,
): Promise<T> {
  const config = batchConfig(db);
  const started = performance.now();
  for (let wait = 5; ; wait = Math.min(wait * 2, 250)) {
    try {
      const result = await retryingTransaction(db, scope, config, DEFAULT_TRANSACTION_RETRY);
      if (dialectOf(db) === 'sqlite') await sleep(SQLITE_BATCH_PAUSE_MS);
      return result;
    } catch (err) {
      const busy = databaseFailureOf(err) === 'timeout';
      if (!busy || performance.now() - started + wait > lockWaitMs) throw err;
    }
    await sleep(wait);
  }
}
