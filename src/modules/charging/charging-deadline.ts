import { performance } from 'node:perf_hooks';
import { isDeadlineStop } from '../../errors';
import { currentScope, remainingMs, runInRequestScope, withDeadline } from '../../lib/request-scope';
import { withTimeout } from '../../lib/wait';

/**
 * Every deadline rule of charging in one place (docs/contract.md §4, §8): RATING_TIMEOUT_MS
 * counts from the request's arrival; an operation past it commits nothing and answers 5001; its
 * charging CDR is written under a budget of its own. Times are `performance.now()` milliseconds.
 */

/** Thrown by {@link checkDeadline} to roll the operation's transaction back; never leaves charging. */
class DeadlineExceeded extends Error {}

/**
 * Runs `fn` with the request's deadline tightened to at most `budgetMs` (RATING_TIMEOUT_MS)
 * after its arrival; outside a request the budget starts now.
 */
export function withRatingDeadline<T>(budgetMs: number, fn: () => T): T {
  return withDeadline(budgetMs, fn);
}

/** The running operation's deadline (call inside {@link withRatingDeadline}). */
export function operationDeadline(): number {
  return currentScope()!.deadlineMs;
}

/** Milliseconds left until `deadline` (negative once it passed). */
export function msUntil(deadline: number): number {
  return deadline - performance.now();
}

/** @throws DeadlineExceeded (see {@link isDeadlineExceeded}) once `deadline` has passed. */
export function checkDeadline(deadline: number): void {
  if (performance.now() > deadline) throw new DeadlineExceeded();
}

/** True for the error {@link checkDeadline} throws. */
export function isDeadlineExceeded(err: unknown): boolean {
  return err instanceof DeadlineExceeded;
}

/**
 * True when a failure counts as the deadline passing: the clock is past `deadline`, or a
 * statement was stopped by the deadline's own timer (which may fire a hair before the clock passes it).
 */
export function isPastDeadline(err: unknown, deadline: number): boolean {
  return performance.now() > deadline || isDeadlineStop(err);
}

/**
 * Starts `write` under a budget of its own (`budgetMs`: the database may be why the operation
 * failed) and waits for it only until the request's deadline, so that it never makes the answer
 * late; the write goes on after that. `write` must not reject (log its failure itself).
 */
export async function writeBeforeAnswer(budgetMs: number, write: () => Promise<void>): Promise<void> {
  const left = remainingMs();
  const written = runInRequestScope(budgetMs, write);
  if (left === Infinity) await written;
  else if (left > 0) await withTimeout(written, left).catch(() => undefined);
}
