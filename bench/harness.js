/*
 * What every benchmark shares: the knobs (environment), server processes pinned to core 0,
 * autocannon in a separate process pinned to core 1 (bench/load.js), process memory, medians,
 * one runner for alternating pairs, tables, and the verdicts (targets held or not, requests that
 * failed). Needs `npm run build` first (servers and helpers load dist/).
 */
'use strict';
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { performance } = require('node:perf_hooks');
const { setTimeout: sleep } = require('node:timers/promises');
const { startFlags, startEnv } = require('../scripts/start-flags');

const ROOT = path.join(__dirname, '..');
const DIST = path.join(ROOT, 'dist', 'src');
/** Core the servers run on and core the load generator runs on (`taskset -c`). */
const SERVER_CPU = process.env.BENCH_SERVER_CPU ?? '0';
const LOAD_CPU = process.env.BENCH_LOAD_CPU ?? '1';
/**
 * Pause before each measured run, ms: requests cut off when the previous run ended may still be
 * queued in a server (SQLite writes run one at a time) and must not eat into the next run.
 */
const SETTLE_MS = 500;
const settle = () => sleep(SETTLE_MS);

/** A number from the environment, or `fallback`. */
const envNumber = (name, fallback) => (process.env[name] ? Number(process.env[name]) : fallback);
/** A comma-separated list from the environment, or `fallback`. */
const envList = (name, fallback) =>
  (process.env[name] ?? fallback)
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

/**
 * The knobs (bench/README.md lists them). BENCH_QUICK=1 shortens every measurement (1 round of
 * 2 s, 1 s warm-up) for a check that the bench still runs; figures from it are not comparable.
 */
function settings() {
  const quick = process.env.BENCH_QUICK === '1';
  return {
    quick,
    seconds: envNumber('BENCH_SECONDS', quick ? 2 : 10),
    /** Rounds of the alternating pairs; null: each scenario's own default (5, or 3 for the long ones). */
    rounds: process.env.BENCH_ROUNDS ? Number(process.env.BENCH_ROUNDS) : quick ? 1 : null,
    warmupSeconds: envNumber('BENCH_WARMUP_SECONDS', quick ? 1 : 2),
    /** Unmeasured run before a measured one whose server sat idle during the run before it (comparePairs). */
    leadInSeconds: envNumber('BENCH_LEADIN_SECONDS', quick ? 0 : 3),
    connections: envNumber('BENCH_CONNECTIONS', 32),
    only: envList(
      'BENCH_ONLY',
      'introspection,overheads,rating,locations,startup,donations,tokens,tokenIssue,soak',
    ),
    backends: envList('BENCH_BACKENDS', 'sqlite,mariadb'),
    mariadbUrl: process.env.BENCH_DATABASE_URL ?? 'mysql://root@127.0.0.1:3306/sg_bench',
    logLevel: process.env.BENCH_LOG_LEVEL ?? 'warn',
    /** Fresh server processes for every round of the REST ÷ bare comparisons (see comparePairs). */
    freshServers: process.env.BENCH_FRESH_SERVERS === '1',
  };
}

/** Median of numbers (mean of the two middle ones for an even count). */
function median(values) {
  const s = [...values].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** Resident set now (`rss`) and its peak since start (`peak`) of a process, in MB (Linux /proc). */
function memoryOf(pid) {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const mb = (key) => Math.round(Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)[1]) / 1024);
  return { rss: mb('VmRSS'), peak: mb('VmHWM') };
}

/**
 * CPU time a process has used so far (user + system), ms, from /proc (Linux; clock ticks of
 * 10 ms, the kernel's USER_HZ of 100).
 */
