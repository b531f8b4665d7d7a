#!/usr/bin/env node
/*
 * GraphQL limits: 10,000 locations with 2 rates, 10 location infos and
 * 1 profile each in a SQLite database (bench/data.js, cached in bench/.data/), the built service
 * in a child process (bench/harness.js), sends the deep location query (a location list with
 * every child), the same query one level shallower and the heaviest allowed operations, polling /healthz meanwhile, and reads the server's peak RSS (VmHWM) after each.
 * Run: npm run build && node bench/graphql-limits.js [locations=10000] [infosPerLocation=10]
 * The location child lists are read through the unpaged `rateList`/`infoList`/`profileList`
 * (`rates`/`infos`/`profiles` are now connections), so the costs and figures stay comparable.
 */
'use strict';
const { performance } = require('node:perf_hooks');
const { startServer, basic } = require('./harness');
const { CLIENT, prepareDatabase } = require('./data');

const N = Number(process.argv[2] || 10000);
const INFOS = Number(process.argv[3] || 10);

const CASES = [
  [
    'item-1 query',
    '{ locations(first: 500) { edges { node { name infoList { name value type { name } location { name infoList { name value location { name infoList { name } } } } } } } } }',
  ],
  [
    'item-1, one level less',
    '{ locations(first: 500) { edges { node { name infoList { name value type { name } location { name infoList { name value location { name } } } } } } } }',
  ],
  [
    'locationList + rates (cost 34,001)',
    '{ locationList { id name description rateList { id name description locationRate } } }',
  ],
  [
    'locations(first: 500) + rates + profiles',
    '{ locations(first: 500) { edges { node { id name description rateList { id name description locationRate } profileList { id name description } } } } }',
  ],
  [
    'locations(first: 16) + infos, type, location',
    '{ locations(first: 16) { edges { node { name infoList { name value type { name } location { name } } } } } }',
  ],
  [
    'refused: first 20, infos → location → infos',
    '{ locations(first: 20) { edges { node { name infoList { name location { name infoList { name } } } } } } }',
  ],
];

async function main() {
  const t0 = Date.now();
  const { url, cleanup } = await prepareDatabase('sqlite', {
    sizes: { subscribers: 0, tokens: 0, locations: N, infosPerLocation: INFOS },
  });
  console.log(
    `${N} locations × (2 rates, ${INFOS} infos, 1 profile) ready in ${((Date.now() - t0) / 1000).toFixed(1)} s`,
  );
  const server = await startServer('gateway', url);
  const { base } = server;
  const rss = () => server.memory();
  const headers = {
    authorization: basic(CLIENT.username, CLIENT.password),
    'content-type': 'application/json',
  };
  console.log(`idle server RSS ${rss().rss} MB`);
  for (const [name, query] of CASES) {
    const polls = [];
    let done = false;
    const started = performance.now();
    const answer = fetch(`${base}/graphql`, { method: 'POST', headers, body: JSON.stringify({ query }) })
      .then(async (r) => ({ status: r.status, text: await r.text() }))
      .finally(() => (done = true));
    while (!done) {
      const p0 = performance.now();
      await (await fetch(`${base}/healthz`)).text();
      polls.push(performance.now() - p0);
      await new Promise((r) => setTimeout(r, 10));
    }
    const { status, text } = await answer;
    const ms = Math.round(performance.now() - started);
    const body = JSON.parse(text);
    const outcome = body.errors
      ? `${body.errors[0].extensions.code}${body.errors[0].extensions.cost ? ` (cost ${body.errors[0].extensions.cost})` : ''}`
      : 'data';
    const m = rss();
    console.log(
      `${name.padEnd(52)} HTTP ${status} ${outcome.padEnd(30)} ${String(ms).padStart(5)} ms ${(text.length / 1e6).toFixed(1).padStart(5)} MB  /healthz max ${Math.round(Math.max(0, ...polls))} ms over ${polls.length} polls  RSS ${m.rss} MB (peak ${m.peak} MB)`,
    );
  }
  await server.stop();
  cleanup();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
