/*
 * Issue 16 hot-path measurement: token introspection through the REST row, through Apollo
 * `/graphql` and through a bare Koa handler (bench/profile-bare.js), alternating rounds, medians.
 * Run it pinned to core 1; it starts both servers on core 0:
 *   npm run build && taskset -c 1 node bench/profile-hotpath.js [rounds=5] [seconds=10] [connections=32]
 * SQLite with the demo dataset (DEMO_DATA), one valid token.
 */
'use strict';
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const autocannon = require('autocannon');

const [rounds = 5, seconds = 10, connections = 32] = process.argv.slice(2).map(Number);
const root = path.join(__dirname, '..');
const auth = `Basic ${Buffer.from('demo:demo-password').toString('base64')}`;

function start(script, env) {
  const port = 19000 + Math.floor(Math.random() * 1000);
  const child = spawn('taskset', ['-c', '0', process.execPath, ...(process.env.PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.PROF}`] : []), script], {
    env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'silent' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
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

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sg-hot-'));
  const url = `sqlite:${path.join(dir, 'db.sqlite3')}`;
  const gw = start(path.join(root, 'dist/src/main.js'), { DATABASE_URL: url, DEMO_DATA: 'true' });
  await up(gw.base);
  const issued = await (
    await fetch(`${gw.base}/token`, {
      method: 'POST',
      headers: { authorization: auth, 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ grant_type: 'client_credentials', client_id: '353871234567' }),
    })
  ).json();
  if (!issued.access_token) throw new Error(`no token: ${JSON.stringify(issued)}`);
  const bare = start(path.join(__dirname, 'profile-bare.js'), { DATABASE_URL: url });
  await up(bare.base);
  const body = JSON.stringify({ token: issued.access_token });
  const json = { authorization: auth, 'content-type': 'application/json', accept: 'application/json' };
  const cases = {
    rest: { url: `${gw.base}/token/introspect`, method: 'POST', headers: json, body },
    restXml: {
      url: `${gw.base}/token/introspect`,
      method: 'POST',
      headers: { ...json, accept: 'application/xml' },
      body,
    },
    apollo: {
      url: `${gw.base}/graphql`,
      method: 'POST',
      headers: json,
      body: JSON.stringify({
        query: 'query I($t: String) { introspectToken(token: $t) { active clientId expiry } }',
        variables: { t: issued.access_token },
      }),
    },
    bare: { url: `${bare.base}/`, method: 'POST', headers: json, body },
  };
  const only = process.env.CASES ? process.env.CASES.split(',') : Object.keys(cases);
  for (const name of only) {
    const r = await fetch(cases[name].url, cases[name]);
    console.log(`check ${name}: ${r.status} ${(await r.text()).slice(0, 120)}`);
    await run({ ...cases[name], connections, duration: 2 });
  }
  const results = Object.fromEntries(only.map((n) => [n, []]));
  for (let i = 0; i < rounds; i++) {
    for (const name of i % 2 ? [...only].reverse() : only) {
      const r = await run({ ...cases[name], connections, duration: seconds });
      results[name].push(r);
      console.log(
        `round ${i + 1} ${name.padEnd(8)} ${Math.round(r.requests.average)} req/s p50 ${r.latency.p50} p99 ${r.latency.p99} non2xx ${r.non2xx} errors ${r.errors}`,
      );
    }
  }
  const med = {};
  for (const name of only) {
    med[name] = median(results[name].map((r) => r.requests.average));
    console.log(
      `median ${name.padEnd(8)} ${Math.round(med[name])} req/s p50 ${median(results[name].map((r) => r.latency.p50))} p99 ${median(results[name].map((r) => r.latency.p99))}`,
    );
  }
  if (med.rest && med.apollo) console.log(`rest/apollo ${(med.rest / med.apollo).toFixed(2)}`);
  if (med.rest && med.bare) console.log(`rest/bare ${(med.rest / med.bare).toFixed(2)}`);
  gw.child.kill('SIGTERM');
  bare.child.kill('SIGTERM');
  await new Promise((r) => setTimeout(r, 1500));
  fs.rmSync(dir, { recursive: true, force: true });
}
main().catch((err) => {
  console.error(err);
  process.exit(1);
});
