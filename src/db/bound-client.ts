import type { Knex } from 'knex';
import type { DbLimits } from '../config/defaults';
import { DatabaseTimeoutError } from '../errors';
import { DeadlineExceededError, remainingMs } from '../lib/request-scope';
import { SpanKind, settleSpan, startChildSpan, tracingActive } from '../lib/tracing';
import type { Dialect } from './dialect';
import { sendMysql, sendMysqlTo } from './mysql';
import { beginImmediateOnRequest } from './sqlite';

// knex's pool (tarn) and knex's own credential hiding: knex exposes neither but by path.
const { TimeoutError } = require('tarn') as { TimeoutError: new () => Error };
const { setHiddenProperty } = require('knex/lib/util/security') as {
  setHiddenProperty(target: object): void;
};

/*
 * Why the gateway patches knex's client instead of using knex's own `.timeout(ms, { cancel: true })`
 * (read in knex 3.3, lib/execution/runner.js, lib/query/querybuilder.js, lib/raw.js,
 * lib/execution/transaction.js, lib/dialects/mysql/index.js):
 *
 * - `.timeout` is set on one query builder or raw query, with a fixed number of milliseconds
 *   chosen when the query is built. The bound here is the request's own deadline (read from the
 *   request scope when the statement is sent) capped by DB_STATEMENT_TIMEOUT_MS, and it must cover
 *   every statement: the BEGIN, COMMIT and ROLLBACK knex sends itself (transaction.js calls
 *   `query(conn, 'COMMIT')` with no builder, so no `.timeout` can reach them), the prepared
 *   statements of ./prepared.ts, and every query of every module without each call site
 *   remembering to add it.
 * - `{ cancel: true }` exists only where the dialect can cancel (`canCancelQuery`): on SQLite
 *   (better-sqlite3) `.timeout(ms, { cancel: true })` throws at once. On MySQL it cancels by
 *   opening a new raw connection (`acquireRawConnection`, outside the pool) and sending
 *   `KILL QUERY <threadId>` (knex/knex#2211, fixed by knex/knex#4324): a second TCP connect and
 *   handshake to a server that is already slow or unreachable, exactly when it cannot help.
 * - `KILL QUERY` stops one statement but leaves its transaction open with its row locks held,
 *   and statements queued behind it on the same transaction's connection still run afterwards:
 *   knex/knex#4415 (open), "`.timeout(ms, {cancel: true})` for queued queries in transaction",
 *   where only the first of several timed-out queries is killed. Destroying the connection
 *   instead (below) makes the server roll the whole transaction back and fails every later
 *   statement on it at once.
 * - Without `cancel`, `.timeout` only rejects the promise and marks the connection disposed; the
 *   statement keeps running and holding its locks until it ends by itself.
 * - knex bounds the wait for a pooled connection only by the fixed `acquireTimeoutMillis`, not by
 *   the request's deadline (client.js `acquireConnection`).
 */

/** Milliseconds a COMMIT may take past the request deadline before its connection is dropped. */
const COMMIT_GRACE_MS = 250;

/** On a connection that {@link boundClient} dropped: the timeout that dropped it. */
const DROPPED = Symbol('dropped after a statement timeout');

type QueryFn = (connection: unknown, obj: unknown) => Promise<unknown>;
/**
 * knex's own `_query` of the dialect on the statement's connection: sends the statement, or
 * `other` (a statement object: {@link rollBackRefusedCommit}'s ROLLBACK) in its place.
 */
type KnexQuery = (other?: unknown) => Promise<unknown>;
type AcquireFn = () => Promise<unknown>;
/** A knex dialect client class (knex exposes them only by path). */
export type ClientClass = new (config: Knex.Config) => Knex.Client;

/**
 * The dialect's knex client class with every statement sent during a request bounded (see
 * `DbLimits.statementTimeoutMs`): once the request's deadline has passed no statement is
 * sent (ROLLBACK always is), and on MySQL a statement still running at min(statement timeout,
 * time left) destroys its connection and fails: with DeadlineExceededError (`statement`, or
 * `commit` with `outcomeUnknown` for a COMMIT) when the request's deadline set that bound, else
 * with DatabaseTimeoutError (`commit` true for a COMMIT, whose outcome is then unknown). better-sqlite3 runs synchronously: only the deadline check
 * and `busy_timeout` apply there. Statements outside a request (start-up, CLI) are not bounded.
 * The wait for a pooled connection is bounded by the request's deadline too
 * ({@link boundAcquire}); on SQLite, transactions may begin IMMEDIATE (`SQLITE_IMMEDIATE`).
 *
 * A subclass, not an instance patch: knex builds each transaction's client from the class
 * prototype (`Object.create(client.constructor.prototype)` in lib/execution/transaction.js), so transactions are
 * bounded too, and other knex instances of the process keep knex's own classes.
 */
