/**
 * The gateway process (docs/contract.md §8): `npm start` runs `env MALLOC_MMAP_THRESHOLD_=4194304
 * node --max-semi-space-size=8 dist/src/main.js` (glibc's fixed mmap threshold: every scrypt
 * verification's 16 MiB goes back to the system when it ends, docs/operations.md "Start-up, the
 * bundle and the heap"; the young generation's cap, see src/lib/heap.ts), which serves
 * until SIGTERM or SIGINT (src/server.ts has the steps: config → database → app → listen →
 * graceful shutdown).
 *
 * Start-up time: the build also bundles src/server.ts and everything it loads into
 * `dist/gateway.js` (scripts/bundle.js); when that bundle is there and not older than the
 * compiled tree, the server runs from it, compiled from V8's code cache
 * `dist/gateway.js.<hash>.cache` (written after the first start that finds none, and by the build). Without the bundle (e.g.
 * after a plain `tsc`) the same code runs from the compiled modules.
 *
 * Tracing: when the OTEL_* variables ask for traces, the OpenTelemetry SDK starts here, before
 * the bundle (or the compiled server) loads `node:http`, so that its HTTP server
 * instrumentation is in place (src/lib/tracing.ts; docs/platform.md "Tracing").
 */
import path from 'node:path';
import { loadBundle } from './lib/bundle';
import { DEFAULT_HEAP_MODE, HEAP_MODES, HeapMode, applyHeapMode } from './lib/heap';
import { startTracing } from './lib/tracing';

if (require.main === module) {
  // V8 refuses a code cache made under other V8 flags, and the cache is made after start-up:
  // HEAP_MODE's flags are set before the bundle is compiled, not only by runGateway (which sets
  // the same ones again once the configuration is validated; an invalid HEAP_MODE sets nothing
  // here and stops start-up there).
  const heapMode = process.env.HEAP_MODE || DEFAULT_HEAP_MODE;
  const flags = (HEAP_MODES as readonly string[]).includes(heapMode)
    ? applyHeapMode(heapMode as HeapMode)
    : [];
  startTracing();
  const dist = path.join(__dirname, '..');
  const bundle = loadBundle<typeof import('./server')>(
    path.join(dist, 'gateway.js'),
    path.join(dist, '.tsbuildinfo'),
    flags,
  );
  const server = bundle?.exports ?? (require('./server') as typeof import('./server'));
  server.main().then(
    () => setImmediate(() => bundle?.saveCodeCache()),
    (err: unknown) => {
      process.stderr.write(`fatal: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    },
  );
}
