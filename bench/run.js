#!/usr/bin/env node
/*
 * `npm run bench`: builds nothing itself (the npm script builds first),
 * prepares the data on SQLite and MariaDB (bench/data.js), runs the scenarios of
 * bench/scenarios.js on each, prints one table per scenario and which targets hold.
 * Exit code 1 when any request failed, any body was wrong or an update was lost; a target not
 * held is reported, not fatal. Knobs: bench/README.md.
 */
'use strict';
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { DIST, settings, Verdicts } = require('./harness');
const { prepareDatabase } = require('./data');
const { SCENARIOS } = require('./scenarios');

/** The machine line the README keeps with the figures. */
function machine() {
  const nproc = execFileSync('nproc', { encoding: 'utf8' }).trim();
  const memGiB = (os.totalmem() / 2 ** 30).toFixed(1);
  const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
  return `${new Date().toISOString()}; nproc ${nproc}; ${memGiB} GiB; ${cpu}; Node ${process.version}; load average ${os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}`;
}

async function main() {
  if (!fs.existsSync(path.join(DIST, 'main.js')))
    throw new Error('dist/ is missing: run `npm run build` first');
  const s = settings();
  const unknown = s.only.filter((name) => !SCENARIOS[name]);
  if (unknown.length)
    throw new Error(
      `BENCH_ONLY: unknown scenario(s) ${unknown.join(', ')}; known: ${Object.keys(SCENARIOS).join(', ')}`,
    );
  const knobs = Object.entries(process.env)
    .filter(([k]) => k.startsWith('BENCH_'))
    .map(([k, v]) => `${k}=${v}`);
  console.log(`Subscriber Gateway benchmark — ${machine()}`);
  console.log(
    `command: ${[...knobs, 'npm run bench'].join(' ')}${s.quick ? ' (quick mode: figures not comparable)' : ''}`,
  );
  const verdicts = new Verdicts();
  for (const backend of s.backends) {
    console.log(`\n######## ${backend}`);
    const prepare = (sizes) => prepareDatabase(backend, { sizes, mariadbUrl: s.mariadbUrl });
    const db = await prepare();
    if (db.skipped) {
      console.log(`skipped ${backend}: ${db.skipped}`);
      continue;
    }
    try {
      for (const [name, run] of Object.entries(SCENARIOS)) {
        if (!s.only.includes(name)) continue;
        console.log(`\n=== ${name} (${backend})`);
        try {
          await run({ backend, url: db.url, s, verdicts, prepare });
        } catch (err) {
          verdicts.fail(name, `${backend}: ${err.stack ?? err}`);
        }
      }
    } finally {
      db.cleanup();
    }
  }
  process.exitCode = verdicts.summary();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
