import type { EventEmitter } from 'node:events';
import { Knex } from 'knex';
import { remainingMs } from '../lib/request-scope';
import { tracingActive } from '../lib/tracing';
import { connectionWaitPastDeadline, releaseTakenConnection, takeIdleConnection } from './bound-client';
import { dialectOf } from './dialect';
import { SqliteConnection, idleSqliteConnection } from './sqlite';

/**
 * Runs one hand-written SELECT without knex's query builder (the per-request
 * queries of authentication, token introspection and rating lookup, which knex would otherwise
 * build and compile on every request, and SQLite prepare anew).
 *
 * `sql` uses `?` placeholders and identifiers that need no quoting on either dialect. On SQLite
 * the connection's statement cache (see `cacheStatements` in ./sqlite.ts) prepares it once; on
 * MySQL/MariaDB it goes out as text, its values escaped by mysql2 as knex's statements are, not
 * as a server-side prepared statement (`sendMysql` in ./mysql.ts says why).
 *
 * On SQLite outside a transaction, while the pool's one connection is idle (see
 * `idleSqliteConnection` in ./sqlite.ts) and tracing is off, the statement runs on that
 * connection at once: better-sqlite3 is synchronous, so the pool's acquire and release, knex's
 * query path and the deadline race around them (about 30 promises, each also carrying the
 * request scope) only cost time (issue 33). It reads what a pooled statement would (committed
 * data), emits knex's `query` event when someone listens, and fails with
 * DeadlineExceededError (`connection`) once the request's deadline has passed, as the pool's
 * acquire does. A driver error is the driver's own (knex would prefix the SQL with its bound
 * values to the message; the code, which `databaseFailureOf` reads, is the same).
 *
 * On MySQL/MariaDB outside a transaction, an idle pooled connection is taken at once and the
 * statement sent through the bounded client alone, without the pool's and knex's promises
 * ({@link mysqlRows}), with the same bounds, event and errors.
 *
 * Otherwise the statement runs through the knex client's bounded `_query` (see `boundClient` in
 * `./bound-client.ts`), so the request deadline and DB_STATEMENT_TIMEOUT_MS bound it, a MySQL connection
 * past its bound is destroyed and the failure is a DatabaseTimeoutError (DB_STATEMENT_TIMEOUT_MS) or
 * a DeadlineExceededError (the request's deadline); on a transaction (`db`
 * a `Knex.Transaction`) it runs on the transaction's connection, and a completed transaction
 * refuses it as knex does.
 *
 * @returns the rows (column names as selected; BIGINT columns as numbers on MySQL, as the
 *   knex queries get them).
 * @throws whatever the driver or the bound throws (classify with `databaseFailureOf`).
 */
export function preparedRows<R>(db: Knex, sql: string, bindings: readonly unknown[]): Promise<R[]> {
  if (dialectOf(db) === 'mysql') return mysqlRows(db, sql, bindings);
  const idle = tracingActive() ? undefined : idleSqliteConnection(db);
  if (idle === undefined) return pooledRows(db, sql, bindings, false);
  try {
    return Promise.resolve(rowsNow<R>(db, idle, sql, bindings));
  } catch (err) {
    return Promise.reject(err);
  }
}

/** {@link preparedRows} on SQLite's idle connection, synchronously. */
function rowsNow<R>(db: Knex, connection: SqliteConnection, sql: string, bindings: readonly unknown[]): R[] {
  if (remainingMs() <= 0) throw connectionWaitPastDeadline();
  const client = db.client as KnexClientInternals;
  // knex's own conversion for better-sqlite3 (a Date as epoch ms, a boolean as 0 or 1).
  const values = client._formatBindings(bindings);
  emitQuery(db, connection, sql, values);
  return (connection.prepare(sql) as { all(values: unknown[]): R[] }).all(values);
}

/** The query object of a prepared SELECT, as knex's client and `_query` take it. */
function selectObject(sql: string, bindings: readonly unknown[]): Record<string, unknown> {
  return { sql, bindings: [...bindings], method: 'select' };
}

