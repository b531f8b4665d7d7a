import { MAINTENANCE_DB_LIMITS, knexConfig } from './src/db/connection';
import { migrationSource } from './src/db/migrations';

/**
 * knex CLI configuration: the same database as the service (`DATABASE_URL`, default the
 * embedded SQLite file) and the same migration list. Prefer `npm run cli -- migrate`.
 * @throws Error (at load) for a SQLite database on Node.js 23+ with better-sqlite3 12.x, as the
 *   service refuses it (`knexConfig`, src/db/connection.ts).
 */
module.exports = {
  ...knexConfig(process.env.DATABASE_URL || 'sqlite:var/gateway.sqlite3', MAINTENANCE_DB_LIMITS),
  migrations: { migrationSource },
};
