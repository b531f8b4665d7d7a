/**
 * The gateway process (CONTRACT §8): `npm start` runs `node dist/src/main.js`, which serves
 * until SIGTERM or SIGINT (src/server.ts has the steps: config → database → app → listen →
 * graceful shutdown).
 *
 * Start-up time (issue 16): the build also bundles src/server.ts and everything it loads into
 * `dist/gateway.js` (scripts/bundle.js); when that bundle is there and not older than the
 * compiled tree, the server runs from it, compiled from V8's code cache `dist/gateway.js.cache`
 * (written after the first start that finds none, and by the build). Without the bundle (e.g.
 * after a plain `tsc`) the same code runs from the compiled modules.
 */
import path from 'node:path';
import { loadBundle } from './lib/bundle';

if (require.main === module) {
  const dist = path.join(__dirname, '..');
  const bundle = loadBundle<typeof import('./server')>(
    path.join(dist, 'gateway.js'),
    path.join(dist, '.tsbuildinfo'),
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
