/**
 * The database layer's entry point: {@link createKnex} opens a bounded knex instance, and the
 * names the modules use are re-exported here from the files that hold them:
 *
 * - ./connection.ts: `knexConfig` (a `DATABASE_URL` to a knex configuration), maintenance limits;
 * - ./sqlite.ts and ./mysql.ts: each dialect's set-up (pragmas and statement cache; session and
 *   prepared statements);
 * - ./bound-client.ts: the knex client bounded by the request deadline and the statement timeout;
 * - ./failure.ts: how a driver error shows to clients (`databaseFailureOf`) and write conflicts;
 * - ./retry.ts: transactions rerun after a write conflict, grouped writes;
 * - ./group-commit.ts: SQLite's shared COMMIT;
 * - ./connection-transaction.ts: MySQL/MariaDB transactions without knex's transaction object;
 * - ./dialect.ts: dialect-dependent locking and the readiness ping;
 * - ./events.ts: what the layer reports for `/metrics` (src/metrics.ts counts it);
 * - ./by-ids.ts: a tenant's rows by row id in one statement (the batches of `nodes(ids:)`).
 */
import knexFactory, { Knex } from 'knex';
import { DEFAULT_DB_LIMITS, DbLimits } from '../config/defaults';
import { boundClient } from './bound-client';
import { knexConfig } from './connection';
import { dialectOfUrl } from './dialect';
import { enableGroupCommit } from './group-commit';
import { SQLITE_IMMEDIATE, trackSqliteConnection } from './sqlite';

export { DEFAULT_DB_LIMITS, SQLITE_SYNCHRONOUS_MODES } from '../config/defaults';
export type { DbLimits, SqliteSynchronous } from '../config/defaults';
export { MAINTENANCE_DB_LIMITS, knexConfig, maintenanceLimits } from './connection';
export { tenantRowsByIds } from './by-ids';
export { certifiedLock, dialectOf, forUpdate, ping } from './dialect';
export type { Dialect } from './dialect';
export { databaseFailureOf, isUniqueViolation, transactionConflictOf } from './failure';
export type { DatabaseFailure, TransactionConflict } from './failure';
export { groupsCommits } from './group-commit';
export { DEFAULT_TRANSACTION_RETRY, groupedWrite, lockingTransaction, retryingTransaction } from './retry';
export type { InTransaction, TransactionRetryPolicy } from './retry';
export {
  DEFAULT_SQLITE_DIR,
  SQLITE_IMMEDIATE,
  SQLITE_STATEMENT_CACHE_SIZE,
  ensureSqliteDirectory,
} from './sqlite';

/** Where knex writes its own warnings (pino in the service; see createKnex). */
export interface KnexLog {
  warn(msg: string): void;
  error(msg: string): void;
}

/**
 * knex's log to `log`, except "Acquire connection error": a failed connection attempt reaches
 * the caller as an error (mapped to 503/2002 or a one-line start-up failure); knex's own warning
 * would only repeat it.
 */
function knexLogTo(log: KnexLog): Knex.Config['log'] {
  return {
    warn: (m: unknown) => {
      if (!String(m).startsWith('Acquire connection error')) log.warn(String(m));
    },
    error: (m: unknown) => log.error(String(m)),
    deprecate: (m: unknown) => log.warn(String(m)),
    debug: () => undefined,
  };
}

/**
 * Opens a knex instance for `databaseUrl` with every wait bounded by `limits` (default: the
 * serving limits; see `boundClient`); close it with `destroy()`. `log` receives knex's own
 * warnings (for example "Acquire connection error") instead of the console. On SQLite with
 * `limits.sqliteGroupCommit` its write transactions share COMMITs (./group-commit.ts), and its
 * one connection is tracked so that prepared reads run on it at once while it is idle
 * (`preparedRows`, ./prepared.ts).
 * @throws Error for an unsupported `DATABASE_URL`, a SQLite file whose directory is missing, or
 *   SQLite on a Node.js version its driver aborts on (`knexConfig`, ./connection.ts).
 */
export function createKnex(databaseUrl: string, limits: DbLimits = DEFAULT_DB_LIMITS, log?: KnexLog): Knex {
  const dialect = dialectOfUrl(databaseUrl);
  const config = knexConfig(databaseUrl, limits);
  if (log) config.log = knexLogTo(log);
  config.client = boundClient(dialect, limits) as never;
  const db = knexFactory(config);
  if (dialect === 'sqlite') trackSqliteConnection(db);
  if (dialect === 'sqlite' && limits.sqliteGroupCommit) enableGroupCommit(db, { [SQLITE_IMMEDIATE]: true });
  return db;
}
