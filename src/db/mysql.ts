import type { Knex } from 'knex';
import type { DbLimits } from '../config/defaults';

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

/**
 * Prepared statements mysql2 would keep per connection. The gateway prepares none on MySQL (every
 * statement goes as text, see {@link sendMysql}); the bound keeps the cache mysql2 allocates per
 * connection small.
 */
export const MAX_PREPARED_STATEMENTS = 64;

/**
 * The knex configuration of `mysql://user:pass@host:port/database` (MySQL 8 / MariaDB 10.6+
 * through mysql2), except the log (see `knexConfig` in ./connection.ts): a pool of
 * `limits.poolMax`, connect and acquire bounded, and each new connection's session set up with
 * the row-lock wait and, when `limits.statementTimeoutMs` is set, the server's statement bound
 * (`max_statement_time` on MariaDB, else `max_execution_time`).
 */
export function mysqlConfig(databaseUrl: string, limits: DbLimits): Knex.Config {
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
      // mysql2 caches prepared statements per connection in an LRU whose arrays it allocates at
      // their full size up front: 16,000 entries by default, 0.5 MB per connection that every
      // full garbage collection scans (5 MB for a pool of 10). The gateway prepares none.
      maxPreparedStatements: MAX_PREPARED_STATEMENTS,
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

type Mysql2Callback = (err: Error | null, rows: unknown, fields: unknown) => void;
type Mysql2Connection = {
  query(sql: string, values: unknown, cb: Mysql2Callback): void;
};

/** A knex query object as it reaches the client's `_query`. */
interface QueryObject {
  sql: string;
  bindings?: unknown[];
  options?: Record<string, unknown>;
  response?: unknown;
}

/**
 * knex's mysql2 `_query`, done here (`knexQuery` is knex's own, for what this does not cover):
 * sends `obj.sql` with `obj.bindings`, sets `obj.response` to `[rows, fields]` and answers `obj`,
 * as knex does, with one difference: a statement without driver options goes to mysql2 `query`
 * as its SQL string. knex passes an options object, which mysql2 copies into a new one with two
 * object spreads on every call; on Node 20 those copies ended in V8's old generation: measured
 * 420 bytes per `query` (5 with a string), about 4 KB per rating, and so a full garbage
 * collection (a 50-80 ms stall on one core) about twice as often (docs/benchmarks.md "Full
 * collections and what fed them"). A statement with driver options (e.g. knex's
 * `.options({ nestTables: true })`) goes through `knexQuery`.
 *
 * Every statement goes out as text, its values escaped by mysql2 as knex's own are, none as a
 * server-side prepared statement (mysql2 `execute`): the gateway's token lookup cost about 24 µs
 * more CPU per REST introspection through `execute` and made it promote 330 bytes more per
 * request (docs/benchmarks.md "MySQL reads as text, not prepared statements").
 */
export function sendMysql(
  connection: unknown,
  obj: unknown,
  knexQuery: () => Promise<unknown>,
): Promise<unknown> {
  return new Promise((resolve, reject) => sendMysqlTo(connection, obj, knexQuery, resolve, reject));
}

/**
 * {@link sendMysql} settling through `resolve` / `reject` instead of a promise of its own: sent
 * by {@link startMysql}, or through knex's own `_query` (`knexQuery`) where that cannot send it.
 * For the bounded client's statement bound (./bound-client.ts), whose one promise it settles.
 */
export function sendMysqlTo(
  connection: unknown,
  obj: unknown,
  knexQuery: () => Promise<unknown>,
  resolve: (value: unknown) => void,
  reject: (err: unknown) => void,
): void {
  if (!startMysql(connection, obj, resolve, reject)) knexQuery().then(resolve, reject);
}

/**
 * {@link sendMysql} without a promise of its own: sends the statement and settles through
 * `resolve` (with `obj`, its `response` set) or `reject` (the driver's error), or sends nothing and
 * answers false when the statement must go through knex's own `_query` (not an object with SQL,
 * or one with driver options).
 */
function startMysql(
  connection: unknown,
  obj: unknown,
  resolve: (value: unknown) => void,
  reject: (err: unknown) => void,
): boolean {
  const q = obj as QueryObject;
  if (typeof obj !== 'object' || obj === null || !q.sql) return false;
  if (q.options && Object.keys(q.options).length > 0) return false;
  (connection as Mysql2Connection).query(q.sql, q.bindings, (err, rows, fields) => {
    if (err) return reject(err);
    q.response = [rows, fields];
    resolve(q);
  });
  return true;
}
