/*
 * Build step after `tsc` (start-up time): bundles the compiled server
 * (dist/src/server.js and every module it loads) into dist/gateway.js with esbuild, which
 * src/main.ts runs compiled from V8's code cache, then starts it once on a scratch SQLite file
 * so that the cache (dist/gateway.js.<hash>.cache) is there before the first real start.
 *
 * Kept out of the bundle, loaded from node_modules as usual: the native SQLite driver, the
 * MySQL/MariaDB driver, and the knex and type-graphql drivers and peers that are never
 * installed. The bundle is ASCII: the few other characters esbuild leaves (in comments and
 * regular expression literals) are written as \uXXXX escapes, which mean the same there, so the
 * source decodes as latin1 instead of a slower UTF-8 decode into a two-byte string.
 */
'use strict';
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const esbuild = require('esbuild');
const { startFlags } = require('./start-flags');

const DIST = path.join(__dirname, '..', 'dist');
const BUNDLE = path.join(DIST, 'gateway.js');
/** The code cache files of the bundle (src/lib/bundle.ts codeCacheFile). */
const CACHE = /^gateway\.js\.(?:[0-9a-f]{8}\.)?cache$/;
const EXTERNAL = [
  'better-sqlite3',
  'mysql2',
  // knex dialects and type-graphql validation we do not use (not installed)
  'sqlite3',
  'mysql',
  'pg',
  'pg-native',
  'pg-query-stream',
  'oracledb',
  'tedious',
  'mariadb',
  'class-validator',
  // the OpenTelemetry SDK, loaded only when the OTEL_* variables ask for traces (src/lib/tracing.ts)
  '@opentelemetry/sdk-node',
  '@opentelemetry/instrumentation-http',
];

/** Bundles dist/src/server.js into dist/gateway.js (its exports are server.ts's). */
async function bundle() {
  for (const f of fs.readdirSync(DIST)) if (CACHE.test(f)) fs.rmSync(path.join(DIST, f), { force: true });
  const result = await esbuild.build({
    stdin: { contents: "module.exports = require('./src/server');", resolveDir: DIST, loader: 'js' },
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    // No keepNames: it wraps every function, per-request closures included, in a name-setting
    // call, which cost about 20 % of REST throughput. Names esbuild renames (on a
    // collision) would change type-graphql's default GraphQL type names; every type of ours is
    // named explicitly, and test/e2e/bundle.test.ts checks the bundled server's schema is the
    // source's.
    external: EXTERNAL,
    write: false,
    logLevel: 'error',
  });
  const code = result.outputFiles[0].text.replace(
    /[^\n\r\t -~]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  // Renamed into place: a server starting meanwhile reads the old bundle or the new one, whole.
  fs.writeFileSync(`${BUNDLE}.tmp`, code);
  fs.renameSync(`${BUNDLE}.tmp`, BUNDLE);
}

/**
 * Starts `node <npm start's flags> dist/src/main.js` on an empty scratch SQLite database until
 * the code cache for those flags is written (V8 refuses a cache made under other flags), then
 * stops it. A bundle that cannot start fails the build (with the server's
 * stderr); a start that only takes too long warns (the first real start writes the cache), and
 * so does a Node.js the SQLite driver aborts on (src/db/sqlite.ts `installedSqliteRefusal`).
 */
async function prime() {
  // Priming runs on SQLite; where its driver would abort the process, the first start (on
  // MariaDB/MySQL) writes the cache (docs/operations.md "Node.js versions and the SQLite driver").
  const refusal = require(path.join(DIST, 'src', 'db', 'sqlite')).installedSqliteRefusal();
  if (refusal) {
    process.stderr.write(
      `scripts/bundle.js: code cache not primed (${refusal}); the first start writes it\n`,
    );
    return;
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sg-bundle-'));
  const child = spawn(process.execPath, [...startFlags(), path.join(DIST, 'src', 'main.js')], {
    cwd: dir,
    env: {
      PATH: process.env.PATH ?? '',
      NODE_ENV: 'production',
      DEMO_DATA: 'false',
      LOG_LEVEL: 'warn',
      DATABASE_URL: `sqlite:${path.join(dir, 'prime.sqlite3')}`,
      HOST: '127.0.0.1',
      PORT: '0',
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    for (let waited = 0; !fs.readdirSync(DIST).some((f) => CACHE.test(f)); waited += 50) {
      if (child.exitCode !== null)
        throw new Error(`dist/src/main.js on the bundle exited with code ${child.exitCode}:\n${err}`);
      if (waited > 30_000) {
        process.stderr.write(
          'scripts/bundle.js: code cache not primed within 30 s; the first start writes it\n',
        );
        break;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  } finally {
    child.kill('SIGTERM');
    await exited;
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

bundle()
  .then(prime)
  .catch((e) => {
    process.stderr.write(`scripts/bundle.js: ${e.stack ?? e}\n`);
    process.exit(1);
  });
