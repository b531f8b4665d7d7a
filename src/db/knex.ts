import fs from 'node:fs';
import path from 'node:path';
import knexFactory, { Knex } from 'knex';
import { LRUCache } from 'lru-cache';
import { Counter } from 'prom-client';
import { DatabaseTimeoutError, connectionWaitPastDeadline, errorChain } from '../errors';
import { beforeDeadline, remainingMs } from '../lib/request-scope';
import { SqliteGroupCommit } from './group-commit';

/**
 * Bounds on every database wait (issue 10 "Deadlines everywhere"; CONTRACT §8 "When things
 * fail"). All in milliseconds except `lockWaitTimeoutSeconds`.
 */
export interface DbLimits {
  /** MySQL pool size (SQLite always uses one connection). */
  poolMax: number;
  /** Longest wait for a pooled connection before the request fails (knex/tarn acquire timeout). */
  acquireTimeoutMs: number;
  /** Longest TCP connect + handshake to MySQL/MariaDB (mysql2 `connectTimeout`). */
  connectTimeoutMs: number;
  /**
   * Longest one statement may run inside a request. Enforced by the server on MariaDB
   * (`max_statement_time`) or MySQL (`max_execution_time`, SELECT only) and by the client on every
   * statement sent during a request (also capped by the request's own deadline): a statement past
   * its bound destroys its connection, which makes the server roll back the open transaction.
   * 0 disables both (migrations and CLI commands).
   */
  statementTimeoutMs: number;
  /** InnoDB row-lock wait (integer seconds, at least 1); kept below RATING_TIMEOUT_MS. */
  lockWaitTimeoutSeconds: number;
  /** SQLite `busy_timeout`: how long a write waits for another process's lock (it blocks the event loop). */
  sqliteBusyTimeoutMs: number;
  /**
   * SQLite `wal_autocheckpoint`, in pages of the write-ahead log (4 KiB each): the COMMIT that
   * takes the log past it also copies the log into the database file and syncs it, on the
   * event loop, while every other request waits. Smaller means shorter, more frequent stalls
   * (issue 16: rating p99 at half of peak 13-62 ms at SQLite's default of 1000 pages, mostly
   * 7-11 ms at 100, bench/README.md) but more syncs of the database file (peak ratings/s about
   * 20 % lower); migrations and CLI commands use 1000.
   */
  sqliteWalAutocheckpointPages: number;
  /**
   * SQLite `synchronous` in WAL mode: `full` (SQLite's default) syncs the write-ahead log at
   * every COMMIT, so an answered write survives a power loss or an OS crash; `normal` syncs it
   * only at checkpoints, so a write answered since the last checkpoint survives a crash of the
   * process (`kill -9`) but may be rolled back by a power loss or an OS crash (the database
   * stays consistent). Measured (issue 16, bench/README.md, three interleaved scratch runs):
   * rating p99 at half of peak 7-8 ms with `normal` against 8-19 ms with `full`, peak ratings/s
   * 454-535 against 321-388. Serving and maintenance alike.
   */
  sqliteSynchronous: SqliteSynchronous;
  /**
   * Group commit on SQLite (`SQLITE_GROUP_COMMIT`, default on; see src/db/group-commit.ts): the
   * write transactions of requests asked for within one turn of the event loop share one
   * COMMIT. Off: each commits on its own, as before issue 16's group commit. No effect on
   * MySQL/MariaDB.
   */
  sqliteGroupCommit: boolean;
}

/** The values of {@link DbLimits.sqliteSynchronous} (`SQLITE_SYNCHRONOUS`). */
export const SQLITE_SYNCHRONOUS_MODES = ['full', 'normal'] as const;
/** One of {@link SQLITE_SYNCHRONOUS_MODES}. */
export type SqliteSynchronous = (typeof SQLITE_SYNCHRONOUS_MODES)[number];