export function boundClient(dialect: Dialect, limits: DbLimits): ClientClass {
  // knex exposes its dialect classes only by path.
  const Base = (
    dialect === 'mysql' ? require('knex/lib/dialects/mysql2') : require('knex/lib/dialects/better-sqlite3')
  ) as ClientClass;
  const Bounded = class extends Base {};
  if (dialect === 'sqlite') beginImmediateOnRequest(Bounded, Base, limits.sqliteBusyTimeoutMs);
  boundQueries(Bounded, Base, dialect, limits);
  boundAcquire(Bounded, Base);
  synchronousValidate(Bounded, Base);
  return Bounded;
}

/**
 * Replaces `_query`, the one method every statement passes through on its way to the driver
 * (builders, raw queries, knex's own BEGIN/COMMIT/ROLLBACK and savepoints, ./prepared.ts), with
 * {@link boundStatement} around knex's own (on MySQL around `sendMysql`, which sends a prepared
 * statement with `execute` and the SQL as a string: see ./mysql.ts). With tracing on, each
 * statement sent within a traced request is a client span (docs/platform.md "Tracing").
 */
function boundQueries(Bounded: ClientClass, Base: ClientClass, dialect: Dialect, limits: DbLimits): void {
  const base = (Base.prototype as unknown as { _query: QueryFn })._query;
  (Bounded.prototype as unknown as { _query: QueryFn })._query = function (this: unknown, connection, obj) {
    const knexQuery: KnexQuery = (other = obj) => base.call(this, connection, other);
    const sent = (): Promise<unknown> =>
      boundStatement(this as PooledClient, connection, obj, knexQuery, dialect, limits);
    const span = tracingActive() ? startChildSpan(...statementSpan(dialect, obj)) : undefined;
    return span ? settleSpan(span, sent()) : sent();
  };
}

/**
 * The span of one statement: named by its first SQL word and the dialect, `db.system` `sqlite` or
 * `mysql`, `db.statement` the SQL as knex sends it (placeholders, never the bound values).
 */
function statementSpan(dialect: Dialect, obj: unknown): Parameters<typeof startChildSpan> {
  const sql = typeof obj === 'string' ? obj : ((obj as { sql?: string } | undefined)?.sql ?? '');
  const operation = /^\s*(\w+)/.exec(sql)?.[1]?.toUpperCase() ?? 'SQL';
  return [
    `${operation} ${dialect}`,
    { 'db.system': dialect, 'db.statement': sql, 'db.operation': operation },
    SpanKind.CLIENT,
  ];
}

/**
 * Sends one statement (`obj`: on MySQL through ./mysql.ts `sendMysql`, else knex's own `_query`,
 * `knexQuery`) within the request's deadline: unbounded outside a request or with
 * no statement timeout; refused once the deadline has passed (a ROLLBACK is always sent; a
 * COMMIT refused is answered by {@link rollBackRefusedCommit}); on MySQL refused on a connection
 * this bound dropped, else run within {@link runWithin} of min(statement timeout, time left;
 * COMMIT_GRACE_MS more for a COMMIT; a ROLLBACK gets the statement timeout).
 * @throws DeadlineExceededError (`statement`) when the deadline had passed before it was sent.
 */
function boundStatement(
  client: PooledClient,
  connection: unknown,
  obj: unknown,
  knexQuery: KnexQuery,
  dialect: Dialect,
  limits: DbLimits,
): Promise<unknown> {
  const left = remainingMs();
  if (left === Infinity || limits.statementTimeoutMs <= 0)
    return dialect === 'mysql' ? sendMysql(connection, obj, knexQuery) : knexQuery();
  const sql = typeof obj === 'string' ? obj : ((obj as { sql?: string } | undefined)?.sql ?? '');
  const rollback = /^\s*rollback/i.test(sql);
  const commit = /^\s*commit/i.test(sql);
  if (left <= 0 && !rollback) {
    const refused = new DeadlineExceededError('statement', {
      message: 'request deadline passed before the statement was sent',
    });
    return commit
      ? rollBackRefusedCommit(client, connection, knexQuery, dialect, limits, refused)
      : Promise.reject(refused);
  }
  if (dialect === 'sqlite') return knexQuery();
  // A connection this bound dropped takes no further statement (its ROLLBACK would wait on a
  // dead socket); the server already rolled its transaction back when it went away.
  const dropped = (connection as { [DROPPED]?: Error })[DROPPED];
  if (dropped) return Promise.reject(dropped);
  const bound = rollback ? limits.statementTimeoutMs : left + (commit ? COMMIT_GRACE_MS : 0);
  const budget = Math.min(limits.statementTimeoutMs, bound);
  return runWithin(connection, obj, knexQuery, budget, commit, budget < limits.statementTimeoutMs);
}

