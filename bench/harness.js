/*
 * What the load benchmarks share: a throwaway SQLite database migrated and seeded from a
 * dataset, the built service started on it in a child process, autocannon runs and one report
 * line per case. Needs `npm run build` first (it loads dist/).
 */
'use strict';
const { fork } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const autocannon = require('autocannon');

const dist = path.join(__dirname, '..', 'dist', 'src');
const { createKnex } = require(path.join(dist, 'db/knex'));

/**
 * Creates a SQLite database in a temporary folder, migrates it and imports `dataset`.
 * Returns its `url`, an open knex `db` (for extra seeding and read-back; destroy it) and
 * `cleanup()` removing the folder.
 */
async function seedDatabase(dataset) {
  const { migrateLatest } = require(path.join(dist, 'db/migrations'));
  const { importDataset } = require(path.join(dist, 'dataset/import'));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sg-bench-'));
  const url = `sqlite:${path.join(dir, 'bench.sqlite3')}`;
  const db = createKnex(url);
  await migrateLatest(db);
  await importDataset(db, dataset, { nowMs: () => Date.now() });
  return { url, db, cleanup: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

/**
 * Seeds a throwaway SQLite database with the bench tenant and client (PCRF_LOCATION_READ_PERMISSION)
 * and `n` locations named ZONE-000000…, each with 2 rates, `infosPerLocation` location infos and
 * 1 profile, in chunks of 500. Returns what seedDatabase returns, its knex already destroyed.
 */
async function seedLocations(n, infosPerLocation = 1) {
  const seeded = await seedDatabase({
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
  });
  const { db } = seeded;
  const tenant = (await db('tenants').where({ name: 'bench' }).first()).id;
  const type = (await db('location_info_types').first()).id;
  const chunk = 500;
  for (let start = 0; start < n; start += chunk) {
    await db.transaction(async (trx) => {
      const names = Array.from(
        { length: Math.min(chunk, n - start) },
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
        rows.flatMap((l, i) =>
          Array.from({ length: infosPerLocation }, (_, k) => ({
            tenant_id: tenant,
            location_id: l.id,
            type_id: type,
            name: infosPerLocation === 1 ? `${l.name}-info` : `${l.name}-info-${k}`,
            description: null,
            value: String(20800 + ((i + k) % 99)),
          })),
        ),
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
  return seeded;
}

/**
 * Starts dist/src/main.js on `url` on a random loopback port and waits for /healthz.
 * Returns its base URL, its process id `pid` (to read its memory) and `stop()`.
 * @throws when the service does not answer within 10 s.
 */
async function startServer(url) {
  const port = 18000 + Math.floor(Math.random() * 1000);
  const server = fork(path.join(dist, 'main.js'), [], {
    env: { ...process.env, DATABASE_URL: url, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'silent' },
    stdio: 'ignore',
  });
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 100; i++) {
    try {
      if ((await fetch(`${base}/healthz`)).ok) return { base, pid: server.pid, stop: () => server.kill() };
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  server.kill();
  throw new Error(`the service did not answer on ${base}/healthz within 10 s`);
}

/** Opens the database at `url` (destroy it when done). */
const openDatabase = (url) => createKnex(url);

/** Runs autocannon with `opts` and resolves with its result. */
function run(opts) {
  return new Promise((resolve, reject) => autocannon(opts, (err, r) => (err ? reject(err) : resolve(r))));
}

/** One line per case: mean req/s, p50 and p99 latency, non-2xx answers and errors. */
function report(name, r) {
  console.log(
    `${name.padEnd(22)} ${String(Math.round(r.requests.average)).padStart(6)} req/s  latency p50 ${r.latency.p50} ms  p99 ${r.latency.p99} ms  non-2xx ${r.non2xx}  errors ${r.errors}`,
  );
}

/** `Basic` authorization header value. */
const basic = (username, password) => `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;

module.exports = { seedDatabase, seedLocations, openDatabase, startServer, run, report, basic };