/** Serving defaults (the configuration table in the README lists the variables). */
export const DEFAULT_DB_LIMITS: DbLimits = {
  poolMax: 10,
  acquireTimeoutMs: 1000,
  connectTimeoutMs: 1000,
  statementTimeoutMs: 2000,
  lockWaitTimeoutSeconds: 1,
  sqliteBusyTimeoutMs: 200,
  sqliteWalAutocheckpointPages: 100,
  sqliteSynchronous: 'full',
  sqliteGroupCommit: true,
};

/**
 * `limits` for migrations and CLI commands: the same connection bounds, no statement timeout,
 * SQLite's own checkpoint size (1000 pages: fewer syncs under bulk writes).
 */
export function maintenanceLimits(limits: DbLimits): DbLimits {
  return { ...limits, statementTimeoutMs: 0, sqliteWalAutocheckpointPages: 1000 };
}

/** {@link maintenanceLimits} of the serving defaults (CLI commands, the bench's data loader). */
export const MAINTENANCE_DB_LIMITS: DbLimits = maintenanceLimits(DEFAULT_DB_LIMITS);

/** Milliseconds a COMMIT may take past the request deadline before its connection is dropped. */
const COMMIT_GRACE_MS = 250;

/** The database dialects the gateway runs on. */
export type Dialect = 'sqlite' | 'mysql';

type RawConnection = { query(sql: string, cb: (err: Error | null) => void): void };

/**
 * Runs session statements on a new MySQL connection in order; each entry may name a fallback
 * statement for servers that do not know the first one's variable (MariaDB vs MySQL).
 */
function mysqlSession(
  conn: RawConnection,
  statements: Array<[string, string?]>,
  done: (err: Error | null) => void,
): void {
  const [first, ...rest] = statements;
  if (!first) return done(null);
  conn.query(first[0], (err) => {
    const unknown = (err as { code?: string } | null)?.code === 'ER_UNKNOWN_SYSTEM_VARIABLE';
    if (err && unknown && first[1]) return mysqlSession(conn, [[first[1]], ...rest], done);
    if (err) return done(err);
    mysqlSession(conn, rest, done);
  });
}

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
 * `mysql://user:pass@host:port/database` (MySQL 8 / MariaDB 10.6+ through mysql2), with every
 * wait bounded by `limits`.
 * @throws Error for any other scheme, or a SQLite file whose directory is missing.
 */
export function knexConfig(databaseUrl: string, limits: DbLimits = DEFAULT_DB_LIMITS): Knex.Config {
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
  if (databaseUrl.startsWith('mysql://')) {
    const url = new URL(databaseUrl);
    const session: Array<[string, string?]> = [
      // A row lock held longer than this is a repository timeout (charging maps it to 2003).
      [`SET SESSION innodb_lock_wait_timeout = ${limits.lockWaitTimeoutSeconds}`],
    ];
    if (limits.statementTimeoutMs > 0)
      session.push([
        `SET SESSION max_statement_time = ${limits.statementTimeoutMs / 1000}`,
        `SET SESSION max_execution_time = ${limits.statementTimeoutMs}`,
      ]);
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
        connectTimeout: limits.connectTimeoutMs,
        // BIGINT micro-units and quotas come back as exact numbers (safe range) or strings.
        supportBigNumbers: true,
        bigNumberStrings: false,
        decimalNumbers: false,
      },
      pool: {
        min: 0,
        max: limits.poolMax,
        acquireTimeoutMillis: limits.acquireTimeoutMs,
        createTimeoutMillis: limits.connectTimeoutMs + 500,
        afterCreate(conn: RawConnection, done: (err: Error | null, conn: unknown) => void) {
          mysqlSession(conn, session, (err) => done(err, conn));
        },
      },
    };
  }
  throw new Error(`unsupported DATABASE_URL scheme: ${databaseUrl.split(':')[0]}`);
}

/** The parts of a better-sqlite3 `Database` the configuration touches. */
interface SqliteConnection {
  pragma(s: string): unknown;
  prepare(sql: string): unknown;
}

/** Distinct SQL texts whose prepared statements a SQLite connection keeps (least recently used dropped). */
export const SQLITE_STATEMENT_CACHE_SIZE = 500;

