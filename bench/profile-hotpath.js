/*
 * Hot-path measurement: token introspection through the REST row, through Apollo
 * `/graphql`, through a bare Koa handler (bench/profile-bare.js: no router, no body parser
 * middleware), (`benchBare`) through the bench's own bare handler and (`lean`) through its lean
 * handler (bench/baselines.js), alternating rounds, medians. Every server runs under `npm
 * start`'s node flags, the baselines also under the default HEAP_MODE's (as in bench/harness.js).
 * Run it pinned to core 1; it starts both servers on core 0:
 *   npm run build && taskset -c 1 node bench/profile-hotpath.js [rounds=5] [seconds=10] [connections=32]
 * Besides req/s it reports the server's CPU time per request (from /proc), which a machine shared
 * with other work disturbs less than throughput; the CPU ratio estimates the throughput ratio
 * of a server that has its core to itself.
 * `rating` posts /crs-api/processRating (a new operationId each) and `bareRating` the same
 * transaction through the charging service from bare Koa; afterwards the postpaid balance is
 * checked against the recorded charges (no lost update). RATE=n runs at n req/s (latency at a
 * fixed load, e.g. half of the peak) instead of as fast as possible.
 * SQLite with the demo dataset (DEMO_DATA), one valid token. CASES=rest,apollo,... picks cases;
 * BUILDS=dist,dist-before runs every case against each build folder (e.g. a copy of `dist` made
 * before a change), all on one database, so before/after ratios come from one run.
 */
'use strict';
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const autocannon = require('autocannon');
const { startFlags, startEnv } = require('../scripts/start-flags');
const { baselineFlags, cpuMsOf } = require('./harness');

const [rounds = 5, seconds = 10, connections = 32] = process.argv.slice(2).map(Number);
const root = path.join(__dirname, '..');
const auth = `Basic ${Buffer.from('demo:demo-password').toString('base64')}`;

let nextPort = 19000 + (process.pid % 200) * 5;

/**
 * Starts `script` (with `args`) on core 0 under npm start's node flags; `baseline` adds the
 * default HEAP_MODE's flags, which the gateway sets itself (as bench/harness.js does).
 */
