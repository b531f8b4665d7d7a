/**
 * The configuration's own defaults and the shapes they fill: the bottom layer, importing nothing
 * of the gateway, so that loading the configuration loads neither knex nor GraphQL. The modules
 * that apply a setting (src/db, src/graphql/limits.ts, src/auth/authenticate.ts) take their
 * defaults from here (src/auth/login-throttle.ts too). docs/operations.md "Configuration" lists the variables (docs/contract.md §8).
 */

/**
 * Bounds on every database wait (docs/contract.md §8 "When things fail"). All in milliseconds
 * except `lockWaitTimeoutSeconds`.
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
   * (rating p99 at half of peak 13-62 ms at SQLite's default of 1000 pages, mostly 7-11 ms at
   * 100, docs/benchmarks.md) but more syncs of the database file (peak ratings/s about 20 % lower);
   * migrations and CLI commands use 1000.
   */
  sqliteWalAutocheckpointPages: number;
  /**
   * SQLite `synchronous` in WAL mode: `full` (SQLite's default) syncs the write-ahead log at
   * every COMMIT, so an answered write survives a power loss or an OS crash; `normal` syncs it
   * only at checkpoints, so a write answered since the last checkpoint survives a crash of the
   * process (`kill -9`) but may be rolled back by a power loss or an OS crash (the database
   * stays consistent). Measured (docs/benchmarks.md, three interleaved scratch runs): rating p99 at
   * half of peak 7-8 ms with `normal` against 8-19 ms with `full`, peak ratings/s 454-535
   * against 321-388. Serving and maintenance alike.
   */
  sqliteSynchronous: SqliteSynchronous;
  /**
   * Group commit on SQLite (`SQLITE_GROUP_COMMIT`, default on; see src/db/group-commit.ts): the
   * write transactions of requests asked for within one turn of the event loop share one
   * COMMIT. Off: each commits on its own. No effect on MySQL/MariaDB.
   */
  sqliteGroupCommit: boolean;
}

/** The values of {@link DbLimits.sqliteSynchronous} (`SQLITE_SYNCHRONOUS`). */
export const SQLITE_SYNCHRONOUS_MODES = ['full', 'normal'] as const;
/** One of {@link SQLITE_SYNCHRONOUS_MODES}. */
export type SqliteSynchronous = (typeof SQLITE_SYNCHRONOUS_MODES)[number];

/** Serving defaults of the DB_* and SQLITE_* variables. */
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

/** Default of `GRAPHQL_MAX_COST`: the cost above which an operation is refused. */
export const DEFAULT_GRAPHQL_MAX_COST = 50_000;

/** Default of `GRAPHQL_TIMEOUT_MS`: the deadline of one GraphQL request, from its arrival. */
export const DEFAULT_GRAPHQL_TIMEOUT_MS = 5_000;

/** Brute-force limits (AUTH_* variables); a maximum of 0 turns that counter off. */
export interface LoginThrottleLimits {
  /** Failed logins of one username per window before its attempts get 429 (AUTH_MAX_FAILURES). */
  maxFailuresPerUsername: number;
  /** Failed logins from one client address per window, any usernames (AUTH_MAX_FAILURES_PER_ADDRESS). */
  maxFailuresPerAddress: number;
  /** Window length in seconds (AUTH_WINDOW_SECONDS). */
  windowSeconds: number;
}

/** Defaults of AUTH_MAX_FAILURES, AUTH_MAX_FAILURES_PER_ADDRESS and AUTH_WINDOW_SECONDS. */
export const DEFAULT_LOGIN_THROTTLE: LoginThrottleLimits = {
  maxFailuresPerUsername: 10,
  maxFailuresPerAddress: 50,
  windowSeconds: 300,
};

/** AUTH_CLIENT_CACHE_MS default: how long a client row read for one request serves the next ones. */
export const DEFAULT_CLIENT_CACHE_MS = 1000;

/** RATE_LIMIT_KEY_PREFIX default: the prefix of the per-client rate limit counters in Redis. */
export const DEFAULT_RATE_LIMIT_KEY_PREFIX = 'sg:rl';

/** RATE_LIMIT_REDIS_TIMEOUT_MS default: the longest a request waits for Redis before it passes unlimited. */
export const DEFAULT_RATE_LIMIT_REDIS_TIMEOUT_MS = 50;
