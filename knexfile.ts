import { MAINTENANCE_DB_LIMITS, knexConfig } from './src/db/connection';
import { dialectOfUrl } from './src/db/dialect';
import { migrationSource } from './src/db/migrations';
import { assertSqliteRuntime } from './src/db/sqlite';

const databaseUrl = process.env.DATABASE_URL || 'sqlite:var/gateway.sqlite3';

// As createKnex (src/db/knex.ts): a SQLite database on a Node.js version whose driver aborts the
// process is refused with one sentence instead (docs/operations.md "Node.js versions and the
// SQLite driver").
if (dialectOfUrl(databaseUrl) === 'sqlite') assertSqliteRuntime();

/**
 * knex CLI configuration: the same database as the service (`DATABASE_URL`, default the
 * embedded SQLite file) and the same migration list. Prefer `npm run cli -- migrate`.
 * @throws Error (at load) for a SQLite database on Node.js 23+ with better-sqlite3 12.x
 *   (`assertSqliteRuntime`, src/db/sqlite.ts).
 */
module.exports = {
  ...knexConfig(databaseUrl, MAINTENANCE_DB_LIMITS),
  migrations: { migrationSource },
};
