import fs from 'node:fs';
import path from 'node:path';
import type { Knex } from 'knex';
import { LRUCache } from 'lru-cache';
import type { DbLimits } from '../config/defaults';

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
 * Refuses the one Node.js and SQLite driver combination known to abort the process
 * (docs/operations.md "Node.js versions and the SQLite driver"): better-sqlite3 12.x, the driver
 * this project pins (13.x needs Node.js 22 and does not run on Node 20), on Node.js 23 or later.
 * There a prepared statement freed by the garbage collector calls
 * `node::RemoveEnvironmentCleanupHook` without an environment and Node aborts the whole process
 * (`Assertion failed: (env) != nullptr`, exit 134): the gateway on Node.js 24.21.0 with the
 * embedded database aborted within its first second at every start (2026-11-28). MariaDB/MySQL
 * never loads the driver and runs on Node.js 24.
 * @param nodeVersion Node.js version without the `v` (`process.versions.node`), e.g. `24.21.0`.
 * @param driverVersion better-sqlite3's package version, e.g. `12.11.1`.
 * @returns The sentence that refuses the combination, or undefined when the driver can be used.
 */
export function sqliteRuntimeRefusal(nodeVersion: string, driverVersion: string): string | undefined {
  const major = (version: string): number => Number.parseInt(version, 10);
  if (major(nodeVersion) < 23 || major(driverVersion) >= 13) return undefined;
  return (
    `the embedded SQLite database cannot run on Node.js ${nodeVersion}: its driver, better-sqlite3 ` +
    `${driverVersion}, aborts the process there (Assertion failed: (env) != nullptr). Run the ` +
    `gateway on Node.js 20.19+ or 22, or use MariaDB/MySQL (DATABASE_URL=mysql://...), which ` +
    `runs on Node.js 24; see docs/operations.md "Node.js versions and the SQLite driver"`
  );
}

/**
 * {@link sqliteRuntimeRefusal} for this process's Node.js and the installed better-sqlite3
 * (also read by scripts/bundle.js, which then does not prime the code cache on SQLite).
 */
export function installedSqliteRefusal(): string | undefined {
  const { version } = require('better-sqlite3/package.json') as { version: string };
  return sqliteRuntimeRefusal(process.versions.node, version);
}

/**
 * Called before any SQLite database is opened (src/db/knex.ts `createKnex`).
 * @throws Error with {@link installedSqliteRefusal}'s sentence when this process's Node.js and
 *   the installed driver would abort the process.
 */
export function assertSqliteRuntime(): void {
  const refusal = installedSqliteRefusal();
  if (refusal) throw new Error(refusal);
}

/** The parts of a better-sqlite3 `Database` the configuration touches. */
export interface SqliteConnection {
  pragma(s: string): unknown;
  prepare(sql: string): unknown;
}

/**
 * The knex configuration of a SQLite `file` (`:memory:` for an in-memory database), except the
 * client and log (see `knexConfig` in ./connection.ts): one connection, whose set-up caches
 * statements and applies the pragmas of `limits` (WAL journal, `synchronous`, foreign keys,
 * `busy_timeout`, `wal_autocheckpoint`).
 * @throws Error when the file's directory is missing (see {@link ensureSqliteDirectory}).
 */
export function sqliteConfig(file: string, limits: DbLimits): Knex.Config {
  const memory = file === ':memory:';
  if (!memory) ensureSqliteDirectory(file);
  return {
    client: 'better-sqlite3',
    connection: { filename: file },
    useNullAsDefault: true,
    // One connection: SQLite has one writer, and an in-memory database is per connection.
    pool: {
      min: 1,
      max: 1,
      acquireTimeoutMillis: limits.acquireTimeoutMs,
      afterCreate(conn: SqliteConnection, done: (err: Error | null, conn: unknown) => void) {
        cacheStatements(conn);
        if (!memory) conn.pragma('journal_mode = WAL');
        conn.pragma(`synchronous = ${limits.sqliteSynchronous.toUpperCase()}`);
        conn.pragma('foreign_keys = ON');
        conn.pragma(`busy_timeout = ${limits.sqliteBusyTimeoutMs}`);
        conn.pragma(`wal_autocheckpoint = ${limits.sqliteWalAutocheckpointPages}`);
        done(null, conn);
      },
    },
  };
}

