import { Knex } from 'knex';
import { dialectOf } from './dialect';
import { PREPARED } from './mysql';

/**
 * Runs one hand-written SELECT as a prepared statement (the per-request
 * queries of authentication, token introspection and rating lookup, which knex would otherwise
 * build, compile and — on SQLite — prepare anew on every request).
 *
 * `sql` uses `?` placeholders and identifiers that need no quoting on either dialect. On SQLite
 * the connection's statement cache (see `cacheStatements` in ./sqlite.ts) prepares it once; on MySQL/MariaDB it goes
 * out through mysql2 `execute`, whose per-connection cache prepares it once per connection.
 * The statement still runs through the knex client's bounded `_query` (see `boundClient` in
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
export async function preparedRows<R>(db: Knex, sql: string, bindings: readonly unknown[]): Promise<R[]> {
  const client = db.client as KnexClientInternals;
  const connection = await client.acquireConnection();
  try {
    const obj = await client.query(connection, {
      sql,
      bindings: [...bindings],
      method: 'select',
      options: { [PREPARED]: true },
    });
    const response = (obj as { response: unknown }).response;
    return (dialectOf(db) === 'mysql' ? (response as [R[]])[0] : response) as R[];
  } finally {
    await client.releaseConnection(connection);
  }
}

/** The knex client methods {@link preparedRows} uses (public in knex's JavaScript, not in its types). */
interface KnexClientInternals {
  acquireConnection(): Promise<unknown>;
  releaseConnection(connection: unknown): Promise<void>;
  query(connection: unknown, obj: Record<string, unknown>): Promise<unknown>;
}
