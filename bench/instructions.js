/*
 * Instructions per request, a diagnostic beside the bench's req/s and CPU figures: one server
 * program of bench/harness.js (`gateway`, `lean`, `bare`, `sofa`) runs under valgrind's callgrind
 * on the SQLite bench data (or MariaDB, below), is warmed up uninstrumented with `warmup` token introspections, then
 * callgrind counts the user-space instructions (Ir) of the next `count` ones. Unlike req/s and
 * CPU time, which this shared 2-core machine moves by ±25 % between runs, the count repeats to a
 * few per cent, so two builds or two programs compare on it (issue 33: the gateway's REST row
 * against the lean handler). It leaves out the kernel (the socket calls) and cache misses.
 *
 * Printed: Ir per request in all, and without V8's optimizing compiler and garbage collector
 * (under valgrind every request takes about 50 times as long, and TurboFan keeps compiling and
 * the collector keeps marking in the measured window in both programs: their share is a matter
 * of wall time, not of the code path), then the functions with the most Ir per request (JIT code
 * has no name: `0x…`; V8's builtins are named, e.g. `Builtins_KeyedLoadIC_Megamorphic`).
 *
 * Usage (valgrind from Debian's package; about 5 minutes per program):
 *   npm run build && node bench/instructions.js [program=gateway] [via=rest] [count=3000] [warmup=12000]
 * `BENCH_BACKENDS=mariadb` counts on the MariaDB bench data instead (BENCH_DATABASE_URL, as the
 * bench); only the first backend listed is used.
 * `via` as bench/requests.js `introspect` takes it: rest, rest-xml, graphql, trusted, sofa; or
 * `rating`: the REST rating of the `rating` scenario instead of an introspection (`gateway` or
 * `bare`); give it `RATING_TIMEOUT_MS=120000` (valgrind makes a rating about 50 times slower than
 * its default 2 s deadline allows for: the answer is then returnCode 5001).
 */
'use strict';
const { spawn, execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { performance } = require('node:perf_hooks');
const { startEnv } = require('../scripts/start-flags');
const {
  programArgs,
  freePort,
  firstOk,
  introspection,
  rating,
  runLoad,
  settings,
  sleep,
} = require('./harness');
const data = require('./data');

const [program = 'gateway', via = 'rest', count = '3000', warmup = '12000'] = process.argv.slice(2);

/** Callgrind names functions of these kinds in V8; their Ir depend on wall time under valgrind. */
const COMPILER_OR_GC =
  /compiler::|turboshaft|maglev|Marking|Sweeper|Scavenge|IterateObjectCache|Evacuat|MemoryChunk|BodyDescriptor/;

/** Starts `program` under callgrind (instrumentation off) on `url`; resolves once /healthz answers. */
async function startUnderCallgrind(url, out, env) {
  const port = await freePort();
  const child = spawn(
    'valgrind',
    [
      '--tool=callgrind',
      '--instr-atstart=no',
      `--callgrind-out-file=${out}`,
      // JIT code is rewritten in place: valgrind must notice it.
      '--smc-check=all-non-file',
      process.execPath,
      ...programArgs(program),
    ],
    {
      cwd: path.join(__dirname, '..'),
      env: {
        // Connecting to MariaDB at start-up takes valgrind's gateway longer than the default
        // bounds on a slow machine (it failed with knex's acquire timeout); overridable.
        DB_CONNECT_TIMEOUT_MS: '60000',
        DB_ACQUIRE_TIMEOUT_MS: '60000',
        ...env,
        ...startEnv(),
        NODE_ENV: 'production',
        DEMO_DATA: 'false',
        LOG_LEVEL: 'warn',
        DATABASE_URL: url,
        PORT: String(port),
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr = (stderr + chunk).slice(-4000)));
  const base = `http://127.0.0.1:${port}`;
  try {
    await firstOk(`${base}/healthz`, performance.now(), child, 300_000);
  } catch (err) {
    child.kill('SIGKILL');
    throw new Error(`${program} under valgrind: ${err.message}: ${stderr}`, { cause: err });
  }
  return { child, base };
}

/** Ir per function name from a callgrind output file (self cost), via callgrind_annotate. */
function irByFunction(file) {
  const text = execFileSync('callgrind_annotate', ['--inclusive=no', '--threshold=100', file], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  const byName = new Map();
  for (const line of text.split('\n')) {
    const m = /^\s*([\d,]+) \(\s*[\d.]+%\)\s+(.*)$/.exec(line);
    if (!m || m[2].includes('PROGRAM TOTALS')) continue;
    // `???:name [object]` or `path/file.c:name [object]`: the name alone, namespaces kept.
    const name = m[2].replace(/^(\?\?\?|[^\s:]*[/.][^\s:]*):/, '').replace(/ \[[^\]]*\]$/, '');
    byName.set(name, (byName.get(name) ?? 0) + Number(m[1].replace(/,/g, '')));
  }
  return byName;
}

async function main() {
  const n = Number(count);
  const { backends, mariadbUrl } = settings();
  const prep = await data.prepareDatabase(backends[0], { mariadbUrl });
  if (prep.skipped) throw new Error(prep.skipped);
  const out = path.join(os.tmpdir(), `sg-callgrind-${process.pid}.out`);
  // vgdb (callgrind_control) finds the process by user and host names: the same for both.
  const env = { ...process.env, USER: process.env.USER || 'bench', HOST: '127.0.0.1' };
  const { child, base } = await startUnderCallgrind(prep.url, out, env);
  try {
    const request = via === 'rating' ? rating('rest', `callgrind-${process.pid}`) : introspection(via);
    const load = async (amount) => {
      const r = await runLoad(base, request, { amount, connections: 4, timeoutSeconds: 120 });
      if (r.bad || r.errors)
        throw new Error(`wrong answers under valgrind: ${r.badSample ?? `${r.errors} errors`}`);
    };
    await load(Number(warmup));
    const control = (...args) =>
      execFileSync('callgrind_control', [...args, String(child.pid)], { env, stdio: 'ignore' });
    control('-i', 'on');
    await load(n);
    control('-i', 'off');
    control('-d');
    await sleep(1000);
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
    prep.cleanup();
  }
  const dumps = fs.readdirSync(os.tmpdir()).filter((f) => f.startsWith(path.basename(out)));
  const byName = new Map();
  for (const f of dumps) {
    for (const [name, ir] of irByFunction(path.join(os.tmpdir(), f)))
      byName.set(name, (byName.get(name) ?? 0) + ir);
    fs.rmSync(path.join(os.tmpdir(), f));
  }
  let all = 0;
  let code = 0;
  for (const [name, ir] of byName) {
    all += ir;
    if (!COMPILER_OR_GC.test(name)) code += ir;
  }
  console.log(
    `${program} (${via}), ${n} requests after ${warmup}: ${Math.round(all / n)} Ir/request, ` +
      `${Math.round(code / n)} without V8's optimizing compiler and collector`,
  );
  const top = [...byName]
    .filter(([name]) => !COMPILER_OR_GC.test(name))
    .sort((a, b) => b[1] - a[1])
    .slice(0, 25);
  for (const [name, ir] of top)
    console.log(`${String(Math.round(ir / n)).padStart(8)}  ${name.slice(0, 120)}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
