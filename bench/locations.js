#!/usr/bin/env node
/*
 * Load benchmark: GET /pcc/pcrf/locations over 10,000 locations (2 rates, 1 info, 1 profile
 * each) and GET /pcc/pcrf/location/<name>/locationInfo, on SQLite, JSON and XML.
 * Run: npm run build && node bench/locations.js [locations=10000] [seconds=10]
 * The server runs in a child process; autocannon (this process) drives it over loopback.
 */
'use strict';
const { seedLocations, startServer, run, report, basic } = require('./harness');

const N = Number(process.argv[2] || 10000);
const SECONDS = Number(process.argv[3] || 10);

async function main() {
  const t0 = Date.now();
  const { url, cleanup } = await seedLocations(N);
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
