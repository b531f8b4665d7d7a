import { EventEmitter } from 'node:events';
import type { Knex } from 'knex';
import { disposeConnection, releaseTakenConnection, takeIdleConnection } from './bound-client';

// knex exposes the function that makes a knex instance of a client only by path.
const makeKnex = require('knex/lib/knex-builder/make-knex') as (client: Knex.Client) => Knex;

/** The part of knex's client that lends and takes back pooled connections. */
interface PoolingClient {
  acquireConnection(): Promise<object>;
  releaseConnection(connection: object): Promise<void>;
  /** The dialect's check the pool runs before lending a connection (false: destroyed instead). */
  validateConnection(connection: object): boolean;
}

/** A pooled connection's own knex instance and whether a transaction holds the connection now. */
interface OnConnection {
  trx: Knex.Transaction;
  lent: boolean;
}

/** The events knex's clients emit per statement, passed on to the root client as a knex transaction's client does. */
const STATEMENT_EVENTS = ['start', 'query', 'query-error', 'query-response'] as const;

/** Each pooled MySQL/MariaDB connection's knex instance, made the first time a transaction runs on it. */
const onConnections = new WeakMap<object, OnConnection>();

/**
 * The knex instance of `db` that runs every statement on `connection` (made once per pooled
 * connection): its client is `db`'s client (the bounded one of ./bound-client.ts, so the request
 * deadline and DB_STATEMENT_TIMEOUT_MS bound every statement) with `acquireConnection` answering
 * `connection` and `releaseConnection` doing nothing, and its statement events passed on to
 * `db`'s client (so `db.on('query', …)` sees them), as the client of a knex transaction does.
 * A statement sent through it while no transaction holds the connection is refused (it would run
 * on a connection the pool lent to someone else).
 */
function onConnection(db: Knex, connection: object): OnConnection {
  const found = onConnections.get(connection);
  if (found) return found;
  const root = db.client as Knex.Client;
  const client = Object.create(root) as Knex.Client & PoolingClient & { transacting: boolean };
  EventEmitter.call(client); // listeners of its own, not added to the root client's
  for (const event of STATEMENT_EVENTS) client.on(event, (...args: unknown[]) => root.emit(event, ...args));
  client.transacting = true;
  client.acquireConnection = () =>
    held.lent
      ? Promise.resolve(connection)
      : Promise.reject(new Error('statement sent on a transaction that has ended (an unawaited query?)'));
  client.releaseConnection = () => Promise.resolve();
  const held: OnConnection = { trx: makeKnex(client) as Knex.Transaction, lent: false };
  held.trx.isTransaction = true;
  onConnections.set(connection, held);
  return held;
}

/**
 * Runs `scope` in one transaction on one pooled MySQL/MariaDB connection of the root knex
 * instance `db`, the statements knex's own `db.transaction(scope, { isolationLevel })` sends
 * (`SET TRANSACTION ISOLATION LEVEL …` when `isolationLevel` is given, `BEGIN`, then `COMMIT`, or
 * `ROLLBACK` when `scope` throws) without knex's transaction object: knex builds one for every
 * transaction (a transaction, a client and a knex instance, about 200 closures, and its
 * properties redefined; 41 % of the bytes a MariaDB rating load promoted to V8's old
 * generation): the gateway's CPU per MariaDB rating is about 15 % lower without it
 * (docs/benchmarks.md "MariaDB transactions without knex's transaction object"). Here each
 * pooled connection has one knex instance for all its transactions ({@link onConnection}). The
 * connection is an idle one taken from the pool at once when there is one
 * (./bound-client.ts `takeIdleConnection`: none of the pool acquire's promises), else the pool's.
 *
 * `scope`'s `trx` runs queries, raw statements and nested transactions (savepoints) as a knex
 * transaction does; it has no `commit`, `rollback`, `savepoint`, `isCompleted` or
 * `executionPromise` (the outcome is `scope`'s: return to commit, throw to roll back). `scope`
 * must await every statement it starts: one still running after it returned is refused once the
 * connection is back in the pool.
 *
 * A ROLLBACK that fails, or a `SET TRANSACTION` whose BEGIN was not sent or failed (its
 * isolation level would apply to the connection's next transaction), marks the connection
 * disposed: the pool destroys it instead of lending it again. A COMMIT refused at the request's
 * deadline is rolled back by the statement bound itself (./bound-client.ts
 * `rollBackRefusedCommit`), as for knex's own transactions.
 * @throws `scope`'s own error (after the ROLLBACK); the BEGIN's or COMMIT's error (a COMMIT
 *   refused at the deadline: DeadlineExceededError `statement`, after its ROLLBACK; past its
 *   bound: DeadlineExceededError `commit` with `outcomeUnknown`, or DatabaseTimeoutError,
 *   ./bound-client.ts); the pool's acquire error (DeadlineExceededError `connection`, tarn's
 *   timeout, a failed connect).
 */
export async function connectionTransaction<T>(
  db: Knex,
  scope: (trx: Knex.Transaction) => Promise<T>,
  isolationLevel?: Knex.IsolationLevels,
): Promise<T> {
  const client = db.client as unknown as PoolingClient;
  const connection = takeIdleConnection(db.client) ?? (await client.acquireConnection());
  const held = onConnection(db, connection);
  held.lent = true;
  try {
    const trx = held.trx;
    try {
      if (isolationLevel !== undefined) await trx.raw(`SET TRANSACTION ISOLATION LEVEL ${isolationLevel}`);
      await trx.raw('BEGIN');
    } catch (err) {
      if (isolationLevel !== undefined) disposeConnection(client, connection, err);
      throw err;
    }
    let value: T;
    try {
      value = await scope(trx);
    } catch (err) {
      // A ROLLBACK is always sent, past the request's deadline too (./bound-client.ts).
      try {
        await trx.raw('ROLLBACK');
      } catch (rollbackFailed) {
        disposeConnection(client, connection, rollbackFailed);
      }
      throw err;
    }
    await trx.raw('COMMIT');
    return value;
  } finally {
    held.lent = false;
    releaseTakenConnection(db.client, connection);
  }
}
