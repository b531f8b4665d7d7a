#!/usr/bin/env node
/*
 * Load benchmark: GET /pcc/pcrf/locations over 10,000 locations (2 rates, 1 info, 1 profile
 * each) and GET /pcc/pcrf/location/<name>/locationInfo, on SQLite, JSON and XML.
 * Run: npm run build && node bench/locations.js [locations=10000] [seconds=10]
 * The server runs in a child process; autocannon (this process) drives it over loopback.
 */
'use strict';
const { seedDatabase, startServer, run, report, basic } = require('./harness');

const N = Number(process.argv[2] || 10000);
const SECONDS = Number(process.argv[3] || 10);

/** Seeds the database: the bench tenant and client, then N locations in chunks. */
async function seed() {
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
  return seeded;
}

async function main() {
  const t0 = Date.now();
  const { url, cleanup } = await seed();
  console.log(`seeded ${N} locations in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  const { base, stop } = await startServer(url);
  const auth = {
    authorization: basic('bench', 'bench-password'),
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
    report(
      name,
      await run({ url: base + p, headers: { ...auth, ...extra }, duration: SECONDS, connections }),
    );
  }
  stop();
  cleanup();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
