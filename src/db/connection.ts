import type { Knex } from 'knex';
import { DEFAULT_DB_LIMITS, DbLimits } from '../config/defaults';
import { mysqlConfig } from './mysql';
import { assertSqliteRuntime, sqliteConfig } from './sqlite';

/**
 * `limits` for migrations and CLI commands: the same connection bounds, no statement timeout,
 * SQLite's own checkpoint size (1000 pages: fewer syncs under bulk writes).
 */
export function maintenanceLimits(limits: DbLimits): DbLimits {
  return { ...limits, statementTimeoutMs: 0, sqliteWalAutocheckpointPages: 1000 };
}

/** {@link maintenanceLimits} of the serving defaults (CLI commands, the bench's data loader). */
export const MAINTENANCE_DB_LIMITS: DbLimits = maintenanceLimits(DEFAULT_DB_LIMITS);

/**
 * knex's own log: warnings one line each on stderr. A failed connection attempt is not logged
 * here (knex would print the driver's stack): the error reaches the caller, which reports it.
 */
const KNEX_LOG: Knex.Config['log'] = {
  warn(message: string) {
    if (!String(message).startsWith('Acquire connection error'))
      process.stderr.write(`knex: ${String(message).split('\n')[0]}\n`);
  },
};

/**
 * Builds the knex configuration for a `DATABASE_URL` (docs/contract.md §8):
 * `sqlite:<path>` (file; its directory must exist, see `ensureSqliteDirectory` in ./sqlite.ts),
 * `sqlite::memory:`, or `mysql://user:pass@host:port/database` (MySQL 8 / MariaDB 10.6+ through
 * mysql2, see ./mysql.ts), with every wait bounded by `limits`.
 * Every knex instance is configured here (createKnex, and knex's own CLI through
 * knexfile.ts), so a SQLite database on a Node.js version its driver aborts on is refused here.
 * @throws Error for any other scheme, a SQLite file whose directory is missing, or SQLite on
 *   Node.js 23+ with better-sqlite3 12.x (`assertSqliteRuntime`, ./sqlite.ts).
 */
export function knexConfig(databaseUrl: string, limits: DbLimits = DEFAULT_DB_LIMITS): Knex.Config {
  if (databaseUrl.startsWith('sqlite:')) {
    assertSqliteRuntime();
    return { ...sqliteConfig(databaseUrl.slice('sqlite:'.length), limits), log: KNEX_LOG };
  }
  if (databaseUrl.startsWith('mysql://')) return { ...mysqlConfig(databaseUrl, limits), log: KNEX_LOG };
  throw new Error(`unsupported DATABASE_URL scheme: ${databaseUrl.split(':')[0]}`);
}
