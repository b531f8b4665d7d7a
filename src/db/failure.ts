import { DatabaseTimeoutError, errorChain } from '../errors';
import { DeadlineExceededError } from '../lib/request-scope';

/** Where the request's deadline stops a database wait (see DeadlineExceededError). */
const DATABASE_WAITS = new Set(['connection', 'statement', 'commit']);

/** How a database failure shows to clients (docs/contract.md §8 "When things fail"). */
export type DatabaseFailure = 'unreachable' | 'timeout';

/** Driver codes of a connection refused or lost, or a server gone. */
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
  'PROTOCOL_CONNECTION_LOST',
  'PROTOCOL_ENQUEUE_AFTER_FATAL_ERROR',
  'ER_CON_COUNT_ERROR',
  'ER_SERVER_SHUTDOWN',
  'ER_CONNECTION_KILLED',
  'SQLITE_CANTOPEN',
  'SQLITE_IOERR',
]);

/** Driver codes of a wait that ran out: connect, lock wait, statement timeout, a busy SQLite file. */
const TIMEOUT_CODES = new Set([
  'ETIMEDOUT',
  'PROTOCOL_SEQUENCE_TIMEOUT',
  'ER_LOCK_WAIT_TIMEOUT',
  'ER_STATEMENT_TIMEOUT',
  'ER_QUERY_TIMEOUT',
  'SQLITE_BUSY',
  'SQLITE_LOCKED',
]);

/** MySQL/MariaDB error numbers of a statement stopped for time: lock wait, statement timeouts, interrupted. */
const TIMEOUT_ERRNOS = new Set([1205, 1317, 1969, 3024]);

/**
 * Classifies an error from knex or a driver: `unreachable` (connection refused or lost, server
 * gone), `timeout` (acquire, connect, lock wait, statement or request deadline, or a write
 * conflict whose reruns were spent, see `retryingTransaction` in ./retry.ts), or undefined
 * for anything else (a constraint, a bug). Looks along the {@link errorChain}.
 */
export function databaseFailureOf(err: unknown): DatabaseFailure | undefined {
  for (const e of errorChain(err)) {
    if (e instanceof DeadlineExceededError && DATABASE_WAITS.has(e.where)) return 'timeout';
    const x = e as { code?: string; errno?: unknown; name?: string; fatal?: boolean; message?: string };
    if (x instanceof DatabaseTimeoutError || x.name === 'KnexTimeoutError') return 'timeout';
    // MariaDB's max_statement_time error (1969) has no name in mysql2; 3024 is MySQL's, 1317 a
    // statement interrupted (SQLSTATE 70100).
    const errno = x.errno;
    if (typeof errno === 'number' && TIMEOUT_ERRNOS.has(errno)) return 'timeout';
    // SQLite extended codes (SQLITE_BUSY_SNAPSHOT, SQLITE_LOCKED_SHAREDCACHE…) count as their base code.
    if (x.code && (TIMEOUT_CODES.has(x.code) || /^SQLITE_(BUSY|LOCKED)_/.test(x.code))) return 'timeout';
    // A write conflict still there once retryingTransaction gave up: too contended to answer in time.
    if (typeof errno === 'number' && errno in CONFLICT_ERRNOS) return 'timeout';
    if (x.code && UNREACHABLE_CODES.has(x.code)) return 'unreachable';
    if (x.fatal === true || /connection is in closed state/.test(x.message ?? '')) return 'unreachable';
  }
  return undefined;
}

/** True when `err` is a unique-constraint violation on either dialect. */
export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string; errno?: number };
  return (
    e?.code === 'ER_DUP_ENTRY' ||
    e?.code === 'SQLITE_CONSTRAINT_UNIQUE' ||
    e?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY'
  );
}

/**
 * Why a transaction was rolled back by a write conflict and may be rerun as a whole:
 * `deadlock` is ER_LOCK_DEADLOCK (1213): an InnoDB deadlock, or on Galera a certification
 * failure at COMMIT or a brute-force abort by a replicated write; `snapshot` is ER_CHECKREAD
 * (1020, "record has changed since last read", MariaDB's `innodb_snapshot_isolation`).
 * ER_LOCK_WAIT_TIMEOUT (1205) is not one of them: with DB_LOCK_WAIT_TIMEOUT_SECONDS it means a
 * lock held too long, a repository timeout (charging answers 2003), and waiting again would only
 * spend the deadline twice.
 */
export type TransactionConflict = 'deadlock' | 'snapshot';

/** MySQL/MariaDB error numbers of a write conflict, by {@link TransactionConflict}. */
const CONFLICT_ERRNOS: Record<number, TransactionConflict> = { 1213: 'deadlock', 1020: 'snapshot' };

/** Every {@link TransactionConflict}, e.g. to show each reason's count from the start. */
export const TRANSACTION_CONFLICTS: readonly TransactionConflict[] = Object.values(CONFLICT_ERRNOS);

/** The write conflict that rolled back a transaction (see {@link TransactionConflict}), or undefined, along the {@link errorChain}. */
export function transactionConflictOf(err: unknown): TransactionConflict | undefined {
  for (const e of errorChain(err)) {
    const errno = (e as { errno?: unknown }).errno;
    const conflict = typeof errno === 'number' ? CONFLICT_ERRNOS[errno] : undefined;
    if (conflict) return conflict;
  }
  return undefined;
}
