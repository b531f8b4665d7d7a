#!/usr/bin/env node
/*
 * GraphQL limits (issue 10 item 1): seeds 10,000 locations with 2 rates, 10 location infos and
 * 1 profile each into a throwaway SQLite database, starts the built service in a child process,
 * sends the issue's item-1 query, the same query one level shallower and the heaviest allowed
 * operations, polling /healthz meanwhile, and reads the server's peak RSS (VmHWM) after each.
 * Run: npm run build && node bench/graphql-limits.js [locations=10000] [infosPerLocation=10]
 */
'use strict';
const fs = require('node:fs');
const { performance } = require('node:perf_hooks');
const { seedLocations, startServer, basic } = require('./harness');

const N = Number(process.argv[2] || 10000);
const INFOS = Number(process.argv[3] || 10);

/** Peak and current resident set of a process, in MB (Linux /proc). */
function rss(pid) {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)[1]);
  return { peak: Math.round(kb('VmHWM') / 1024), now: Math.round(kb('VmRSS') / 1024) };
}

const CASES = [
  [
    'item-1 query',
    '{ locations(first: 500) { edges { node { name infos { name value type { name } location { name infos { name value location { name infos { name } } } } } } } } }',
  ],
  [
    'item-1, one level less',
    '{ locations(first: 500) { edges { node { name infos { name value type { name } location { name infos { name value location { name } } } } } } } }',
  ],
  [
    'locationList + rates (cost 34,001)',
    '{ locationList { id name description rates { id name description locationRate } } }',
  ],
  [
    'locations(first: 500) + rates + profiles',
    '{ locations(first: 500) { edges { node { id name description rates { id name description locationRate } profiles { id name description } } } } }',
  ],
  [
    'locations(first: 16) + infos, type, location',
    '{ locations(first: 16) { edges { node { name infos { name value type { name } location { name } } } } } }',
  ],
  [
    'refused: first 20, infos → location → infos',
    '{ locations(first: 20) { edges { node { name infos { name location { name infos { name } } } } } } }',
  ],
];

async function main() {
  const t0 = Date.now();
  const { url, cleanup } = await seedLocations(N, INFOS);
  console.log(
    `seeded ${N} locations × (2 rates, ${INFOS} infos, 1 profile) in ${((Date.now() - t0) / 1000).toFixed(1)} s`,
  );
  const { base, pid, stop } = await startServer(url);
  const headers = { authorization: basic('bench', 'bench-password'), 'content-type': 'application/json' };
  console.log(`idle server RSS ${rss(pid).now} MB`);
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
    const m = rss(pid);
    console.log(
      `${name.padEnd(52)} HTTP ${status} ${outcome.padEnd(30)} ${String(ms).padStart(5)} ms ${(text.length / 1e6).toFixed(1).padStart(5)} MB  /healthz max ${Math.round(Math.max(0, ...polls))} ms over ${polls.length} polls  RSS ${m.now} MB (peak ${m.peak} MB)`,
    );
  }
  stop();
  cleanup();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
