import type { TransactionConflict } from './failure';

/**
 * What the database layer reports as it works, for `/metrics`. The layer itself holds no metric:
 * src/metrics.ts listens ({@link onDatabaseEvents}) and counts. Events are process-wide: every
 * knex instance of the process reports to every listener.
 */
export interface DatabaseEvents {
  /** A transaction rolled back by a write conflict (`reason`) is about to run again as a whole. */
  transactionRetried(reason: TransactionConflict): void;
  /** One SQLite COMMIT made `transactions` write transactions durable (group commit; at least 1). */
  groupCommitted(transactions: number): void;
}

const listeners = new Set<Partial<DatabaseEvents>>();

/**
 * Calls `listener`'s methods for every later event of the process (listeners must not throw).
 * @returns a function that stops the calls.
 */
export function onDatabaseEvents(listener: Partial<DatabaseEvents>): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Reports an event to every listener (the database layer's side of {@link onDatabaseEvents}). */
export const databaseEvents: DatabaseEvents = {
  transactionRetried(reason) {
    for (const l of listeners) l.transactionRetried?.(reason);
  },
  groupCommitted(transactions) {
    for (const l of listeners) l.groupCommitted?.(transactions);
  },
};
