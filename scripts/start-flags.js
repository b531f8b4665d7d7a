/*
 * The node flags of package.json's `start` script (`exec node <flags> dist/src/main.js`): what
 * `npm start` gives the gateway (`--max-semi-space-size`, see src/lib/heap.ts). The
 * build primes V8's code cache under them (scripts/bundle.js) and the bench starts the gateway
 * and its baselines with them (bench/harness.js), so both see the process operators run.
 */
'use strict';
const path = require('node:path');

/**
 * The flags, e.g. `['--max-semi-space-size=4']` (none: `[]`).
 * @throws when the start script does not have the form `[exec] node [--flag…] dist/src/main.js`.
 */
function startFlags() {
  const start = require(path.join(__dirname, '..', 'package.json')).scripts.start;
  const m = /^(?:exec\s+)?node((?:\s+--\S+)*)\s+dist\/src\/main\.js$/.exec(start.trim());
  if (!m) throw new Error(`package.json start script not understood: ${start}`);
  return m[1].split(/\s+/).filter(Boolean);
}

module.exports = { startFlags };