/** Distinct SQL texts whose prepared statements a SQLite connection keeps (least recently used dropped). */
export const SQLITE_STATEMENT_CACHE_SIZE = 500;

/** SQL texts that are not worth caching: knex's savepoints, each named once. */
const ONE_OFF_SQL = /^(SAVEPOINT|RELEASE SAVEPOINT|ROLLBACK TO SAVEPOINT) /;

/**
 * Makes a better-sqlite3 connection prepare each SQL text once (preparing was 14 % of the busy
 * time of a token introspection): `prepare` answers the statement prepared for the same text
 * before, from a per-connection LRU cache of {@link SQLITE_STATEMENT_CACHE_SIZE}.
 * Safe because knex runs a statement to completion (`all`/`run`, never a pending iterator) and
 * SQLite re-prepares a cached statement itself after a schema change. Savepoint statements are
 * not cached: knex names each savepoint anew (`SAVEPOINT trx42`), so every text is seen once,
 * and with group commit every write transaction has them (src/db/group-commit.ts).
 */
function cacheStatements(conn: SqliteConnection): void {
  const prepare = conn.prepare.bind(conn);
  const cache = new LRUCache<string, object>({ max: SQLITE_STATEMENT_CACHE_SIZE });
  conn.prepare = (sql: string) => {
    if (ONE_OFF_SQL.test(sql)) return prepare(sql);
    let statement = cache.get(sql);
    if (statement === undefined) {
      statement = prepare(sql) as object;
      cache.set(sql, statement);
    }
    return statement;
  };
}

/**
 * Transaction option (SQLite only, `{ [SQLITE_IMMEDIATE]: true }`): open with `BEGIN IMMEDIATE`,
 * taking the write lock at once instead of at the first write, and wait for another connection's
 * lock without blocking the event loop (see {@link beginImmediate}), for up to SQLITE_BUSY_TIMEOUT_MS.
 * The group commit's transaction uses it (src/db/group-commit.ts): a transaction that read first
 * could not take the lock at all once another connection had written meanwhile (SQLITE_BUSY with
 * no wait), and a busy handler sleeping in the thread would stall every request of the process.
 */
export const SQLITE_IMMEDIATE = 'gatewayImmediate';

/** The part of knex's transaction object that {@link SQLITE_IMMEDIATE} replaces. */
interface SqliteTransaction {
  begin(conn: unknown): Promise<unknown>;
}

type TransactionFn = (
  container: unknown,
  config?: Record<string, unknown>,
  outerTx?: unknown,
) => SqliteTransaction;

/**
 * Makes the knex client class `Bounded` (a subclass of the better-sqlite3 client `Base`) honour
 * {@link SQLITE_IMMEDIATE}: a root transaction asked for with it begins with
 * {@link beginImmediate} instead of knex's plain `BEGIN;`.
 *
 * Why a patch of knex's `transaction`: knex opens every SQLite transaction with a fixed `BEGIN;`
 * (deferred) and has no option for the kind of BEGIN; the only hook is the transaction object's
 * `begin(conn)`, which the client's `transaction()` creates. Patching it on a subclass (not on
 * knex's class) keeps other knex instances of the process unchanged.
 */
export function beginImmediateOnRequest(Bounded: object, Base: object, busyTimeoutMs: number): void {
  const transaction = (Base as { prototype: { transaction: TransactionFn } }).prototype.transaction;
  (Bounded as { prototype: { transaction: TransactionFn } }).prototype.transaction = function (
    this: unknown,
    container,
    config,
    outerTx,
  ) {
    const trx = transaction.call(this, container, config, outerTx);
    if (config?.[SQLITE_IMMEDIATE] === true && !outerTx)
      trx.begin = (conn) => beginImmediate(conn as SqliteConnection, busyTimeoutMs);
    return trx;
  };
}

