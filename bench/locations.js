#!/usr/bin/env node
/*
 * Load benchmark: GET /pcc/pcrf/locations over 10,000 locations (2 rates, 1 info, 1 profile
 * each) and GET /pcc/pcrf/location/<name>/locationInfo, on SQLite, JSON and XML.
 * Run: npm run build && node bench/locations.js [locations=10000] [seconds=10]
 * The server runs in a child process; autocannon (this process) drives it over loopback.
 */
'use strict';
const { fork } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const autocannon = require('autocannon');

const N = Number(process.argv[2] || 10000);
const SECONDS = Number(process.argv[3] || 10);
const dist = path.join(__dirname, '..', 'dist', 'src');

async function seed(url) {
  const { createKnex } = require(path.join(dist, 'db/knex'));
  const { migrateLatest } = require(path.join(dist, 'db/migrations'));
  const { importDataset } = require(path.join(dist, 'dataset/import'));
  const db = createKnex(url);
  await migrateLatest(db);
  await importDataset(
    db,
    {
      tenants: [{ name: 'bench' }],
      clients: [
        {
          tenant: 'bench',
          username: 'bench',
          password: 'bench-password',
          permissions: ['PCRF_LOCATION_READ_PERMISSION'],
        },
      ],
      locationInfoTypes: [{ tenant: 'bench', name: 'PLMNID', value: 4 }],
    },
    { nowMs: () => Date.now() },
  );
  const tenant = (await db('tenants').where({ name: 'bench' }).first()).id;
  const type = (await db('location_info_types').first()).id;
  const chunk = 500;
  for (let start = 0; start < N; start += chunk) {
    await db.transaction(async (trx) => {
      const names = Array.from(
        { length: Math.min(chunk, N - start) },
        (_, i) => `ZONE-${String(start + i).padStart(6, '0')}`,
      );
      await trx.batchInsert(
        'locations',
        names.map((name) => ({ tenant_id: tenant, name, description: null })),
        100,
      );
      const rows = await trx('locations').whereIn('name', names).select('id', 'name');
      await trx.batchInsert(
        'location_rates',
        rows.flatMap((l) => [
          { location_id: l.id, name: `${l.name}_TimeBasedRate`, description: null, location_rate: 0 },
          { location_id: l.id, name: `${l.name}_VolumeRate`, description: 'per MB', location_rate: 3 },
        ]),
        100,
      );
      await trx.batchInsert(
        'location_infos',
        rows.map((l, i) => ({
          tenant_id: tenant,
          location_id: l.id,
          type_id: type,
          name: `${l.name}-info`,
          description: null,
          value: String(20800 + (i % 99)),
        })),
        100,
      );
      await trx.batchInsert(
        'location_profiles',
        rows.map((l) => ({ location_id: l.id, name: `${l.name}-default`, description: null })),
        100,
      );
    });
  }
  await db.destroy();
}

function run(url, headers, seconds, connections) {
  return new Promise((resolve, reject) =>
    autocannon({ url, headers, duration: seconds, connections }, (err, r) =>
      err ? reject(err) : resolve(r),
    ),
  );
}

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sg-bench-'));
  const url = `sqlite:${path.join(dir, 'bench.sqlite3')}`;
  const t0 = Date.now();
  await seed(url);
  console.log(`seeded ${N} locations in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  const port = 18000 + Math.floor(Math.random() * 1000);
  const server = fork(path.join(dist, 'main.js'), [], {
    env: { ...process.env, DATABASE_URL: url, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'silent' },
    stdio: 'ignore',
  });
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 100; i++) {
    try {
      if ((await fetch(`${base}/healthz`)).ok) break;
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  const auth = {
    authorization: `Basic ${Buffer.from('bench:bench-password').toString('base64')}`,
    permissions: 'PCRF_LOCATION_READ_PERMISSION',
  };
  const first = await fetch(`${base}/pcc/pcrf/locations`, {
    headers: { ...auth, accept: 'application/json' },
  });
  const body = await first.text();
  console.log(
    `full list: ${first.status}, ${(body.length / 1e6).toFixed(1)} MB JSON, ${JSON.parse(body).locationList.length} locations`,
  );
  const cases = [
    ['full list, JSON', '/pcc/pcrf/locations', { accept: 'application/json' }, 4],
    ['full list, XML', '/pcc/pcrf/locations', {}, 4],
    ['one location, JSON', '/pcc/pcrf/locations/ZONE-004242', { accept: 'application/json' }, 32],
    ['location infos, XML', '/pcc/pcrf/location/ZONE-004242/locationInfo', {}, 32],
  ];
  for (const [name, p, extra, connections] of cases) {
    const r = await run(base + p, { ...auth, ...extra }, SECONDS, connections);
    console.log(
      `${name.padEnd(22)} ${String(Math.round(r.requests.average)).padStart(6)} req/s  latency p50 ${r.latency.p50} ms  p99 ${r.latency.p99} ms  non-2xx ${r.non2xx}  errors ${r.errors}`,
    );
  }
  server.kill();
  fs.rmSync(dir, { recursive: true, force: true });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
