/**
 * Source of the current time, injectable so that tests control expiry (CONTRACT §3).
 * `nowMs` returns epoch milliseconds.
 */
export interface Clock {
  nowMs(): number;
}

/** The wall clock. */
export const systemClock: Clock = { nowMs: () => Date.now() };

/** Current time in whole epoch seconds. */
export function epochSeconds(clock: Clock): number {
  return Math.floor(clock.nowMs() / 1000);
}
