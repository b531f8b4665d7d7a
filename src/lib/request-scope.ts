import { AsyncLocalStorage } from 'node:async_hooks';
import { performance } from 'node:perf_hooks';
import type { RequestLogFields } from '../logger';

/**
 * What every wait inside one request can see of that request, so that no wait outlives its deadline:
 * when it arrived and when it must be answered, both in `performance.now()` milliseconds, and
 * the fields its log lines carry.
 */
export interface RequestScope {
  /** Arrival time, ms on the `performance.now()` clock. */
  arrivalMs: number;
  /**
   * Time by which every database statement of the request must have finished, same clock;
   * Infinity while no deadline is set (a scope opened for its log fields only).
   */
  deadlineMs: number;
  /** Fields every log line written meanwhile carries (see `withRequestLogFields` in src/logger.ts). */
  log?: RequestLogFields;
}

// The one AsyncLocalStorage of a request: deadline and log fields share it, so
// every promise created while serving a request propagates one store, not one per concern.
const storage = new AsyncLocalStorage<RequestScope>();

/**
 * Runs `fn` with a request scope whose deadline is `budgetMs` after `arrivalMs` (default: now).
 * Everything `fn` awaits (database statements included) sees the scope. Log fields of an
 * enclosing scope carry over.
 */
export function runInRequestScope<T>(budgetMs: number, fn: () => T, arrivalMs = performance.now()): T {
  return storage.run({ arrivalMs, deadlineMs: arrivalMs + budgetMs, log: storage.getStore()?.log }, fn);
}

/**
 * Runs `fn` with `log` as the request's log fields in a scope without a deadline (an enclosing
 * scope's arrival and deadline carry over). Used by `withRequestLogFields`.
 */
export function runWithLogFields<T>(log: RequestLogFields, fn: () => T): T {
  const outer = storage.getStore();
  return storage.run(
    { arrivalMs: outer?.arrivalMs ?? performance.now(), deadlineMs: outer?.deadlineMs ?? Infinity, log },
    fn,
  );
}

/**
 * Sets the running request's deadline to `budgetMs` after its arrival (the
 * request's one scope, opened for its log fields, gets its deadline once the request is admitted,
 * instead of a second scope). The scope object belongs to this request alone, so everything the
 * request awaits from now on sees the deadline. Outside any request it does nothing and returns
 * false; the caller then opens a scope with {@link runInRequestScope}.
 */
export function setRequestDeadline(budgetMs: number): boolean {
  const scope = storage.getStore();
  if (!scope) return false;
  scope.deadlineMs = scope.arrivalMs + budgetMs;
  return true;
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
  return storage.run({ arrivalMs, deadlineMs, log: outer?.log }, fn);
}

/**
 * Runs `fn` outside every request scope: what it starts has no deadline and no request's log
 * fields (e.g. the shared COMMIT of a group of transactions, src/db/group-commit.ts).
 */
export function runOutsideRequestScope<T>(fn: () => T): T {
  return storage.exit(fn);
}

/**
 * Waits for what `start` begins, but no longer than the current request's deadline: when the
 * deadline passes first, rejects with `late()` and hands the still-pending promise to `onLate`
 * (e.g. to give back a connection that arrives afterwards). With the deadline already passed,
 * `start` is not called; outside a request (or without a deadline) this is `start()` itself.
 */
export function beforeDeadline<T>(
  start: () => Promise<T>,
  late: () => Error,
  onLate: (pending: Promise<T>) => void = () => undefined,
): Promise<T> {
  const left = remainingMs();
  if (left === Infinity) return start();
  if (left <= 0) return Promise.reject(late());
  const pending = start();
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(late());
      onLate(pending);
    }, left);
    pending.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (err: unknown) => {
        clearTimeout(timer);
        reject(err);
      },
    );
  });
}

/** The running request's scope, or undefined outside a request (CLI, start-up, tests). */
export function currentScope(): RequestScope | undefined {
  return storage.getStore();
}

/** Milliseconds left before the current request's deadline (Infinity outside a request or without one). */
export function remainingMs(): number {
  const scope = storage.getStore();
  return scope ? scope.deadlineMs - performance.now() : Infinity;
}
