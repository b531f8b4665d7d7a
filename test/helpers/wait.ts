/**
 * How tests wait. A test waits for what it expects: {@link waitFor} polls an observable condition
 * until it holds or a deadline passes, and fails naming what it waited for. Only two kinds of
 * fixed wait remain, each named for what it is:
 *
 * - {@link quietPeriod}: a test that proves something does NOT happen (no second delivery, no
 *   second charge) waits a fixed time, states why that time is long enough, and where it can
 *   first waits for a positive marker that the system got past the point where it would happen;
 * - {@link simulatedDelay}: time passing as part of the scenario itself (a deliberately slow
 *   statement, requests arriving spread over time, a fault injected at a set moment).
 */

/** Options of {@link waitFor}. */
export interface WaitForOptions {
  /** What is waited for, as the failure message names it ("the subscription to be registered"). */
  what: string;
  /** How long to poll before failing, ms (default 10 000). */
  timeoutMs?: number;
  /** Pause between two checks, ms (default 20). */
  intervalMs?: number;
  /** Describes the state seen at the deadline, appended to the failure message. */
  detail?: () => string | Promise<string>;
}

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Checks `condition` at once and then every `intervalMs` ms until it returns a truthy value, and
 * resolves with that value. Past `timeoutMs` (counted from the call) it rejects with
 * `timed out after <timeoutMs> ms waiting for <what>` (plus `detail()`). An error thrown by
 * `condition` rejects at once: a condition that cannot be evaluated is not "not yet".
 */
export async function waitFor<T>(
  condition: () => T | Promise<T>,
  { what, timeoutMs = 10_000, intervalMs = 20, detail }: WaitForOptions,
): Promise<NonNullable<T>> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = await condition();
    if (value) return value as NonNullable<T>;
    if (performance.now() > deadline) {
      const seen = detail ? ` (${await detail()})` : '';
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${seen}`);
    }
    await pause(intervalMs);
  }
}

/**
 * Waits `ms` ms during which the test expects nothing to happen. `why` says why `ms` is long
 * enough for the unwanted thing to have shown up had it happened (e.g. "the feed polls every
 * 50 ms: 6 polls"); it documents the call and is not used at run time.
 */
export function quietPeriod(ms: number, why: string): Promise<void> {
  void why;
  return pause(ms);
}

/**
 * `ms` ms of time passing as part of the scenario under test (a slow statement, the spacing of
 * arrivals, the moment a fault is injected), not a wait for a result. `what` names it.
 */
export function simulatedDelay(ms: number, what: string): Promise<void> {
  void what;
  return pause(ms);
}
