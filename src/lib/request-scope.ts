import { AsyncLocalStorage } from 'node:async_hooks';
import { performance } from 'node:perf_hooks';

/**
 * What every wait inside one request can see of that request (issue 10 "Deadlines everywhere"):
 * when it arrived and when it must be answered, both in `performance.now()` milliseconds.
 */
export interface RequestScope {
  /** Arrival time, ms on the `performance.now()` clock. */
  arrivalMs: number;
  /** Time by which every database statement of the request must have finished, same clock. */
  deadlineMs: number;
}

const storage = new AsyncLocalStorage<RequestScope>();

/**
 * Runs `fn` with a request scope whose deadline is `budgetMs` after `arrivalMs` (default: now).
 * Everything `fn` awaits (database statements included) sees the scope.
 */
export function runInRequestScope<T>(budgetMs: number, fn: () => T, arrivalMs = performance.now()): T {
  return storage.run({ arrivalMs, deadlineMs: arrivalMs + budgetMs }, fn);
}

/**
 * Runs `fn` with the current scope's deadline tightened to at most `arrivalMs + budgetMs`
 * (e.g. RATING_TIMEOUT_MS for a rating inside a longer request budget). Outside any request
 * the scope starts now.
 */
export function withDeadline<T>(budgetMs: number, fn: () => T): T {
  const outer = storage.getStore();
  const arrivalMs = outer?.arrivalMs ?? performance.now();
  const deadlineMs = Math.min(outer?.deadlineMs ?? Infinity, arrivalMs + budgetMs);
  return storage.run({ arrivalMs, deadlineMs }, fn);
}

/** The running request's scope, or undefined outside a request (CLI, start-up, tests). */
export function currentScope(): RequestScope | undefined {
  return storage.getStore();
}

/** Milliseconds left before the current request's deadline (Infinity outside a request). */
export function remainingMs(): number {
  const scope = storage.getStore();
  return scope ? scope.deadlineMs - performance.now() : Infinity;
}