/**
 * Emits knex's `query` event for the prepared SELECT `sql` with `bindings` sent on `connection`
 * outside knex's query path, as knex's own does (with the connection's `__knexUid`), when someone
 * listens on `db` (nothing is built otherwise).
 */
function emitQuery(db: Knex, connection: unknown, sql: string, bindings: readonly unknown[]): void {
  if ((db as unknown as EventEmitter).listenerCount('query') > 0)
    (db.client as KnexClientInternals).emit('query', {
      __knexUid: (connection as { __knexUid?: string }).__knexUid,
      ...selectObject(sql, bindings),
    });
}

/**
 * {@link preparedRows} on MySQL/MariaDB: outside a transaction, on an idle pooled connection
 * taken at once (`takeIdleConnection` in ./bound-client.ts: no pool promises) and sent through
 * the bounded client's `_query` (the request's deadline, DB_STATEMENT_TIMEOUT_MS and the
 * statement span as for every statement), without knex's query path around it: one promise for
 * the statement and one for the rows, where the pool and knex's `query` made about 25 (issue 33).
 * It emits knex's `query` event when someone listens. A driver
 * error is the driver's own (knex would prefix the SQL with its bound values to the message; the
 * code, which `databaseFailureOf` reads, is the same). Otherwise (a transaction, or no idle
 * connection to take, or the request's deadline has passed) {@link pooledRows}.
 */
function mysqlRows<R>(db: Knex, sql: string, bindings: readonly unknown[]): Promise<R[]> {
  const client = db.client as Knex.Client & KnexClientInternals;
  const connection = db.isTransaction ? undefined : takeIdleConnection(client);
  if (connection === undefined) return pooledRows(db, sql, bindings, true);
  const obj = selectObject(sql, bindings);
  emitQuery(db, connection, sql, bindings);
  return rowsOn(
    () => client._query(connection, obj),
    () => releaseTakenConnection(client, connection),
    true,
  );
}

/**
 * {@link preparedRows} through the pool and knex's bounded query path (`mysql`: the dialect is
 * MySQL/MariaDB). Two `then`s, not an async function with three `await`s: under Node 20 every
 * promise runs the request scope's hook, and knex's `releaseConnection` (synchronous, answering
 * a resolved promise) needs no wait.
 */
function pooledRows<R>(db: Knex, sql: string, bindings: readonly unknown[], mysql: boolean): Promise<R[]> {
  const client = db.client as KnexClientInternals;
  return client.acquireConnection().then((connection) =>
    rowsOn<R>(
      () => client.query(connection, selectObject(sql, bindings)),
      () => void client.releaseConnection(connection),
      mysql,
    ),
  );
}

/**
 * Sends a statement on a lent connection (`send`), gives the connection back (`release`) once it
 * settled, or at once when it could not even be sent, and answers its rows (on MySQL the first
 * element of the driver's `[rows, fields]`).
 * @throws what `send` throws or rejects with.
 */
function rowsOn<R>(send: () => Promise<unknown>, release: () => void, mysql: boolean): Promise<R[]> {
  let querying: Promise<unknown>;
  try {
    querying = send();
  } catch (err) {
    release();
    return Promise.reject(err);
  }
  return querying.then(
    (done) => {
      release();
      const response = (done as { response: unknown }).response;
      return (mysql ? (response as [R[]])[0] : response) as R[];
    },
    (err: unknown) => {
      release();
      throw err;
    },
  );
}

/** The knex client methods {@link preparedRows} uses (public in knex's JavaScript, not in its types). */
interface KnexClientInternals {
  acquireConnection(): Promise<unknown>;
  releaseConnection(connection: unknown): Promise<void>;
  query(connection: unknown, obj: Record<string, unknown>): Promise<unknown>;
  /** The dialect's statement send (the bounded one of ./bound-client.ts), without knex's query path. */
  _query(connection: unknown, obj: Record<string, unknown>): Promise<unknown>;
  /** better-sqlite3's binding conversion (knex lib/dialects/better-sqlite3). */
  _formatBindings(bindings: readonly unknown[]): unknown[];
  emit(event: 'query', obj: Record<string, unknown>): boolean;
}