/** SQL texts that are not worth caching: knex's savepoints, each named once. */
const ONE_OFF_SQL = /^(SAVEPOINT|RELEASE SAVEPOINT|ROLLBACK TO SAVEPOINT) /;

/**
 * Makes a better-sqlite3 connection prepare each SQL text once (issue 16 "Speed": preparing was
 * 14 % of the busy time of a token introspection): `prepare` answers the statement prepared for
 * the same text before, from a per-connection LRU cache of {@link SQLITE_STATEMENT_CACHE_SIZE}.
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
 * Option key of a query object (`options`) asking {@link boundClient} to send it with mysql2
 * `execute` (a prepared statement, cached per connection by mysql2) instead of `query`; set by
 * `preparedRows` (src/db/prepared.ts). Ignored on SQLite, where every statement is cached.
 */
export const PREPARED = 'gatewayPrepared';

type Mysql2Connection = {
  execute(
    options: Record<string, unknown>,
    values: unknown,
    cb: (err: Error | null, rows: unknown, fields: unknown) => void,
  ): void;
};

/** knex's mysql2 `_query` with `execute` in place of `query` (see {@link PREPARED}). */
function executePrepared(connection: unknown, obj: unknown): Promise<unknown> {
  const q = obj as {
    sql: string;
    bindings?: unknown[];
    options: Record<string, unknown>;
    response?: unknown;
  };
  const { [PREPARED]: _prepared, ...options } = q.options;
  return new Promise((resolve, reject) =>
    (connection as Mysql2Connection).execute(
      { ...options, sql: q.sql },
      q.bindings ?? [],
      (err, rows, fields) => {
        if (err) return reject(err);
        q.response = [rows, fields];
        resolve(q);
      },
    ),
  );
}

/**
 * Transaction option (SQLite only, `{ [SQLITE_IMMEDIATE]: true }`): open with `BEGIN IMMEDIATE`,
 * taking the write lock at once instead of at the first write, and wait for another connection's
 * lock without blocking the event loop (see `beginImmediate`), for up to SQLITE_BUSY_TIMEOUT_MS.
 * The group commit's transaction uses it (src/db/group-commit.ts): a transaction that read first
 * could not take the lock at all once another connection had written meanwhile (SQLITE_BUSY with
 * no wait), and a busy handler sleeping in the thread would stall every request of the process.
 */
export const SQLITE_IMMEDIATE = 'gatewayImmediate';

/** The part of knex's transaction object that {@link SQLITE_IMMEDIATE} replaces. */
interface SqliteTransaction {
  begin(conn: unknown): Promise<unknown>;
}

/**
 * `BEGIN IMMEDIATE` on `conn` without blocking the event loop: SQLite's busy handler would
 * sleep in the thread while another connection holds the write lock, and when that connection
 * is another knex instance of this process (two gateways over one file in one process) it could
 * not release the lock meanwhile. So each attempt runs with `busy_timeout = 0`, and a busy
 * database is tried again after 1, 2, 4 … 16 ms, asynchronously, for up to `busyTimeoutMs`.
 * @throws the last SQLITE_BUSY once `busyTimeoutMs` has passed (a 'timeout' for
 *   {@link databaseFailureOf}), or any other error of BEGIN at once.
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

/** The better-sqlite3 statement calls {@link beginImmediate} makes. */
interface SqliteStatement {
  get(): unknown;
  run(): unknown;
}

/** On a connection that {@link boundClient} dropped: the timeout that dropped it. */
const DROPPED = Symbol('dropped after a statement timeout');

type QueryFn = (connection: unknown, obj: unknown) => Promise<unknown>;
type ClientClass = new (config: Knex.Config) => Knex.Client;

