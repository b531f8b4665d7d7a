/**
 * Bounded waits shared by the broker clients (the event relay and the renewal consumer), the
 * probes and the metrics: every wait has a deadline.
 */

/**
 * Resolves or rejects like `p`, or rejects after `ms` milliseconds with an Error naming `what`
 * (`<what>: no answer within <ms> ms`). `p` itself is not cancelled; the timer is cleared either way.
 */
export function withTimeout<T>(p: Promise<T>, ms: number, what = 'operation'): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    p,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/**
 * Backoff before the next attempt after `failures` (≥ 1) failures in a row, ms: uniform in
 * [minMs/2, min(maxMs, minMs·2^(failures-1))], so that many clients retrying together spread out.
 */
export function jitteredBackoffMs(failures: number, minMs: number, maxMs: number): number {
  const cap = Math.min(maxMs, minMs * 2 ** Math.min(30, Math.max(0, failures - 1)));
  return minMs / 2 + Math.random() * (cap - minMs / 2);
}
