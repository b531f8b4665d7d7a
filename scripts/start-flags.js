/*
 * The environment and node flags of package.json's `start` script
 * (`exec env NAME=value… node <flags> dist/src/main.js`): what `npm start` gives the gateway
 * (`MALLOC_MMAP_THRESHOLD_`, see docs/operations.md "Start-up, the bundle and the heap";
 * `--max-semi-space-size`, see src/lib/heap.ts). The build primes V8's code cache under the flags
 * (scripts/bundle.js) and the bench starts the gateway and its baselines with both
 * (bench/harness.js), so both see the process operators run.
 */
'use strict';
const path = require('node:path');

/** `exec` (optional), `env NAME=value…` (optional), `node`, `--flag…`, the entry point. */
const START =
  /^(?:exec\s+)?(?:env((?:\s+[A-Z_][A-Z0-9_]*=\S*)+)\s+)?node((?:\s+--\S+)*)\s+dist\/src\/main\.js$/;

/**
 * The start script split into `{ env, flags }`: `env` the variables it sets (name → value,
 * e.g. `{ MALLOC_MMAP_THRESHOLD_: '4194304' }`), `flags` the node flags (e.g.
 * `['--max-semi-space-size=8']`).
 * @throws when the start script does not have the form `[exec] [env NAME=value…] node [--flag…] dist/src/main.js`.
 */
function startScript() {
  const start = require(path.join(__dirname, '..', 'package.json')).scripts.start;
  const m = START.exec(start.trim());
  if (!m) throw new Error(`package.json start script not understood: ${start}`);
  const words = (s) => (s ?? '').split(/\s+/).filter(Boolean);
  const env = Object.fromEntries(
    words(m[1]).map((a) => [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)]),
  );
  return { env, flags: words(m[2]) };
}

/** The node flags, e.g. `['--max-semi-space-size=8']` (none: `[]`). @throws as startScript. */
const startFlags = () => startScript().flags;

/** The environment variables the start script sets (name → value; none: `{}`). @throws as startScript. */
const startEnv = () => startScript().env;

module.exports = { startFlags, startEnv };
