import { Knex } from 'knex';
import { databaseFailureOf, retryingTransaction, transactionConflictOf } from '../../db/knex';
import { DatabaseTimeoutError } from '../../errors';
import { DeadlineExceededError, isDeadlineExceeded, remainingMs } from '../../lib/request-scope';
import { ReturnCode, ReturnCodeValue } from './return-codes';

/**
 * Where a rating or refund was when an infrastructure error hit it; decides the return code
 * (see {@link failureCode}): reading a recorded operationId (`replay`), locking the subscriber
 * (`lookup`), reading the catalogue (`rating`), moving money or writing the ledger (`charging`),
 * the COMMIT (`commit`).
 */
export type Stage = 'replay' | 'lookup' | 'rating' | 'charging' | 'commit';

/**
 * The return code of an operation that failed on infrastructure (docs/contract.md §4, §8): past
 * the deadline 5001 (rolled back); a COMMIT whose outcome is unknown 5000 (a retry with the same
 * operationId answers the recorded outcome); before charging, an unreachable database 2002 and a
 * timed-out one 2003; the catalogue 3002; the balance/ledger write 4000; anything else 5000.
 */
export function failureCode(err: unknown, stage: Stage, pastDeadline: boolean): ReturnCodeValue {
  if (outcomeUnknown(err)) return ReturnCode.UNKNOWN_ERROR;
  if (pastDeadline) return ReturnCode.INTERNAL_TIMEOUT;
  const failure = databaseFailureOf(err);
  if (stage === 'replay' || stage === 'lookup') {
    if (failure === 'timeout') return ReturnCode.SUBSCRIBER_REPOSITORY_TIMEOUT;
    if (failure === 'unreachable' || stage === 'lookup') return ReturnCode.SUBSCRIBER_REPOSITORY_ERROR;
    return ReturnCode.UNKNOWN_ERROR;
  }
  if (stage === 'rating') return ReturnCode.RATING_ERROR;
  // A certification conflict at COMMIT rolled back: the outcome is known (nothing charged).
  if (stage === 'charging' || (stage === 'commit' && (failure === undefined || transactionConflictOf(err))))
    return ReturnCode.CHARGING_ERROR;
  return ReturnCode.UNKNOWN_ERROR;
}

/** True for a COMMIT stopped by its bound or by the deadline: its outcome is unknown. */
function outcomeUnknown(err: unknown): boolean {
  return (
    (err instanceof DatabaseTimeoutError && err.commit) ||
    (err instanceof DeadlineExceededError && err.outcomeUnknown)
  );
}

/**
 * True when a failure counts as the deadline passing (answered 5001 unless its outcome is
 * unknown): the scope's deadline (RATING_TIMEOUT_MS) has passed, or a wait was stopped by the
 * deadline's own timer (which may fire a hair before the clock passes it).
 */
export function isPastDeadline(err: unknown): boolean {
  return remainingMs() < 0 || isDeadlineExceeded(err);
}

/** The stage each error thrown by a step hit first (the error itself travels on unchanged). */
const stageOfError = new WeakMap<object, Stage>();

/**
 * Runs one step of an operation's transaction; an error it throws is marked with `stage` and
 * rethrown as it is (a retry, the group commit and the failure mapping all see the original).
 */
export async function atStage<T>(stage: Stage, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (err) {
    if (typeof err === 'object' && err !== null && !stageOfError.has(err)) stageOfError.set(err, stage);
    throw err;
  }
}

/** How an operation's transaction ended: its attempt's value, or the error and the stage it hit. */
export type Attempted<T> = { ok: true; value: T } | { ok: false; err: unknown; stage: Stage };

/** What an attempt's steps produced, and the stage a failure of the COMMIT that follows counts as. */
export interface Committing<T> {
  value: T;
  commitStage: Stage;
}

/**
 * Runs `attempt` in a retrying transaction (a deadlock or certification conflict reruns it as a
 * whole, see retryingTransaction) and answers how it ended. A failure's stage is the one its step
 * marked (see {@link atStage}); an error no step threw came from the transaction around the
 * steps: the COMMIT (the stage the last attempt named for it) once that attempt's steps had all
 * finished, otherwise its BEGIN or the wait for a connection (`replay`: nothing of it ran).
 */
export async function attemptInTransaction<T>(
  db: Knex,
  attempt: (trx: Knex.Transaction) => Promise<Committing<T>>,
): Promise<Attempted<T>> {
  // Knex commits after the attempt returns, out of its sight: the one fact kept aside.
  let commitStage: Stage | undefined;
  try {
    const done = await retryingTransaction(db, async (trx) => {
      commitStage = undefined;
      const c = await attempt(trx);
      commitStage = c.commitStage;
      return c;
    });
    return { ok: true, value: done.value };
  } catch (err) {
    const marked = typeof err === 'object' && err !== null ? stageOfError.get(err) : undefined;
    return { ok: false, err, stage: marked ?? commitStage ?? 'replay' };
  }
}