/**
 * The dialect's knex client class with every statement sent during a request bounded (see
 * {@link DbLimits.statementTimeoutMs}): once the request's deadline has passed no statement is
 * sent (ROLLBACK always is), and on MySQL a statement still running at min(statement timeout,
 * time left) destroys its connection and fails with DatabaseTimeoutError (`commit` true when it
 * was a COMMIT, whose outcome is then unknown; `deadline` true when the request's deadline, not
 * the statement bound, stopped it). better-sqlite3 runs synchronously: only the deadline check
 * and `busy_timeout` apply there. Statements outside a request (start-up, CLI) are not bounded.
 * A subclass, not an instance patch: knex builds each transaction's client from the class
 * prototype, so transactions are bounded too.
 */
function boundClient(dialect: Dialect, limits: DbLimits): ClientClass {
  // knex exposes its dialect classes only by path.
  const Base = (
    dialect === 'mysql' ? require('knex/lib/dialects/mysql2') : require('knex/lib/dialects/better-sqlite3')
  ) as ClientClass;
  const base = (Base.prototype as unknown as { _query: QueryFn })._query;
  const Bounded = class extends Base {};
  if (dialect === 'sqlite') {
    // `{ [SQLITE_IMMEDIATE]: true }`: BEGIN IMMEDIATE, the write lock taken at once, waited for asynchronously.
    type TransactionFn = (
      container: unknown,
      config?: Record<string, unknown>,
      outerTx?: unknown,
    ) => SqliteTransaction;
    const transaction = (Base.prototype as unknown as { transaction: TransactionFn }).transaction;
    (Bounded.prototype as unknown as { transaction: TransactionFn }).transaction = function (
      this: unknown,
      container,
      config,
      outerTx,
    ) {
      const trx = transaction.call(this, container, config, outerTx);
      if (config?.[SQLITE_IMMEDIATE] === true && !outerTx)
        trx.begin = (conn) => beginImmediate(conn as SqliteConnection, limits.sqliteBusyTimeoutMs);
      return trx;
    };
  }
  (Bounded.prototype as unknown as { _query: QueryFn })._query = function (this: unknown, connection, obj) {
    const prepared =
      dialect === 'mysql' &&
      (obj as { options?: Record<string, unknown> } | undefined)?.options?.[PREPARED] === true;
    const run = (): Promise<unknown> =>
      prepared ? executePrepared(connection, obj) : base.call(this, connection, obj);
    const left = remainingMs();
    if (left === Infinity || limits.statementTimeoutMs <= 0) return run();
    const sql = typeof obj === 'string' ? obj : ((obj as { sql?: string } | undefined)?.sql ?? '');
    const rollback = /^\s*rollback/i.test(sql);
    const commit = /^\s*commit/i.test(sql);
    if (left <= 0 && !rollback)
      return Promise.reject(
        new DatabaseTimeoutError('request deadline passed before the statement was sent', false, true),
      );
    if (dialect === 'sqlite') return run();
    // A connection this bound dropped takes no further statement (its ROLLBACK would wait on a
    // dead socket); the server already rolled its transaction back when it went away.
    const dropped = (connection as { [DROPPED]?: DatabaseTimeoutError })[DROPPED];
    if (dropped) return Promise.reject(dropped);
    const bound = rollback ? limits.statementTimeoutMs : left + (commit ? COMMIT_GRACE_MS : 0);
    const budget = Math.min(limits.statementTimeoutMs, bound);
    return new Promise((resolve, reject) => {
      let settled = false;
      const settle = (fn: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        fn();
      };
      const timer = setTimeout(
        () =>
          settle(() => {
            // The server rolls back the connection's open transaction when it goes away.
            const timeout = new DatabaseTimeoutError(
              `statement exceeded ${Math.round(budget)} ms`,
              commit,
              budget < limits.statementTimeoutMs,
            );
            (connection as { [DROPPED]?: DatabaseTimeoutError })[DROPPED] = timeout;
            (connection as { destroy(): void }).destroy();
            reject(timeout);
          }),
        Math.max(1, budget),
      );
      run().then(
        (value) => settle(() => resolve(value)),
        (err: unknown) => settle(() => reject(err)),
      );
    });
  };
  // Waiting for a pooled connection is bounded by the request's deadline too, not only by
  // DB_ACQUIRE_TIMEOUT_MS: a request whose deadline passes while it waits fails with
  // DatabaseTimeoutError (deadline) at once, and a connection that arrives later goes back to the
  // pool unused.
  const acquire = (Base.prototype as unknown as { acquireConnection: () => Promise<unknown> })
    .acquireConnection;
  (Bounded.prototype as unknown as { acquireConnection: () => Promise<unknown> }).acquireConnection =
    function (this: { releaseConnection(connection: unknown): Promise<unknown> }) {
      return beforeDeadline(
        () => acquire.call(this),
        connectionWaitPastDeadline,
        (acquiring) =>
          acquiring.then(
            (connection) => this.releaseConnection(connection),
            () => undefined,
          ),
      );
    };
  return Bounded;
}