/**
 * A COMMIT refused at the request's deadline (before it was sent) leaves its transaction open on
 * the connection, and knex's transaction sends no ROLLBACK after a COMMIT that failed: the pool
 * would lend the connection with the transaction still open (on MySQL its next BEGIN commits
 * those writes although the client was told they were not made, and autocommit statements join
 * it; on SQLite's one connection the next BEGIN fails). So a ROLLBACK is sent in its place, bound
 * as every ROLLBACK is, and the COMMIT then fails with `refused`. A ROLLBACK that fails marks the
 * connection disposed ({@link disposeConnection}). (With SQLite's group commit, the default, the
 * group's COMMIT runs outside any request and is never refused.)
 * @throws `refused` (DeadlineExceededError `statement`), always, once the ROLLBACK has settled.
 */
function rollBackRefusedCommit(
  client: PooledClient,
  connection: unknown,
  knexQuery: KnexQuery,
  dialect: Dialect,
  limits: DbLimits,
  refused: DeadlineExceededError,
): Promise<never> {
  const rollback = { sql: 'ROLLBACK', bindings: [] };
  const sendRollback: KnexQuery = (other = rollback) => knexQuery(other);
  return boundStatement(client, connection, rollback, sendRollback, dialect, limits).then(
    () => Promise.reject(refused),
    (err: unknown) => {
      disposeConnection(client, connection as object, err);
      return Promise.reject(refused);
    },
  );
}

/**
 * Marks a pooled `connection` disposed (knex's own mark, `__knex__disposed`, read by the pool's
 * validation, which logs it): the pool destroys it instead of lending it again. For a connection
 * whose transaction state is unknown (a ROLLBACK that failed). One that is already gone (dropped
 * at a statement's bound, closed by the server) fails `validateConnection` by itself and is not
 * marked.
 */
export function disposeConnection(
  client: Pick<PooledClient, 'validateConnection'>,
  connection: object,
  reason: unknown,
): void {
  if (client.validateConnection(connection))
    (connection as { __knex__disposed?: unknown }).__knex__disposed ??= reason;
}

/**
 * Runs the MySQL statement `obj` on `connection` (./mysql.ts `sendMysqlTo`: knex's own `_query`,
 * `knexQuery`, where that cannot send it) for at most `budget` ms, settling one promise: the
 * statement settles it itself, without a promise of its own (under Node 20 every promise runs
 * the request scope's hook). Past the budget the connection is destroyed (not
 * `KILL QUERY`: see the note at the top of this file), which makes the server roll back its open
 * transaction, marked {@link DROPPED} so that no later statement is sent on it, and the promise
 * rejects with {@link stoppedStatement}'s error.
 */
function runWithin(
  connection: unknown,
  obj: unknown,
  knexQuery: () => Promise<unknown>,
  budget: number,
  commit: boolean,
  deadline: boolean,
): Promise<unknown> {
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
          const timeout = stoppedStatement(`statement exceeded ${Math.round(budget)} ms`, commit, deadline);
          (connection as { [DROPPED]?: Error })[DROPPED] = timeout;
          (connection as { destroy(): void }).destroy();
          reject(timeout);
        }),
      Math.max(1, budget),
    );
    const done = (value: unknown) => settle(() => resolve(value));
    const failed = (err: unknown) => settle(() => reject(err));
    // The statement settles this one promise itself (no promise of its own).
    try {
      sendMysqlTo(connection, obj, knexQuery, done, failed);
    } catch (err) {
      failed(err);
    }
  });
}

/**
 * The error of a statement stopped at its bound: DeadlineExceededError when the request's
 * deadline set the bound (`commit` with `outcomeUnknown` for a COMMIT, else `statement`),
 * DatabaseTimeoutError when DB_STATEMENT_TIMEOUT_MS did (`commit` true for a COMMIT).
 */
