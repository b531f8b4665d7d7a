import v8 from 'node:v8';

/** How the gateway sizes V8's heap (HEAP_MODE). */
export type HeapMode = 'compact' | 'v8';

/** The values of HEAP_MODE. */
export const HEAP_MODES: readonly HeapMode[] = ['compact', 'v8'];

/**
 * The V8 flags of each heap mode (issue 16 "Speed": RSS under steady load):
 * - `compact` (the default): the old generation may grow to 20 % above the live data before the
 *   next full collection (`--heap-growing-percent=20`; V8's own heuristic lets it grow up to
 *   4×). `npm start` also caps the young generation (`node --max-semi-space-size=4`, a flag V8
 *   takes only at process start; V8's default lets it grow to 2 × 16 MiB). Measured with
 *   `npm run bench`: RSS under load about 140 MB instead of 180-250 MB, for a few per cent of
 *   throughput (bench/README.md).
 * - `v8`: none, V8's own sizing.
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
