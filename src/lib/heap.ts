import v8 from 'node:v8';

/** How the gateway sizes V8's heap (HEAP_MODE). */
export type HeapMode = 'balanced' | 'compact' | 'v8';

/** HEAP_MODE when unset (see {@link HEAP_MODE_FLAGS}). */
export const DEFAULT_HEAP_MODE: HeapMode = 'balanced';

/** The values of HEAP_MODE. */
export const HEAP_MODES: readonly HeapMode[] = ['balanced', 'compact', 'v8'];

/**
 * The flag every heap mode sets (measured on ratings): V8 learns per
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
 * The V8 flags of each heap mode (measured: RSS under steady load and after the
 * location list). V8 lets the old generation grow to a multiple of the live data before the next
 * full collection; on a machine with a large heap limit it picks up to 4×, so a garbage-making
 * load (ratings, the 10,000-location list) ran the process to 216-262 MB of RSS for 20-46 MB
 * of live data.
 * - `balanced` (the default): the old generation may grow to 40 % above the live data
 *   (`--heap-growing-percent=40`). With the young generation `npm start` gives (package.json
 *   `start`: `node --max-semi-space-size=8`, two semi-spaces of up to 8 MiB instead of V8's 16;
 *   V8 takes that flag only when the process starts), RSS under a 32-connection load was
 *   149-156 MB with ratings and 141-148 MB with introspection, and 159-163 MB after 32
 *   location lists, with 4 MiB semi-spaces (8 MiB since 2026-11-28: 40 % less promoted to the old
 *   generation under a paced MariaDB rating load, for up to 8 MiB more young generation;
 *   docs/benchmarks.md "The young generation's size and the rating tail"); no req/s difference
 *   from `v8` stood out of the ±30 % run-to-run noise (docs/benchmarks.md "Heap sizing").
 * - `v8`: V8's own sizing (up to 4×): RSS under load 180-250 MB, after the location list
 *   190-260 MB.
 * - `compact`: 20 % (`--heap-growing-percent=20`): RSS under load about 140 MB, but
 *   `npm run bench` measured 5-35 % less throughput and a p99 at half of peak of 36-48 ms
 *   instead of single digits (more frequent full collections): for memory-bound deployments
 *   only (docs/benchmarks.md).
 * No mode caps the heap: a burst of large answers still gets the memory it needs (V8's limit
 * stays the one node picks, or `--max-old-space-size`). The flag is read by V8 at each
 * collection, so setting it once the process runs takes effect.
 *
 * Every mode also turns off allocation-site pretenuring ({@link PRETENURING_FLAGS}).
 */
export const HEAP_MODE_FLAGS: Readonly<Record<HeapMode, readonly string[]>> = {
  balanced: [...PRETENURING_FLAGS, '--heap-growing-percent=40'],
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
