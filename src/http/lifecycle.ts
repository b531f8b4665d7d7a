import type { Context } from 'koa';

/**
 * Where the gateway is in its life; the phase only moves forward (serving → draining → stopped).
 * - `serving`: answering requests.
 * - `draining`: graceful shutdown began; every response carries `connection: close`, and `idle`
 *   (left by a waiting {@link Lifecycle.drain}) is called when the last request in flight ends.
 * - `stopped`: the background work, the outbox relay and Apollo are stopped.
 */
export type LifecycleState =
  | { readonly phase: 'serving' }
  | { readonly phase: 'draining'; idle: (() => void) | undefined }
  | { readonly phase: 'stopped' };

/**
 * The gateway's lifecycle as one object: the phase ({@link LifecycleState}) and the requests in
 * flight, which a drain waits for (docs/contract.md §8: SIGTERM drains in-flight requests).
 */
export class Lifecycle {
  state: LifecycleState = { phase: 'serving' };
  /** Requests being served right now (probes included). */
  inflight = 0;

  /** One listener function for every response (no closure per request). */
  private readonly responseClosed = (): void => {
    if (--this.inflight === 0 && this.state.phase === 'draining') this.state.idle?.();
  };

  /**
   * Counts `ctx` in flight until its response is written out (or the client went away), so a
   * drain never cuts a response that Koa is still sending; once draining, the response carries
   * `connection: close`.
   */
  track(ctx: Context): void {
    this.inflight++;
    ctx.res.on('close', this.responseClosed);
    if (this.state.phase !== 'serving') ctx.set('connection', 'close');
  }

  /**
   * Enters `draining`; resolves true once no request is in flight, or false after `timeoutMs`
   * (milliseconds).
   */
  drain(timeoutMs: number): Promise<boolean> {
    const draining =
      this.state.phase === 'draining' ? this.state : (this.state = { phase: 'draining', idle: undefined });
    if (this.inflight === 0) return Promise.resolve(true);
    return new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), timeoutMs);
      draining.idle = () => {
        clearTimeout(timer);
        resolve(true);
      };
    });
  }

  /** Enters `stopped`. */
  stopped(): void {
    this.state = { phase: 'stopped' };
  }
}

/**
 * `run` called at most once: every call returns the promise of the first (an idempotent stop).
 */
export function once<T>(run: () => Promise<T>): () => Promise<T> {
  let started: Promise<T> | undefined;
  return () => (started ??= run());
}
