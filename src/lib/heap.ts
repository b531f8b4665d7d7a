import v8 from 'node:v8';

/** How the gateway sizes V8's heap (HEAP_MODE). */
export type HeapMode = 'compact' | 'v8';

/** The values of HEAP_MODE. */
export const HEAP_MODES: readonly HeapMode[] = ['compact', 'v8'];

/**
 * The V8 flags of each heap mode (issue 16 "Speed": RSS under steady load):
 * - `v8` (the default): none, V8's own sizing (the old generation may grow up to 4× the live
 *   data, the young generation to 2 × 16 MiB): RSS under load 180-250 MB.
 * - `compact`: the old generation may grow to 20 % above the live data before the next full
 *   collection (`--heap-growing-percent=20`). With the young generation capped at process start
 *   (`node --max-semi-space-size=4 dist/src/main.js`; V8 takes that flag only then), RSS under
 *   load is about 140 MB, but `npm run bench` measured 5-35 % less throughput and a p99 at half
 *   of peak of 36-48 ms instead of single digits (more frequent full collections): for
 *   memory-bound deployments only (bench/README.md).
 * The flag is read by V8 at each collection, so setting it once the process runs takes effect.
 */
export const HEAP_MODE_FLAGS: Readonly<Record<HeapMode, readonly string[]>> = {
  compact: ['--heap-growing-percent=20'],
  v8: [],
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
