/*
 * Promises (and other asynchronous resources) per request, a diagnostic beside the bench's
 * req/s and CPU figures: one server program of bench/harness.js (`gateway`, `lean`, `bare`,
 * `sofa`) runs on the SQLite bench data (or MariaDB, below) with bench/promise-counter.js preloaded, is warmed up
 * with `warmup` token introspections, then counts what the next `count` create. On Node 20 every
 * promise of the gateway runs the request scope's promise hook (docs/benchmarks.md "The pool round
 * trip of a prepared read, and the request scope's promise hooks"), and every `await` makes one
 * more promise while a hook is on: the count is the per-request work CPU profiles spread thinly.
 *
 * Usage: npm run build && node bench/promises.js [program=gateway] [via=rest] [count=2000] [warmup=3000] [stacks]
 * `via` as bench/requests.js `introspect` takes it: rest, rest-xml, graphql, trusted, sofa;
 * `stacks` also prints where the promises are created (the most frequent first, per request).
 * `BENCH_BACKENDS=mariadb` counts on the MariaDB bench data instead (BENCH_DATABASE_URL, as the
 * bench); only the first backend listed is used.
 */
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { introspection, runLoad, settings, sleep, startServer } = require('./harness');
const data = require('./data');

const [program = 'gateway', via = 'rest', count = '2000', warmup = '3000', stacks] = process.argv.slice(2);

/** Sends SIGUSR2 and reads the counts the server writes (see bench/promise-counter.js). */
async function countsOf(server, file) {
  const before = fs.existsSync(file) ? fs.statSync(file).mtimeMs : 0;
  process.kill(server.pid, 'SIGUSR2');
  for (let i = 0; i < 200; i++) {
    if (fs.existsSync(file) && fs.statSync(file).mtimeMs !== before)
      return JSON.parse(fs.readFileSync(file, 'utf8'));
    await sleep(10);
  }
  throw new Error('the promise counter did not answer');
}

async function main() {
  const { backends, mariadbUrl } = settings();
  const prep = await data.prepareDatabase(backends[0], { mariadbUrl });
  if (prep.skipped) throw new Error(prep.skipped);
  const { url } = prep;
  const file = path.join(os.tmpdir(), `sg-bench-promises-${process.pid}.json`);
  const server = await startServer(program, url, {
    env: {
      NODE_OPTIONS: `-r ${path.join(__dirname, 'promise-counter.js')}`,
      BENCH_PROMISE_COUNT_FILE: file,
      BENCH_PROMISE_STACKS: stacks ? '1' : '0',
    },
  });
  try {
    const request = introspection(via);
    await runLoad(server.base, request, { amount: Number(warmup), connections: 8 });
    await countsOf(server, file);
    const r = await runLoad(server.base, request, { amount: Number(count), connections: 8 });
    if (r.bad || r.errors)
      throw new Error(`${r.bad} wrong answers, ${r.errors} errors: ${r.badSample ?? ''}`);
    const { stacks: top, ...counts } = await countsOf(server, file);
    const n = Number(count);
    const per = (k) => (k / n).toFixed(1);
    console.log(`${program} ${via}: ${per(counts.PROMISE ?? 0)} promises per request`);
    console.log(
      `  all resources: ${Object.entries(counts)
        .filter(([, k]) => k / n >= 0.05)
        .map(([type, k]) => `${type} ${per(k)}`)
        .join(', ')}`,
    );
    for (const [at, k] of top ?? []) if (k / n >= 0.05) console.log(`  ${per(k).padStart(5)}  ${at}`);
  } finally {
    await server.stop();
    fs.rmSync(file, { force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