function cpuMsOf(pid) {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** A free loopback port (asks the kernel). */
function freePort() {
  return new Promise((resolve, reject) => {
    const srv = require('node:net').createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

/** Resolves with the time (ms since `since`) of the first 200 on `url`, polling every 5 ms. */
async function firstOk(url, since, child, timeoutMs = 30_000) {
  while (performance.now() - since < timeoutMs) {
    if (child.exitCode !== null) throw new Error(`the server exited with code ${child.exitCode}`);
    try {
      const res = await fetch(url);
      await res.arrayBuffer();
      if (res.status === 200) return performance.now() - since;
    } catch {
      /* not listening yet */
    }
    await sleep(5);
  }
  throw new Error(`no 200 on ${url} within ${timeoutMs} ms`);
}

/**
 * The programs a benchmark can serve: the gateway itself (dist/src/main.js) and the baselines
 * of bench/baselines.js (`bare`: a Koa handler calling the project's Authenticator and services;
 * `lean`: the floor of token introspection, one middleware; `lean-scoped`: the same in the
 * gateway's request scope; `sofa`: sofa-api on the gateway schema).
 */
const PROGRAMS = {
  // The node flags `npm start` gives the gateway (package.json), so the bench runs it as operators do.
  gateway: () => [...startFlags(), path.join(DIST, 'main.js')],
  // The baselines run with the same node flags and the V8 flags the gateway sets itself at start
  // (its default HEAP_MODE, src/lib/heap.ts), so that ratios compare code, not V8 settings.
  bare: () => [...baselineFlags(), path.join(__dirname, 'baselines.js'), 'bare'],
  lean: () => [...baselineFlags(), path.join(__dirname, 'baselines.js'), 'lean'],
  'lean-scoped': () => [...baselineFlags(), path.join(__dirname, 'baselines.js'), 'lean-scoped'],
  sofa: () => [...baselineFlags(), path.join(__dirname, 'baselines.js'), 'sofa'],
};

/** The node arguments (flags and script) that run `program` (a key of PROGRAMS). */
function programArgs(program) {
  return PROGRAMS[program]();
}

/** `npm start`'s node flags and those of the gateway's default HEAP_MODE, as node command-line flags. */
function baselineFlags() {
  const heap = require(path.join(DIST, 'lib', 'heap.js'));
  return [...startFlags(), ...heap.HEAP_MODE_FLAGS[heap.DEFAULT_HEAP_MODE]];
}

/**
 * Starts `program` on the database `url`, pinned to the server core, and waits for /healthz.
 * `countQueries` preloads bench/query-counter.js (SIGUSR2 writes the SQL statement count to a
 * file; see queries()). Returns `{ base, pid, startupMs, memory(), queries(), stop() }`.
 * @throws when it does not answer 200 on /healthz within 30 s or exits.
 */
async function startServer(program, url, { countQueries = false, env = {} } = {}) {
  const port = await freePort();
  const countFile = countQueries ? path.join(require('node:os').tmpdir(), `sg-bench-q-${port}`) : undefined;
  const args = [
    '-c',
    SERVER_CPU,
    process.execPath,
    ...(countQueries ? ['-r', path.join(__dirname, 'query-counter.js')] : []),
    ...programArgs(program),
  ];
  const started = performance.now();
  const child = spawn('taskset', args, {
    cwd: ROOT,
    env: {
      ...process.env,
      // The environment `npm start` sets (package.json: the malloc threshold), for every program.
      ...startEnv(),
      NODE_ENV: 'production',
      DEMO_DATA: 'false',
      LOG_LEVEL: settings().logLevel,
      DATABASE_URL: url,
      HOST: '127.0.0.1',
      PORT: String(port),
      ...(countFile ? { BENCH_QUERY_COUNT_FILE: countFile } : {}),
      ...env,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const base = `http://127.0.0.1:${port}`;
  let startupMs;
  try {
    startupMs = await firstOk(`${base}/healthz`, started, child);
  } catch (err) {
    child.kill('SIGKILL');
    throw new Error(`${program} on ${url}: ${err.message}`, { cause: err });
  }
  const exited = new Promise((resolve) => child.once('exit', resolve));
  return {
    program,
    base,
    pid: child.pid,
    startupMs,
    memory: () => memoryOf(child.pid),
    /**
     * Stops the process and starts a new one of the same program on the same database; this
     * object then stands for the new process (base, pid, …). `memory().peak` stays the highest
     * peak of every process it stood for.
     */
    async restart() {
      const before = this.memory();
      await this.stop();
      const fresh = await startServer(program, url, { countQueries, env });
      const memory = fresh.memory;
      fresh.memory = () => {
        const m = memory();
        return { rss: m.rss, peak: Math.max(m.peak, before.peak) };
      };
      Object.assign(this, fresh);
    },
    /** SQL statements the server has sent since it started. */
    async queries() {
      const before = fs.existsSync(countFile) ? fs.statSync(countFile).mtimeMs : 0;
      child.kill('SIGUSR2');
      for (let i = 0; i < 200; i++) {
        if (fs.existsSync(countFile) && fs.statSync(countFile).mtimeMs !== before)
          return Number(fs.readFileSync(countFile, 'utf8'));
        await sleep(5);
      }
      throw new Error('the query counter did not answer');
    },
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await Promise.race([exited, sleep(15_000).then(() => child.kill('SIGKILL'))]);
      if (countFile) fs.rmSync(countFile, { force: true });
    },
  };
}

/**
 * Runs autocannon in its own process pinned to the load core (bench/load.js) against `base`
 * with the request built by bench/requests.js `request.name(request.args)`. `opts`: duration
 * (s), connections, overallRate (req/s, paced evenly; the result then has `late`), amount (a fixed number of requests).
 * Resolves with req/s, latency (ms), bytes/s, counts of answers that were right (`ok`) and wrong
 * (`bad`, non-2xx or wrong body; `badSample` describes one) and transport errors.
 */
function runLoad(base, request, opts) {
  return new Promise((resolve, reject) => {
    const child = spawn(
      'taskset',
      [
        '-c',
        LOAD_CPU,
        process.execPath,
        path.join(__dirname, 'load.js'),
        JSON.stringify({ base, request, opts }),
      ],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`the load generator exited with code ${code}`));
      try {
        resolve(JSON.parse(out.trim().split('\n').pop()));
      } catch (err) {
        reject(new Error(`the load generator printed no result: ${err.message}`, { cause: err }));
      }
    });
  });
}

/**
 * What a run must report: targets (held or not: reported, never fatal) and failures (a request
 * that was not answered 2xx with the right body, a lost update: fatal, exit code 1).
 */
class Verdicts {
  constructor() {
    this.targets = [];
    this.failures = [];
  }

  /** Records a target: `holds` true/false, or null when it could not be measured. */
  target(scenario, label, holds, detail) {
    this.targets.push({ scenario, label, holds, detail });
    const mark = holds === null ? 'n/a ' : holds ? 'HOLDS' : 'MISSED';
    console.log(`  target ${mark}  ${label}: ${detail}`);
  }

  /**
   * Adds `more` to the detail of the last target of `scenario` whose label starts with `prefix`
   * (a figure measured after its verdict, shown beside it in the summary), and prints it.
   */
  annotate(scenario, prefix, more) {
    const t = this.targets.findLast((x) => x.scenario === scenario && x.label.startsWith(prefix));
    if (!t) return;
    t.detail += `; ${more}`;
    console.log(`  beside the target "${t.label}": ${more}`);
  }

  /** Records a fatal failure and prints it at once. */
  fail(scenario, message) {
    this.failures.push({ scenario, message });
    console.log(`  FAILURE  ${scenario}: ${message}`);
  }

  /** Fails for every wrong answer or transport error counted in a load result. */
  checkLoad(scenario, label, r) {
    if (r.bad || r.errors || r.timeouts)
      this.fail(
        scenario,
        `${label}: ${r.bad} wrong answers (non-2xx or wrong body), ${r.errors} errors, ${r.timeouts} timeouts; e.g. ${r.badSample ?? 'a transport error'}`,
      );
  }

  /** The closing summary; returns the process exit code. */
  summary() {
    console.log('\n== Targets');
    for (const t of this.targets)
      console.log(
        `${t.holds === null ? 'n/a   ' : t.holds ? 'HOLDS ' : 'MISSED'}  [${t.scenario}] ${t.label}: ${t.detail}`,
      );
    const held = this.targets.filter((t) => t.holds).length;
    const missed = this.targets.filter((t) => t.holds === false).length;
    console.log(`${held} held, ${missed} missed, ${this.targets.length - held - missed} not measured`);
    if (this.failures.length) {
      console.log(`\n== ${this.failures.length} FAILURES (exit code 1)`);
      for (const f of this.failures) console.log(`[${f.scenario}] ${f.message}`);
      return 1;
    }
    console.log('no failed request, no wrong body, no lost update');
    return 0;
  }
}

/** Prints `rows` (arrays of cells) under `header` as a Markdown table (pasteable into the README). */
function printTable(title, header, rows) {
  const cells = [header, ...rows].map((r) => r.map(String));
  const widths = header.map((_, i) => Math.max(...cells.map((r) => r[i].length)));
  const line = (r) => `| ${r.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
  console.log(`\n${title}\n`);
  console.log(line(cells[0]));
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const r of cells.slice(1)) console.log(line(r));
  console.log('');
}

/**
 * One runner for every alternating comparison: each round runs every target once, in order in
 * even rounds and in reverse order in odd ones (after one warm-up run each), and the table
 * shows medians over rounds: req/s, p50/p99 (ms), bytes/s, the server's RSS after its last run (peak in brackets) and the first target's req/s
 * divided by each target's. Every target is `{ name, server, request, opts? }` (`server` from startServer,
 * `request` as runLoad takes it). `beforeRound(i)` runs before each round. With `fresh`, every
 * round after the first starts with new processes of the targets' servers (`restart`), each
 * warmed up again: one process's luck in V8's optimisation (measured: ±5 % between two processes
 * of the same code) is then one sample of the median instead of every round. `order` (indices
 * of `targets`) is the running order of a round when it is not the targets' own (the table keeps
 * the targets' order): rows judged against each other run next to each other. With
 * `leadInSeconds` > 0, a measured run whose server was idle during the run before it (another
 * process was being measured) follows an unmeasured run of that many seconds of the same load:
 * the gateway left idle for 20-30 s spent its first 3 s back under load at 1.3-1.7× its steady
 * CPU per request (V8's memory reducer had shrunk its heap; docs/benchmarks.md), so without it
 * a row's figure depended on whether another process ran before it. Returns per target
 * `{ name, reqs, p50, p99, bytes, rss, peak, ratio, warmup, leadIns, results }` (load results as
 * runLoad gives them; `leadIns` the lead-in runs, whose requests count for the data checks).
 */
async function comparePairs(
  scenario,
  title,
  targets,
  {
    rounds,
    seconds,
    warmupSeconds,
    leadInSeconds = 0,
    connections,
    verdicts,
    beforeRound,
    fresh = false,
    order: runOrder,
  },
) {
  const runs = targets.map(() => []);
  const leadIns = targets.map(() => []);
  const warmups = [];
  /** The server of the run before (warm-up, lead-in or measured). */
  let lastServer = null;
  /**
   * One run of `t` for `duration` s, its answers checked (`label` names it in a failure), with
   * the server's CPU time per answer, µs, as `cpuUs`: what the code costs, less disturbed than
   * req/s by other work on the machine (a diagnostic; the targets are on req/s).
   */
  const load = async (t, duration, label) => {
    const cpuBefore = cpuMsOf(t.server.pid);
    const r = await runLoad(t.server.base, t.request, { duration, connections, ...t.opts });
    r.cpuUs = ((cpuMsOf(t.server.pid) - cpuBefore) * 1000) / Math.max(1, r.total);
    verdicts.checkLoad(scenario, `${t.name} ${label}`, r);
    lastServer = t.server;
    return r;
  };
  const warmUp = async () => {
    if (!(warmupSeconds > 0)) return;
    for (const t of targets) warmups.push(await load(t, warmupSeconds, '(warm-up)'));
  };
  await warmUp();
  for (let round = 0; round < rounds; round++) {
    if (fresh && round > 0) {
      for (const server of new Set(targets.map((t) => t.server))) await server.restart();
      await warmUp();
    }
    if (beforeRound) await beforeRound(round);
    // Every other round in reverse order, so that no target always runs first or last.
    const order = (runOrder ?? targets.map((_, i) => i)).map((i) => [i, targets[i]]);
    if (round % 2) order.reverse();
    for (const [i, t] of order) {
      if (leadInSeconds > 0 && lastServer && lastServer !== t.server) {
        await settle();
        leadIns[i].push(await load(t, leadInSeconds, `round ${round + 1} (lead-in)`));
      }
      await settle();
      const r = await load(t, seconds, `round ${round + 1}`);
      runs[i].push(r);
      process.stdout.write(
        `  round ${round + 1}/${rounds} ${t.name}: ${Math.round(r.reqs)} req/s p50 ${r.p50} ms p99 ${r.p99} ms, server CPU ${Math.round(r.cpuUs)} µs/req\n`,
      );
    }
  }
  const rows = targets.map((t, i) => {
    const m = t.server.memory();
    return {
      name: t.name,
      reqs: median(runs[i].map((r) => r.reqs)),
      p50: median(runs[i].map((r) => r.p50)),
      p99: median(runs[i].map((r) => r.p99)),
      bytes: median(runs[i].map((r) => r.bytes)),
      cpuUs: median(runs[i].map((r) => r.cpuUs)),
      // Other work on the machine only ever slows a run down: the best round is the closest to
      // what the code does with a core to itself (a diagnostic beside the medians).
      best: Math.max(...runs[i].map((r) => r.reqs)),
      rss: m.rss,
      peak: m.peak,
      warmup: warmups[i],
      leadIns: leadIns[i],
      results: runs[i],
    };
  });
  // How much faster the first target is than each (the form of the bench targets, bench/README.md).
  for (const r of rows) r.ratio = rows[0].reqs / r.reqs;
  printTable(
    `${title} — ${rounds} alternating round(s) of ${seconds} s, ${connections} connections, medians`,
    [
      'served by',
      'req/s',
      'p50 ms',
      'p99 ms',
      'MB/s',
      'server CPU µs/req',
      'RSS MB (peak)',
      `${rows[0].name} ÷ this`,
    ],
    rows.map((r) => [
      r.name,
      Math.round(r.reqs),
      r.p50,
      r.p99,
      (r.bytes / 1e6).toFixed(2),
      Math.round(r.cpuUs),
      `${r.rss} (${r.peak})`,
      `${r.ratio.toFixed(2)}×`,
    ]),
  );
  return rows;
}

/** `Basic` authorization header value. */
const basic = (username, password) => `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;

/**
 * The bench's token introspection, as runLoad takes it: one valid token of the bench data's
 * 1,000,000 (bench/data.js), the bench client's Basic credentials, sent `via` rest, rest-xml,
 * graphql, trusted or sofa (bench/requests.js `introspect`).
 */
function introspection(via) {
  const data = require('./data');
  return {
    name: 'introspect',
    args: {
      via,
      ...data.introspectedOf(data.SIZES.tokens),
      auth: basic(data.CLIENT.username, data.CLIENT.password),
    },
  };
}

/** The subscribers the bench's ratings charge in turn (bench/data.js numbering). */
const RATING_SUBSCRIBERS = { first: 0, count: 1000 };

/**
 * The bench's REST or GraphQL rating (`via` `rest` or `graphql`), as runLoad takes it: a
 * catalogue content charged to {@link RATING_SUBSCRIBERS} in turn, each request with a new
 * operationId `opPrefix`-pid-n (bench/requests.js `rating`), the bench client's Basic credentials.
 */
function rating(via, opPrefix) {
  const data = require('./data');
  return {
    name: 'rating',
    args: {
      via,
      auth: basic(data.CLIENT.username, data.CLIENT.password),
      tenant: data.TENANT,
      ...RATING_SUBSCRIBERS,
      opPrefix,
      lookup: data.RATING_LOOKUP,
    },
  };
}

module.exports = {
  ROOT,
  DIST,
  baselineFlags,
  programArgs,
  freePort,
  firstOk,
  cpuMsOf,
  settings,
  median,
  memoryOf,
  startServer,
  runLoad,
  comparePairs,
  printTable,
  Verdicts,
  basic,
  introspection,
  RATING_SUBSCRIBERS,
  rating,
  settle,
  sleep,
};