/** Where knex writes its own warnings (pino in the service; see createKnex). */
export interface KnexLog {
  warn(msg: string): void;
  error(msg: string): void;
}

/**
 * Opens a knex instance for `databaseUrl` with every wait bounded by `limits` (default: the
 * serving limits); close it with `destroy()`. `log` receives knex's own warnings (for example
 * "Acquire connection error") instead of the console.
 */
export function createKnex(databaseUrl: string, limits: DbLimits = DEFAULT_DB_LIMITS, log?: KnexLog): Knex {
  const config = knexConfig(databaseUrl, limits);
  // A failed connection attempt reaches the caller as an error (mapped to 503/2002 or a one-line
  // start-up failure); knex's own "Acquire connection error" warning would only repeat it.
  if (log)
    config.log = {
      warn: (m: unknown) => {
        if (!String(m).startsWith('Acquire connection error')) log.warn(String(m));
      },
      error: (m: unknown) => log.error(String(m)),
      deprecate: (m: unknown) => log.warn(String(m)),
      debug: () => undefined,
    };
  const dialect = databaseUrl.startsWith('mysql') ? 'mysql' : 'sqlite';
  config.client = boundClient(dialect, limits) as never;
  const db = knexFactory(config);
  if (dialect === 'sqlite' && limits.sqliteGroupCommit)
    groupCommits.set(db, new SqliteGroupCommit(db, { [SQLITE_IMMEDIATE]: true }));
  return db;
}

/** How a database failure shows to clients (CONTRACT §8 "When things fail"). */
export type DatabaseFailure = 'unreachable' | 'timeout';

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
 * conflict whose reruns were spent, see {@link retryingTransaction}), or undefined
 * for anything else (a constraint, a bug). Looks along the {@link errorChain}.
 */
