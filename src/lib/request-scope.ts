import { AsyncLocalStorage } from 'node:async_hooks';
import { performance } from 'node:perf_hooks';
import { errorChain } from '../errors';
import type { RequestLogFields } from '../logger';

/*
 * The one deadline of a request (docs/contract.md §8 "When things fail"). The HTTP edge sets it
 * on the request's scope when the request is admitted (src/http/deadline.ts: its budget by path,
 * counted from arrival); a rating or refund tightens it to RATING_TIMEOUT_MS ({@link withDeadline}).
 * Everything that waits reads it from here: database statements and pool waits
 * (src/db/bound-client.ts), the SQLite transaction group (src/db/group-commit.ts), the keyed
 * bulkheads (src/lib/bulkhead.ts), charging's checks between its steps, GraphQL's checkpoints
 * (src/graphql/limits.ts) and the retry backoff (src/db/retry.ts). Whichever finds it passed
 * throws {@link DeadlineExceededError}; each transport presents that error its own way.
 */

/**
 * What every wait inside one request can see of that request, so that no wait outlives its deadline:
 * when it arrived and when it must be answered, both in `performance.now()` milliseconds, and
 * the fields its log lines carry.
 */
export interface RequestScope {
  /** Arrival time, ms on the `performance.now()` clock. */
  arrivalMs: number;
  /**
   * The request's one deadline: time by which every wait of the request (database statements,
   * pool and bulkhead waits, checks between steps) must have ended, same clock;
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

/**
 * Where a {@link DeadlineExceededError} was raised: waiting for a pooled connection or a turn in
 * the SQLite transaction group (`connection`), at or during a statement (`statement`), during a
 * COMMIT (`commit`), waiting for a keyed bulkhead's slot (`bulkhead`), between a rating's or
 * refund's steps (`operation`), at a GraphQL checkpoint (`graphql`).
 */
export type DeadlineWhere = 'connection' | 'statement' | 'commit' | 'bulkhead' | 'operation' | 'graphql';

/** What a {@link DeadlineExceededError} may carry besides its place. */
export interface DeadlineExceededOptions extends ErrorOptions {
  /** Message of the error (default: a sentence naming `where`). */
  message?: string;
  /** True when it stopped a COMMIT, whose outcome is therefore unknown (`where` is `commit`). */
  outcomeUnknown?: boolean;
}

/**
 * The request's deadline passed (the one error for it): whatever was waiting stopped, and nothing
 * after it runs. `outcomeUnknown` is true when it stopped a COMMIT (the writes may be durable; a
 * retry with the same operationId or idempotency key answers them). How clients see it:
 * REST 503 with `retry-after` (ServiceUnavailableError `timeout`, or `deadline` when it stopped
 * authentication), a rating's returnCode 5001 (5000 with `outcomeUnknown`, 2003 at the bulkhead),
 * on `/graphql` one `TIMEOUT` error with HTTP 504 (src/graphql/limits.ts).
 */
export class DeadlineExceededError extends Error {
  override name = 'DeadlineExceededError';
  /** True when it stopped a COMMIT whose outcome is therefore unknown. */
  readonly outcomeUnknown: boolean;

  constructor(
    readonly where: DeadlineWhere,
    { message, outcomeUnknown = false, ...options }: DeadlineExceededOptions = {},
  ) {
    super(message ?? `request deadline passed (${where})`, options);
    this.outcomeUnknown = outcomeUnknown;
  }
}

/** The {@link DeadlineExceededError} in `err` or what it wraps (its errorChain), if any. */
export function deadlineExceededOf(err: unknown): DeadlineExceededError | undefined {
  for (const e of errorChain(err)) if (e instanceof DeadlineExceededError) return e;
  return undefined;
}

/** True when `err` (or what it wraps) is a {@link DeadlineExceededError}. */
export function isDeadlineExceeded(err: unknown): boolean {
  return deadlineExceededOf(err) !== undefined;
}

/**
 * Stops here once the current request's deadline has passed (never outside a request or
 * without a deadline).
 * @throws DeadlineExceededError with `where` once the deadline has passed.
 */
export function assertBeforeDeadline(where: DeadlineWhere, message?: string): void {
  if (remainingMs() < 0) throw new DeadlineExceededError(where, { message });
}