/** The better-sqlite3 statement calls {@link beginImmediate} makes. */
interface SqliteStatement {
  get(): unknown;
  run(): unknown;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * `BEGIN IMMEDIATE` on `conn` without blocking the event loop: SQLite's busy handler would
 * sleep in the thread while another connection holds the write lock, and when that connection
 * is another knex instance of this process (two gateways over one file in one process) it could
 * not release the lock meanwhile. So each attempt runs with `busy_timeout = 0`, and a busy
 * database is tried again after 1, 2, 4 … 16 ms, asynchronously, for up to `busyTimeoutMs`.
 * @throws the last SQLITE_BUSY once `busyTimeoutMs` has passed (a 'timeout' for
 *   `databaseFailureOf`), or any other error of BEGIN at once.
 */
async function beginImmediate(conn: SqliteConnection, busyTimeoutMs: number): Promise<void> {
  // Prepared through the connection's statement cache (see cacheStatements): once per connection,
  // not at every group. A PRAGMA that sets a value answers a row, hence `get`.
  const noWait = conn.prepare('PRAGMA busy_timeout = 0') as SqliteStatement;
  const restore = conn.prepare(`PRAGMA busy_timeout = ${busyTimeoutMs}`) as SqliteStatement;
  const begin = conn.prepare('BEGIN IMMEDIATE') as SqliteStatement;
  const started = performance.now();
  for (let wait = 1; ; wait = Math.min(wait * 2, 16)) {
    noWait.get();
    try {
      begin.run();
      return;
    } catch (err) {
      const busy = (err as { code?: string }).code === 'SQLITE_BUSY';
      if (!busy || performance.now() - started + wait > busyTimeoutMs) throw err;
    } finally {
      restore.get();
    }
    await sleep(wait);
  }
}

/** The pool calls of knex's client that {@link idleSqliteConnection} reads (tarn's public API). */
interface SqlitePool {
  numUsed(): number;
  numFree(): number;
  numPendingAcquires(): number;
  numPendingCreates(): number;
  on(event: 'createSuccess', handler: (eventId: number, resource: unknown) => void): void;
  on(event: 'destroyRequest', handler: (eventId: number, resource: unknown) => void): void;
}

/** The connection of a SQLite knex client's pool, kept on the client by {@link trackSqliteConnection}. */
const POOLED = Symbol('the pool and its one SQLite connection');

/** What {@link POOLED} holds: the pool that made the connection, and the connection (open or not). */
interface Pooled {
  pool: SqlitePool;
  connection: SqliteConnection & { open: boolean };
}

/**
 * Remembers the one connection of a SQLite knex instance's pool (see {@link sqliteConfig}: one
 * connection) as the pool creates it, from tarn's `createSuccess` and `destroyRequest` events,
 * so that {@link idleSqliteConnection} can hand it out while it is idle. Call once, right after
 * the knex instance is made (before any statement). A pool made later (knex `initialize()` after
 * `destroy()`) is not tracked: statements then go through the pool as usual.
 */
export function trackSqliteConnection(db: Knex): void {
  const client = db.client as { pool?: SqlitePool; [POOLED]?: Pooled };
  const pool = client.pool;
  if (!pool) return;
  pool.on('createSuccess', (_id, connection) => {
    client[POOLED] = { pool, connection: connection as Pooled['connection'] };
  });
  pool.on('destroyRequest', (_id, connection) => {
    if (client[POOLED]?.connection === connection) client[POOLED] = undefined;
  });
}

/**
 * The SQLite connection of `db` when a statement may run on it at once, synchronously, outside
 * the pool: `db` is not a transaction, the connection is open and idle (no transaction or
 * statement holds it, nobody waits for it, it is the pool's one free connection). Then nothing
 * else can run on it until the caller's synchronous statement ends (better-sqlite3 is
 * synchronous), so the statement sees what it would see after a pool acquire: committed data,
 * never an open transaction's. Undefined otherwise (the caller goes through the pool). Used by
 * `preparedRows` (./prepared.ts).
 */
export function idleSqliteConnection(db: Knex): SqliteConnection | undefined {
  if (db.isTransaction) return undefined;
  const client = db.client as { pool?: SqlitePool; [POOLED]?: Pooled };
  const pooled = client[POOLED];
  const pool = client.pool;
  if (
    pooled === undefined ||
    pooled.pool !== pool ||
    !pooled.connection.open ||
    pool.numUsed() !== 0 ||
    pool.numPendingAcquires() !== 0 ||
    pool.numPendingCreates() !== 0 ||
    pool.numFree() !== 1
  )
    return undefined;
  return pooled.connection;
}