function start(script, env, { args = [], baseline = true } = {}) {
  const port = nextPort++;
  const child = spawn(
    'taskset',
    [
      '-c',
      '0',
      process.execPath,
      ...(baseline ? baselineFlags() : startFlags()),
      ...(process.env.PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.PROF}`] : []),
      script,
      ...args,
    ],
    {
      env: {
        ...process.env,
        ...startEnv(),
        ...env,
        PORT: String(port),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'silent',
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  return { base: `http://127.0.0.1:${port}`, child };
}

async function up(base) {
  for (let i = 0; i < 200; i++) {
    try {
      const r = await fetch(`${base}/healthz`);
      if (r.status < 500) return;
    } catch {
      /* not yet */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${base} did not come up`);
}

const run = (opts) =>
  new Promise((resolve, reject) => autocannon(opts, (err, r) => (err ? reject(err) : resolve(r))));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const children = [];

/** Ratings of the demo postpaid subscriber (it accumulates: no refusals), one new operationId each. */
const RATED_MSISDN = '353871234568';
let operations = 0;
function ratingCase(pid, url, name) {
  return {
    pid,
    url,
    method: 'POST',
    headers: {
      authorization: auth,
      'content-type': 'application/json',
      accept: 'application/json',
      tenant: 'demo',
    },
    requests: [
      {
        setupRequest(req) {
          const operationId = `${name}-${process.pid}-${++operations}`;
          req.body = JSON.stringify({
            msisdn: RATED_MSISDN,
            ratingParams: {
              msisdn: RATED_MSISDN,
              operationId,
              contentId: 'ringtone-42',
              lookup: {
                providerId: '6010',
                applicationId: '50000029',
                serviceId: '30000020',
                originId: '9',
                bundleId: '1234',
              },
            },
          });
          return req;
        },
      },
    ],
  };
}

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sg-hot-'));
  // PROFILE_DATABASE_URL: an empty database to run on instead (e.g. MariaDB), demo data imported.
  const url = process.env.PROFILE_DATABASE_URL || `sqlite:${path.join(dir, 'db.sqlite3')}`;
  const builds = (process.env.BUILDS || 'dist').split(',');
  const cases = {};
  let first;
  for (const build of builds) {
    const tag = builds.length > 1 ? `@${build}` : '';
    const gw = start(
      path.join(root, build, 'src/main.js'),
      { DATABASE_URL: url, DEMO_DATA: 'true' },
      { baseline: false },
    );
    await up(gw.base);
    children.push(gw.child);
    first ??= await (
      await fetch(`${gw.base}/token`, {
        method: 'POST',
        headers: { authorization: auth, 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ grant_type: 'client_credentials', client_id: '353871234567' }),
      })
    ).json();
    if (!first.access_token) throw new Error(`no token: ${JSON.stringify(first)}`);
    const bare = start(path.join(__dirname, 'profile-bare.js'), { DATABASE_URL: url, DIST: build });
    await up(bare.base);
    children.push(bare.child);
    // The bench's bare handler (bench/baselines.js: router + @koa/bodyparser + the services).
    const benchBare = start(path.join(__dirname, 'baselines.js'), { DATABASE_URL: url }, { args: ['bare'] });
    await up(benchBare.base);
    children.push(benchBare.child);
    // The bench's lean handler (bench/baselines.js `lean`: the floor of issue 33).
    const lean = start(path.join(__dirname, 'baselines.js'), { DATABASE_URL: url }, { args: ['lean'] });
    await up(lean.base);
    children.push(lean.child);
    const bareRating = start(path.join(__dirname, 'profile-bare.js'), {
      DATABASE_URL: url,
      DIST: build,
      MODE: 'rating',
    });
    await up(bareRating.base);
    children.push(bareRating.child);
    const body = JSON.stringify({ token: first.access_token });
    const json = { authorization: auth, 'content-type': 'application/json', accept: 'application/json' };
    /** The introspection of the token as a case: POST `path` on `server`. */
    const introspect = (server, path, headers = json) => ({
      pid: server.child.pid,
      url: `${server.base}${path}`,
      method: 'POST',
      headers,
      body,
    });
    Object.assign(cases, {
      [`rest${tag}`]: introspect(gw, '/token/introspect'),
      [`restXml${tag}`]: introspect(gw, '/token/introspect', { ...json, accept: 'application/xml' }),
      [`apollo${tag}`]: {
        pid: gw.child.pid,
        url: `${gw.base}/graphql`,
        method: 'POST',
        headers: json,
        body: JSON.stringify({
          query: 'query I($t: String!) { introspectToken(token: $t) { active clientId expiry } }',
          variables: { t: first.access_token },
        }),
      },
      [`rating${tag}`]: ratingCase(gw.child.pid, `${gw.base}/crs-api/processRating`, `rating${tag}`),
      [`bareRating${tag}`]: ratingCase(bareRating.child.pid, `${bareRating.base}/`, `bareRating${tag}`),
      [`bare${tag}`]: introspect(bare, '/'),
      [`benchBare${tag}`]: introspect(benchBare, '/token/introspect'),
      [`lean${tag}`]: introspect(lean, '/token/introspect'),
    });
  }
  const wanted = process.env.CASES
    ? process.env.CASES.split(',')
    : ['rest', 'restXml', 'apollo', 'bare', 'benchBare', 'rating', 'bareRating'];
  const only = Object.keys(cases).filter((k) => wanted.includes(k.split('@')[0]));
  for (const name of only) {
    const r = await fetch(cases[name].url, {
      ...cases[name],
      body: cases[name].requests ? cases[name].requests[0].setupRequest({}).body : cases[name].body,
    });
    console.log(`check ${name}: ${r.status} ${(await r.text()).slice(0, 120)}`);
    await run({ ...cases[name], connections, duration: 2 });
  }
  const results = Object.fromEntries(only.map((n) => [n, []]));
  for (let i = 0; i < rounds; i++) {
    for (const name of i % 2 ? [...only].reverse() : only) {
      const cpu0 = cpuMsOf(cases[name].pid);
      const rate = process.env.RATE ? Number(process.env.RATE) : undefined;
      const r = await run({
        ...cases[name],
        connections,
        duration: seconds,
        ...(rate ? { overallRate: rate } : {}),
      });
      r.cpuUs = ((cpuMsOf(cases[name].pid) - cpu0) * 1000) / Math.max(1, r.requests.total);
      results[name].push(r);
      console.log(
        `round ${i + 1} ${name.padEnd(8)} ${Math.round(r.requests.average)} req/s p50 ${r.latency.p50} p99 ${r.latency.p99} cpu ${Math.round(r.cpuUs)} us/req non2xx ${r.non2xx} errors ${r.errors}`,
      );
    }
  }
  const med = {};
  const cpu = {};
  for (const name of only) {
    med[name] = median(results[name].map((r) => r.requests.average));
    cpu[name] = median(results[name].map((r) => r.cpuUs));
    console.log(
      `median ${name.padEnd(8)} ${Math.round(med[name])} req/s p50 ${median(results[name].map((r) => r.latency.p50))} p99 ${median(results[name].map((r) => r.latency.p99))} cpu ${Math.round(cpu[name])} us/req`,
    );
  }
  for (const build of builds) {
    const tag = builds.length > 1 ? `@${build}` : '';
    for (const [a, b] of [
      ['rest', 'apollo'],
      ['rest', 'bare'],
      ['rest', 'benchBare'],
      ['restXml', 'benchBare'],
      ['restXml', 'apollo'],
      ['rating', 'bareRating'],
    ])
      if (med[a + tag] && med[b + tag])
        console.log(
          `${build} ${a}/${b} throughput ${(med[a + tag] / med[b + tag]).toFixed(2)}, by CPU per request ${(cpu[b + tag] / cpu[a + tag]).toFixed(2)}`,
        );
  }
  if (only.some((n) => n.startsWith('rating') || n.startsWith('bareRating'))) {
    // Zero lost updates: the postpaid balance moved by exactly the sum of the recorded charges.
    const { createKnex } = require(path.join(root, builds[0], 'src/db/knex'));
    const db = createKnex(url);
    const sub = await db('subscribers').where({ msisdn: RATED_MSISDN }).first();
    const sum = await db('charges')
      .where({ msisdn: RATED_MSISDN, kind: 'charge', return_code: 0 })
      .sum({ s: 'amount_micros' })
      .count({ n: '*' });
    console.log(
      `ratings recorded ${sum[0].n}, charged ${sum[0].s} micros, balance ${sub.balance_micros} micros: ${
        Math.abs(Number(sub.balance_micros)) === Number(sum[0].s) ? 'no lost update' : 'MISMATCH'
      }`,
    );
    await db.destroy();
  }
  for (const c of children) c.kill('SIGTERM');
  await new Promise((r) => setTimeout(r, 1500));
  fs.rmSync(dir, { recursive: true, force: true });
}
main().catch((err) => {
  console.error(err);
  process.exit(1);
});