function stoppedStatement(message: string, commit: boolean, deadline: boolean): Error {
  if (!deadline) return new DatabaseTimeoutError(message, commit);
  return commit
    ? new DeadlineExceededError('commit', { message, outcomeUnknown: true })
    : new DeadlineExceededError('statement', { message });
}

/**
 * The request's deadline passed while it waited for a database connection (or its transaction
 * group), or before a statement could take one (`preparedRows` on an idle SQLite connection,
 * ./prepared.ts).
 */
export function connectionWaitPastDeadline(): DeadlineExceededError {
  return new DeadlineExceededError('connection', {
    message: 'request deadline passed while waiting for a database connection',
  });
}

/** The part of knex's tarn pool {@link boundAcquire} uses. */
interface TarnPool {
  acquireTimeoutMillis: number;
  acquire(): { promise: Promise<unknown> };
}

/** A knex client as {@link boundAcquire} and {@link synchronousValidate} see it. */
interface PooledClient {
  pool?: TarnPool;
  config: { connection?: unknown };
  validateConnection(connection: unknown): boolean;
  logger: { warn(message: string): void };
}

/**
 * Bounds the wait for a pooled connection by the request's deadline too, not only by
 * DB_ACQUIRE_TIMEOUT_MS: a request whose deadline passes while it waits fails with
 * DeadlineExceededError (`connection`) at its deadline, and its place in the queue is withdrawn
 * (no connection is handed to it later). Why a patch of `acquireConnection`: knex's pool wait
 * has one fixed `acquireTimeoutMillis` for the whole instance (tarn), with no per-call bound;
 * this is the one method every query and transaction (and ./prepared.ts) acquires through.
 *
 * While the deadline is further away than DB_ACQUIRE_TIMEOUT_MS (a request's usual case: its
 * budget is seconds, the acquire bound one second) the pool's own bound comes first and the
 * acquire is knex's, untouched. Otherwise this one acquire is given tarn's timer at the time
 * left (the pool's `acquireTimeoutMillis` is read once, as the acquire is queued, and set back
 * at once), and tarn's timeout is answered as DeadlineExceededError. No timer or promise of its
 * own: under Node 20 every promise runs the request scope's hook (docs/benchmarks.md "The
 * request scope's promise hooks on MariaDB").
 */
function boundAcquire(Bounded: ClientClass, Base: ClientClass): void {
  const acquire = (Base.prototype as unknown as { acquireConnection: AcquireFn }).acquireConnection;
  (Bounded.prototype as unknown as { acquireConnection: AcquireFn }).acquireConnection = function (
    this: PooledClient,
  ) {
    const left = remainingMs();
    const pool = this.pool;
    if (left <= 0) return Promise.reject(connectionWaitPastDeadline());
    if (!pool || left >= pool.acquireTimeoutMillis) return acquire.call(this);
    const configured = pool.acquireTimeoutMillis;
    pool.acquireTimeoutMillis = Math.max(1, Math.ceil(left));
    let pending: { promise: Promise<unknown> };
    try {
      pending = pool.acquire();
    } finally {
      pool.acquireTimeoutMillis = configured;
    }
    return pending.promise.then(hideCredentials, (err: unknown) => {
      throw err instanceof TimeoutError ? connectionWaitPastDeadline() : err;
    });
  };
}

/**
 * What knex's `acquireConnection` does to every connection it hands out: the password in the
 * driver's connection settings made non-enumerable, so that logging a connection never prints it.
 */
function hideCredentials(connection: unknown): unknown {
  const config = (
    connection as { config?: { password?: unknown; authentication?: { options?: { password?: unknown } } } }
  ).config;
  if (config?.password) setHiddenProperty(config);
  if (config?.authentication?.options?.password) setHiddenProperty(config.authentication.options);
  return connection;
}

/**
 * knex's pool `validate` (run by tarn on every acquire), made synchronous: knex's own is an
 * async function awaiting another (a connection settings provider's expiry), three promises per
 * acquire that the gateway's configuration never needs (no provider, no
 * `maxConnectionLifetimeMillis`, no `pool.validate`, ./mysql.ts and ./sqlite.ts). It keeps
 * knex's two checks: a connection knex marked disposed (logged as knex does) and the dialect's
 * `validateConnection`. A configuration with one of those options keeps knex's.
 */