export function databaseFailureOf(err: unknown): DatabaseFailure | undefined {
  for (const e of errorChain(err)) {
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
 * see {@link retryingTransaction}). The table needs a `row_version` column (migration
 * 20261123000100). On SQLite nothing is done: its write transactions already exclude each other.
 */
export async function certifiedLock(db: Knex, table: string, where: Record<string, unknown>): Promise<void> {
  if (dialectOf(db) === 'mysql') await db(table).where(where).increment('row_version', 1);
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
 * Why a transaction was rolled back by a write conflict and may be rerun as a whole:
 * `deadlock` is ER_LOCK_DEADLOCK (1213): an InnoDB deadlock, or on Galera a certification
 * failure at COMMIT or a brute-force abort by a replicated write; `snapshot` is ER_CHECKREAD
 * (1020, "record has changed since last read", MariaDB's `innodb_snapshot_isolation`).
 * ER_LOCK_WAIT_TIMEOUT (1205) is not one of them: with DB_LOCK_WAIT_TIMEOUT_SECONDS it means a
 * lock held too long, a repository timeout (charging answers 2003), and waiting again would only
 * spend the deadline twice.
 */
export type TransactionConflict = 'deadlock' | 'snapshot';

const CONFLICT_ERRNOS: Record<number, TransactionConflict> = { 1213: 'deadlock', 1020: 'snapshot' };

/** The write conflict that rolled back a transaction (see {@link TransactionConflict}), or undefined, along the {@link errorChain}. */
export function transactionConflictOf(err: unknown): TransactionConflict | undefined {
  for (const e of errorChain(err)) {
    const errno = (e as { errno?: unknown }).errno;
    const conflict = typeof errno === 'number' ? CONFLICT_ERRNOS[errno] : undefined;
    if (conflict) return conflict;
  }
  return undefined;
}

/**
 * Transactions rerun after a write conflict, by reason (`/metrics`; registered by the app's
 * Registry in src/app.ts). One process-wide counter: every knex instance of the process adds to it.
 */
export const transactionRetries = new Counter({
  name: 'db_transaction_retries_total',
  help: 'Transactions rolled back by a deadlock or a Galera certification conflict and rerun as a whole, by reason',
  labelNames: ['reason'] as const,
  registers: [],
});
for (const reason of Object.values(CONFLICT_ERRNOS)) transactionRetries.inc({ reason }, 0);

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

/** The group commit of each SQLite knex instance {@link createKnex} opened with `sqliteGroupCommit`. */
const groupCommits = new WeakMap<Knex, SqliteGroupCommit>();

/**
 * The group commit of `db` (see {@link SqliteGroupCommit}): set for a root SQLite instance
 * opened by {@link createKnex} with `sqliteGroupCommit`; undefined on MySQL/MariaDB, with the
 * setting off, and for a transaction (its writes join it).
 */
function groupCommitOf(db: Knex): SqliteGroupCommit | undefined {
  return groupCommits.get(db);
}

/**
 * True when the write transactions {@link retryingTransaction} and {@link lockingTransaction} run
 * on `db` go through its group commit ({@link SqliteGroupCommit}: SQLite, `SQLITE_GROUP_COMMIT`
 * on), one after another on its one connection.
 */
export function groupsCommits(db: Knex): boolean {
  return groupCommits.has(db);
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Runs `scope` in a transaction of `db` (options `config`, e.g. an isolation level) and, when a
 * write conflict rolls it back (see {@link transactionConflictOf}), runs the whole of it again in
 * a new transaction: `scope` starts over from its first read, so an effect is never applied
 * twice (the rolled-back attempt left nothing behind). Reruns are bounded by `policy.attempts`
 * and by the request's deadline (`remainingMs()`; outside a request by the attempts only); the
 * last conflict is then thrown as it came. Each rerun counts in `db_transaction_retries_total`.
 * `scope` must not have effects outside the transaction (it may run more than once).
 * On SQLite (the root instance, no `config`, `SQLITE_GROUP_COMMIT` on) the transaction runs in the group commit
 * ({@link SqliteGroupCommit}): under a savepoint of a transaction it may share with others of the
 * same event-loop turn, resolved only after that transaction's COMMIT.
 * Issue 14 "Retried transactions"; CONTRACT §8.
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
      const group = config === undefined ? groupCommitOf(db) : undefined;
      return await (group ? group.run(scope) : db.transaction(scope, config));
    } catch (err) {
      const conflict = transactionConflictOf(err);
      if (!conflict || attempt >= policy.attempts) throw err;
      const backoff =
        Math.random() * Math.min(policy.maxBackoffMs, policy.baseBackoffMs * 2 ** (attempt - 1));
      if (remainingMs() - backoff < policy.minRemainingMs) throw err;
      transactionRetries.inc({ reason: conflict });
      await sleep(backoff);
    }
  }
}

/**
 * Runs `write`, one statement or a few that need no transaction of their own, so that it
 * commits as cheaply as the database allows: on SQLite with group commit ({@link groupsCommits})
 * inside {@link retryingTransaction}, so that it shares one COMMIT (one sync of the log) with
 * the other writes of the same event-loop turn and resolves after that COMMIT; elsewhere on `db`
 * itself, in autocommit (one round trip on MySQL/MariaDB instead of BEGIN, the write, COMMIT).
 * Either way the write is durable when the promise resolves. Issue 16 "Speed".
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
