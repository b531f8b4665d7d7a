import v8 from 'node:v8';

/** How the gateway sizes V8's heap (HEAP_MODE). */
export type HeapMode = 'compact' | 'v8';

/** HEAP_MODE when unset (see {@link HEAP_MODE_FLAGS}). */
export const DEFAULT_HEAP_MODE: HeapMode = 'v8';

/** The values of HEAP_MODE. */
export const HEAP_MODES: readonly HeapMode[] = ['compact', 'v8'];

/**
 * The flag both heap modes set (issue 16 "Speed", measured on ratings): V8 learns per
 * allocation site that its objects outlive a young-generation collection and then allocates them
 * straight in the old generation. Under a rating load (requests queued on the one SQLite
 * connection for tens of milliseconds) it did so for the request objects, and everything they
 * pointed to survived every scavenge too: 1.5 MB promoted per scavenge, 7-9 ms per scavenge.
 * Without pretenuring: 47 KB, 2.7-3 ms, and 14-28 % more ratings per second in alternating runs;
 * token introspection the same (it promotes nothing either way). Peak RSS is the same. Set before
 * the app loads, so no site has been pretenured yet.
 */
export const PRETENURING_FLAGS: readonly string[] = ['--no-allocation-site-pretenuring'];

/**
 * The V8 flags of each heap mode (issue 16 "Speed": RSS under steady load):
 * - `v8` (the default): V8's own sizing (the old generation may grow up to 4× the live
 *   data, the young generation to 2 × 16 MiB): RSS under load 180-250 MB.
 * - `compact`: the old generation may grow to 20 % above the live data before the next full
 *   collection (`--heap-growing-percent=20`). With the young generation capped at process start
 *   (`node --max-semi-space-size=4 dist/src/main.js`; V8 takes that flag only then), RSS under
 *   load is about 140 MB, but `npm run bench` measured 5-35 % less throughput and a p99 at half
 *   of peak of 36-48 ms instead of single digits (more frequent full collections): for
 *   memory-bound deployments only (bench/README.md).
 * The flag is read by V8 at each collection, so setting it once the process runs takes effect.
 *
 * Both modes also turn off allocation-site pretenuring ({@link PRETENURING_FLAGS}).
 */
export const HEAP_MODE_FLAGS: Readonly<Record<HeapMode, readonly string[]>> = {
  compact: [...PRETENURING_FLAGS, '--heap-growing-percent=20'],
  v8: [...PRETENURING_FLAGS],
};

/**
 * Applies `mode`'s V8 flags to the running process (once at start-up, before the app loads).
 * Returns the flags applied.
 */
export function applyHeapMode(mode: HeapMode): readonly string[] {
  const flags = HEAP_MODE_FLAGS[mode];
  for (const flag of flags) v8.setFlagsFromString(flag);
  return flags;
}