function synchronousValidate(Bounded: ClientClass, Base: ClientClass): void {
  type PoolSettingsFn = (
    this: PooledClient,
    poolConfig: Record<string, unknown> | undefined,
  ) => Record<string, unknown>;
  const settings = (Base.prototype as unknown as { getPoolSettings: PoolSettingsFn }).getPoolSettings;
  (Bounded.prototype as unknown as { getPoolSettings: PoolSettingsFn }).getPoolSettings = function (
    this: PooledClient,
    poolConfig,
  ) {
    const tarn = settings.call(this, poolConfig);
    const knexOnly =
      !poolConfig?.validate &&
      !poolConfig?.maxConnectionLifetimeMillis &&
      typeof this.config.connection !== 'function';
    if (knexOnly)
      tarn.validate = Object.assign(
        (connection: { __knex__disposed?: unknown }) => {
          if (connection.__knex__disposed) {
            this.logger.warn(`Connection Error: ${String(connection.__knex__disposed)}`);
            return false;
          }
          return this.validateConnection(connection);
        },
        { [SYNCHRONOUS]: true as const },
      );
    return tarn;
  };
}

/** On the pool `validate` {@link synchronousValidate} installs: it answers at once (a boolean). */
const SYNCHRONOUS = Symbol('validates synchronously');

/** The parts of knex's tarn pool (tarn 3.1, lib/Pool.js) {@link takeIdleConnection} reads and moves. */
interface TarnInternals {
  destroyed: boolean;
  /** Idle connections (tarn `Resource`s), the last one lent first. */
  free: Array<{ resource: object }>;
  /** Lent connections; `release` finds a connection here and moves it back to `free`. */
  used: Array<{ resource: object }>;
  pendingAcquires: unknown[];
  validate: ((connection: object) => unknown) & { [SYNCHRONOUS]?: true };
  emitter: { listenerCount(event: string): number };
  /** Starts the idle-connection reaper (once), as tarn does when it lends a connection. */
  _startReaping(): void;
  release(connection: object): boolean;
}

/**
 * An idle pooled connection of `client` (a root knex client, not a transaction's), taken at
 * once, synchronously, for one statement; give it back with {@link releaseTakenConnection}.
 * Undefined when the pool cannot lend one that way (or the request's deadline has passed: the
 * pool's acquire then fails with DeadlineExceededError `connection`, {@link boundAcquire}): it
 * is destroyed, has no idle connection, has
 * requests waiting (they come first), validates with a function of the configuration's own (it
 * may answer later), has `acquire…` event listeners (tarn's events are not emitted here), or
 * its next idle connection is disposed or fails the dialect's `validateConnection` (the pool's
 * own acquire then destroys it and lends or makes another). The caller then acquires through
 * the pool as usual.
 *
 * What tarn's acquire does with an idle connection, without its promises: tarn 3.1 queues a
 * pending operation (a deferred and a timeout wrapper), validates through another, and knex's
 * `acquireConnection` awaits it: about 20 promises per acquire, each also running the request
 * scope's hook under Node 20 (issue 33: a MariaDB read made three times the promises of an
 * SQLite one). Like tarn it lends the most recently freed connection and moves it to the lent
 * ones, starts the reaper, and, like knex, hides the password in the connection's settings.
 */
export function takeIdleConnection(client: Knex.Client): object | undefined {
  const pool = (client as { pool?: TarnInternals }).pool;
  if (
    pool === undefined ||
    remainingMs() <= 0 ||
    pool.destroyed ||
    pool.pendingAcquires.length > 0 ||
    pool.validate[SYNCHRONOUS] !== true ||
    pool.emitter.listenerCount('acquireRequest') > 0 ||
    pool.emitter.listenerCount('acquireSuccess') > 0
  )
    return undefined;
  const idle = pool.free[pool.free.length - 1];
  if (idle === undefined) return undefined;
  if ((idle.resource as { __knex__disposed?: unknown }).__knex__disposed || !pool.validate(idle.resource))
    return undefined;
  pool.free.pop();
  pool.used.push(idle);
  pool._startReaping();
  return hideCredentials(idle.resource) as object;
}

/**
 * Gives a connection {@link takeIdleConnection} took back to the pool (tarn's `release`, which
 * lends it to the next waiting request, if any), as knex's `releaseConnection` does without the
 * promise it answers.
 */
export function releaseTakenConnection(client: Knex.Client, connection: object): void {
  (client as unknown as { pool?: TarnInternals }).pool?.release(connection);
}
