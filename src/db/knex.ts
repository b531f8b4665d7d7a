import fs from 'node:fs';
import path from 'node:path';
import knexFactory, { Knex } from 'knex';

/** Seconds a MySQL statement waits for a row lock before failing (ER_LOCK_WAIT_TIMEOUT). */
export const LOCK_WAIT_TIMEOUT_SECONDS = 3;

/** The database dialects the gateway runs on. */
export type Dialect = 'sqlite' | 'mysql';

/** The one SQLite directory the gateway creates itself: `var/` of the working directory (the default `DATABASE_URL`). */
export const DEFAULT_SQLITE_DIR = 'var';

/**
 * Checks the directory of a SQLite database file: it must exist, except the default `var/`,
 * which is created; so a mistyped path is an error, not a new empty database.
 * @throws Error naming the path and the rule.
 */
export function ensureSqliteDirectory(file: string): void {
  const dir = path.dirname(path.resolve(file));
  if (fs.existsSync(dir)) {
    if (!fs.statSync(dir).isDirectory())
      throw new Error(`DATABASE_URL sqlite:${file}: ${dir} is not a directory`);
    return;
  }
  if (dir === path.resolve(DEFAULT_SQLITE_DIR)) {
    fs.mkdirSync(dir, { recursive: true });
    return;
  }
  throw new Error(
    `DATABASE_URL sqlite:${file}: directory ${dir} does not exist (only the default ${DEFAULT_SQLITE_DIR}/ is created automatically; create it first)`,
  );
}

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
 * Builds the knex configuration for a `DATABASE_URL` (CONTRACT §8):
 * `sqlite:<path>` (file; its directory must exist, see {@link ensureSqliteDirectory}), `sqlite::memory:`, or
 * `mysql://user:pass@host:port/database` (MySQL 8 / MariaDB 10.6+ through mysql2).
 * @throws Error for any other scheme, or a SQLite file whose directory is missing.
 */
export function knexConfig(databaseUrl: string): Knex.Config {
  if (databaseUrl.startsWith('sqlite:')) {
    const file = databaseUrl.slice('sqlite:'.length);
    const memory = file === ':memory:';
    if (!memory) ensureSqliteDirectory(file);
    return {
      client: 'better-sqlite3',
      log: KNEX_LOG,
      connection: { filename: file },
      useNullAsDefault: true,
      // One connection: SQLite has one writer, and an in-memory database is per connection.
      pool: {
        min: 1,
        max: 1,
        afterCreate(conn: { pragma(s: string): unknown }, done: (err: Error | null, conn: unknown) => void) {
          if (!memory) conn.pragma('journal_mode = WAL');
          conn.pragma('foreign_keys = ON');
          conn.pragma('busy_timeout = 5000');
          done(null, conn);
        },
      },
    };
  }
  if (databaseUrl.startsWith('mysql://')) {
    const url = new URL(databaseUrl);
    return {
      client: 'mysql2',
      log: KNEX_LOG,
      connection: {
        host: url.hostname,
        port: url.port ? Number(url.port) : 3306,
        user: decodeURIComponent(url.username),
        password: decodeURIComponent(url.password),
        database: decodeURIComponent(url.pathname.slice(1)),
        charset: 'utf8mb4',
        timezone: 'Z',
        // BIGINT micro-units and quotas come back as exact numbers (safe range) or strings.
        supportBigNumbers: true,
        bigNumberStrings: false,
        decimalNumbers: false,
      },
      pool: {
        min: 0,
        max: 10,
        // A row lock held longer than this is a repository timeout (charging maps it to 2003),
        // not a 50-second stall.
        afterCreate(
          conn: { query(sql: string, cb: (err: Error | null) => void): void },
          done: (err: Error | null, conn: unknown) => void,
        ) {
          conn.query(`SET SESSION innodb_lock_wait_timeout = ${LOCK_WAIT_TIMEOUT_SECONDS}`, (err) =>
            done(err, conn),
          );
        },
      },
    };
  }
  throw new Error(`unsupported DATABASE_URL scheme: ${databaseUrl.split(':')[0]}`);
}

/** Opens a knex instance for `databaseUrl`; close it with `destroy()`. */
export function createKnex(databaseUrl: string): Knex {
  return knexFactory(knexConfig(databaseUrl));
}

/** The dialect behind a knex instance. */
export function dialectOf(db: Knex): Dialect {
  const client = String(db.client.config.client);
  return client.includes('mysql') ? 'mysql' : 'sqlite';
}

/**
 * Adds `FOR UPDATE` to a read inside a transaction on MySQL/MariaDB, so the rows stay locked
 * until it ends. On SQLite the query is returned unchanged: its write transactions already
 * exclude each other (and knex would warn about the unsupported clause).
 */
export function forUpdate<Q extends Knex.QueryBuilder>(db: Knex, q: Q): Q {
  return dialectOf(db) === 'mysql' ? (q.forUpdate() as Q) : q;
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

/** Runs a query that checks the database answers (readiness). */
export async function ping(db: Knex): Promise<void> {
  await db.raw('select 1');
}

/**
 * Runs `scope` in a transaction that reads the latest committed rows after every lock it takes:
 * READ COMMITTED on MySQL/MariaDB (under the default REPEATABLE READ a plain SELECT would keep
 * the snapshot taken before a lock wait); SQLite transactions already exclude each other.
 */
export function lockingTransaction<T>(db: Knex, scope: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
  return dialectOf(db) === 'mysql'
    ? db.transaction(scope, { isolationLevel: 'read committed' })
    : db.transaction(scope);
}
