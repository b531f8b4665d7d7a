import { Knex } from 'knex';

/** The database dialects the gateway runs on. */
export type Dialect = 'sqlite' | 'mysql';

/** The dialect of a `DATABASE_URL` (`mysql://…` or `sqlite:…`). */
export function dialectOfUrl(databaseUrl: string): Dialect {
  return databaseUrl.startsWith('mysql') ? 'mysql' : 'sqlite';
}

/** The dialect behind a knex instance. */
export function dialectOf(db: Knex): Dialect {
  return String((db.client as { driverName?: string }).driverName).includes('mysql') ? 'mysql' : 'sqlite';
}

/**
 * Adds `FOR UPDATE` to a read inside a transaction on MySQL/MariaDB, so the rows stay locked
 * until it ends. On SQLite the query is returned unchanged: its write transactions already
 * exclude each other (and knex would warn about the unsupported clause).
 */
export function forUpdate<Q extends Knex.QueryBuilder>(db: Knex, q: Q): Q {
  return dialectOf(db) === 'mysql' ? (q.forUpdate() as Q) : q;
}

/**
 * Makes a row lock count on a Galera cluster: on MySQL/MariaDB increments the `row_version`
 * column of the rows of `table` matching `where` (which also locks them, as FOR UPDATE does).
 * Galera certifies only the rows a transaction writes, and `FOR UPDATE` locks only on its own
 * node, so a transaction that reads a row to decide (a group's size) must write it for a
 * transaction on another node to conflict with it (one of the two then fails with 1213 and reruns,
 * see `retryingTransaction` in ./retry.ts). The table needs a `row_version` column (migration
 * 20261123000100). On SQLite nothing is done: its write transactions already exclude each other.
 */
export async function certifiedLock(db: Knex, table: string, where: Record<string, unknown>): Promise<void> {
  if (dialectOf(db) === 'mysql') await db(table).where(where).increment('row_version', 1);
}

/** Runs a query that checks the database answers (readiness). */
export async function ping(db: Knex): Promise<void> {
  await db.raw('select 1');
}
