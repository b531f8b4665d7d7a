import { Knex } from 'knex';
import { remainingMs } from '../lib/request-scope';
import { connectionTransaction } from './connection-transaction';
import { dialectOf } from './dialect';
import { databaseEvents } from './events';
import { transactionConflictOf } from './failure';
import { groupCommitOf, groupsCommits } from './group-commit';

/** Bounds of {@link retryingTransaction}'s reruns. */
export interface TransactionRetryPolicy {
  /** Attempts in all, the first included (at least 1). */
  attempts: number;
  /** Backoff before the n-th rerun is uniform in [0, min(maxBackoffMs, baseBackoffMs * 2^(n-1))) ms ("full jitter"). */
  baseBackoffMs: number;
  maxBackoffMs: number;
  /** A rerun starts only while at least this many ms are left before the request's deadline (after the backoff). */
  minRemainingMs: number;
}

/**
 * Serving policy: up to 32 attempts, 5-160 ms jittered backoff, a rerun only with 50 ms left. With
 * two gateways on two Galera nodes queueing on one subscriber, the transaction that started
 * later keeps losing certification to the other node's stream of commits: the cluster suite saw
 * one in ~1000 charges lose 16 times in a row. With the default 2 s rating deadline, the deadline
 * is what ends the reruns in practice; the attempts bound the work outside a request.
 */
export const DEFAULT_TRANSACTION_RETRY: TransactionRetryPolicy = {
  attempts: 32,
  baseBackoffMs: 5,
  maxBackoffMs: 160,
  minRemainingMs: 50,
};

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Runs `scope` in a transaction of `db` (options `config`, e.g. an isolation level) and, when a
 * write conflict rolls it back (see {@link transactionConflictOf}), runs the whole of it again in
 * a new transaction: `scope` starts over from its first read, so an effect is never applied
 * twice (the rolled-back attempt left nothing behind). Reruns are bounded by `policy.attempts`
 * and by the request's deadline (`remainingMs()`; outside a request by the attempts only); the
 * last conflict is then thrown as it came. Each rerun is reported (`transactionRetried`,
 * ./events.ts; `db_transaction_retries_total` on `/metrics`).
 * `scope` must not have effects outside the transaction (it may run more than once).
 * On SQLite (the root instance, no `config`, `SQLITE_GROUP_COMMIT` on) the transaction runs in the group commit
 * (`SqliteGroupCommit`, ./group-commit.ts): under a savepoint of a transaction it may share with
 * others of the same event-loop turn, resolved only after that transaction's COMMIT.
 * docs/contract.md §8.
 * @throws whatever `scope` or the database throws, a conflict only once the reruns are spent.
 */
export async function retryingTransaction<T>(
  db: Knex,
  scope: (trx: Knex.Transaction) => Promise<T>,
  config?: Knex.TransactionConfig,
  policy: TransactionRetryPolicy = DEFAULT_TRANSACTION_RETRY,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await oneTransaction(db, scope, config);
    } catch (err) {
      const conflict = transactionConflictOf(err);
      if (!conflict || attempt >= policy.attempts) throw err;
      const backoff =
        Math.random() * Math.min(policy.maxBackoffMs, policy.baseBackoffMs * 2 ** (attempt - 1));
      if (remainingMs() - backoff < policy.minRemainingMs) throw err;
      databaseEvents.transactionRetried(conflict);
      await sleep(backoff);
    }
  }
}

/**
 * One attempt of {@link retryingTransaction}: in `db`'s group commit (SQLite), in
 * `connectionTransaction` (MySQL/MariaDB, the root instance, `config` at most an isolation
 * level), else in knex's own `db.transaction(scope, config)` (a nested one in a transaction).
 */
function oneTransaction<T>(
  db: Knex,
  scope: (trx: Knex.Transaction) => Promise<T>,
  config: Knex.TransactionConfig | undefined,
): Promise<T> {
  const group = config === undefined ? groupCommitOf(db) : undefined;
  if (group) return group.run(scope);
  const onlyIsolation = config === undefined || Object.keys(config).every((key) => key === 'isolationLevel');
  if (onlyIsolation && !db.isTransaction && dialectOf(db) === 'mysql')
    return connectionTransaction(db, scope, config?.isolationLevel);
  return db.transaction(scope, config);
}

/**
 * Runs `write`, one statement or a few that need no transaction of their own, so that it
 * commits as cheaply as the database allows: on SQLite with group commit ({@link groupsCommits})
 * inside {@link retryingTransaction}, so that it shares one COMMIT (one sync of the log) with
 * the other writes of the same event-loop turn and resolves after that COMMIT; elsewhere on `db`
 * itself, in autocommit (one round trip on MySQL/MariaDB instead of BEGIN, the write, COMMIT).
 * Either way the write is durable when the promise resolves.
 * @throws whatever `write` or the database throws (see {@link retryingTransaction}).
 */
export function groupedWrite<T>(db: Knex, write: (db: Knex) => Promise<T>): Promise<T> {
  return groupsCommits(db) ? retryingTransaction(db, write) : write(db);
}

/**
 * Runs `scope` in a transaction that reads the latest committed rows after every lock it takes:
 * READ COMMITTED on MySQL/MariaDB (under the default REPEATABLE READ a plain SELECT would keep
 * the snapshot taken before a lock wait); SQLite transactions already exclude each other.
 * Rerun as a whole after a deadlock or certification conflict (see {@link retryingTransaction}).
 */
export function lockingTransaction<T>(db: Knex, scope: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
  return retryingTransaction(
    db,
    scope,
    dialectOf(db) === 'mysql' ? { isolationLevel: 'read committed' } : undefined,
  );
}

/**
 * The optional transaction a service write runs in: with `trx`, the write joins the caller's
 * transaction (the dataset import, the demo seed, a renewal) instead of opening its own.
 */
export interface InTransaction {
  trx?: Knex.Transaction;
}
