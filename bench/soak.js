/*
 * The soak scenario of `npm run bench`: minutes of a mixed load at half of its peak, with the
 * gateway's resident memory, open file descriptors and p99 sampled each minute and judged
 * (bench/README.md "Soak"). Not part of `npm test`.
 */
'use strict';
const fs = require('node:fs');
const { runLoad, printTable, settle, basic } = require('./harness');
const data = require('./data');
const { locationList } = require('./requests');

const AUTH = basic(data.CLIENT.username, data.CLIENT.password);

/** Minutes of paced load: `SOAK_MINUTES` (default 5; 1 with BENCH_QUICK). */
const soakMinutes = (s) => Number(process.env.SOAK_MINUTES ?? (s.quick ? 1 : 5));

/** Open file descriptors of a process (Linux /proc). */
const openFds = (pid) => fs.readdirSync(`/proc/${pid}/fd`).length;

/**
 * The mix, sent in turn on every connection: a token issued, the bench token introspected (REST
 * JSON), a rating, a one-recipient donation from `planId`, the location list revalidated with
 * its `ETag` (a 304; the full list when the gateway sends no tag) and the introspection as a
 * GraphQL query.
 */
function mixRequest(run, plan, etag) {
  const introspected = data.introspectedOf(data.SIZES.tokens);
  return {
    name: 'mix',
    args: {
      parts: [
        { name: 'tokenIssue', args: { auth: AUTH, first: 0, count: 1000 } },
        { name: 'introspect', args: { via: 'rest', ...introspected, auth: AUTH } },
        {
          name: 'rating',
          args: {
            via: 'rest',
            auth: AUTH,
            tenant: data.TENANT,
            first: 1000,
            count: 1000,
            opPrefix: run,
            lookup: data.RATING_LOOKUP,
          },
        },
        {
          name: 'donation',
          args: {
            auth: AUTH,
            tenant: data.TENANT,
            donorId: data.msisdnOf(plan.donor),
            donorPlanId: plan.id,
            recipients: 1,
            first: plan.recipientsFirst,
            count: 1000,
            quota: 1000,
          },
        },
        {
          name: 'locationList',
          args: { auth: AUTH, count: data.SIZES.locations, ...(etag ? { ifNoneMatch: etag } : {}) },
        },
        { name: 'introspect', args: { via: 'graphql', ...introspected, auth: AUTH } },
      ],
    },
  };
}

/** The location list's current `ETag` on `gateway`, or null. */
async function locationEtag(gateway) {
  const { headers } = locationList({ auth: AUTH, count: data.SIZES.locations });
  const res = await fetch(`${gateway.base}/pcc/pcrf/locations`, { headers });
  await res.arrayBuffer();
  return res.headers.get('etag');
}

/**
 * Judges the minute samples: end RSS ≤ 1.15× the first minute's, descriptors flat (last ≤ first
 * + 5), p99 of the last minute ≤ 2× the second minute's (n/a with fewer than 3 minutes).
 */
function judge(samples, backend, verdicts) {
  const first = samples[0];
  const last = samples[samples.length - 1];
  verdicts.target(
    'soak',
    `end RSS ≤ 1.15× the first minute's (${backend})`,
    last.rss <= 1.15 * first.rss,
    `${last.rss} MB vs ${first.rss} MB (${(last.rss / first.rss).toFixed(2)}×)`,
  );
  verdicts.target(
    'soak',
    `open descriptors flat, last ≤ first + 5 (${backend})`,
    last.fds <= first.fds + 5,
    `${last.fds} vs ${first.fds}`,
  );
  const second = samples[1];
  verdicts.target(
    'soak',
    `p99 of the last minute ≤ 2× the second's (${backend})`,
    samples.length >= 3 ? last.p99 <= 2 * second.p99 : null,
    samples.length >= 3
      ? `${last.p99} ms vs ${second.p99} ms (${(last.p99 / second.p99).toFixed(2)}×)`
      : `needs 3 minutes or more, ran ${samples.length}`,
  );
}

/**
 * The soak: the mix's peak measured unpaced (BENCH_SECONDS), then `SOAK_MINUTES` one-minute runs
 * paced evenly at half of it; after each minute the gateway's RSS (`VmRSS`, peak `VmHWM`) and open
 * descriptors (`/proc/<pid>/fd`) are read, and the minute's p50/p99 kept. Every answer is checked.
 * `helpers`: `withServers`, `newDonorPlan`, `donorOf` and `recipientsOf` of bench/scenarios.js.
 */
async function soak({ backend, url, s, verdicts }, { withServers, newDonorPlan, donorOf, recipientsOf }) {
  const minutes = soakMinutes(s);
  const id = await newDonorPlan(url);
  const plan = { id, donor: donorOf(id), recipientsFirst: recipientsOf(id) };
  await withServers(url, { gateway: 'gateway' }, async ({ gateway }) => {
    const etag = await locationEtag(gateway);
    const run = `soak${Date.now()}`;
    const request = (part) => mixRequest(`${run}-${part}`, plan, etag);
    const peak = await runLoad(gateway.base, request('peak'), {
      duration: s.seconds,
      connections: s.connections,
    });
    verdicts.checkLoad('soak', 'peak', peak);
    const rate = Math.max(1, Math.round(peak.reqs / 2));
    console.log(
      `  peak of the mix: ${Math.round(peak.reqs)} req/s (p99 ${peak.p99} ms); soak at ${rate} req/s for ${minutes} min${etag ? '' : ' (no ETag: full location lists)'}`,
    );
    const samples = [];
    for (let m = 1; m <= minutes; m++) {
      await settle();
      const r = await runLoad(gateway.base, request(`m${m}`), {
        duration: 60,
        connections: s.connections,
        overallRate: rate,
      });
      verdicts.checkLoad('soak', `minute ${m}`, r);
      const mem = gateway.memory();
      samples.push({ minute: m, ...mem, fds: openFds(gateway.pid), ...r });
      console.log(`  minute ${m}: RSS ${mem.rss} MB, ${samples.at(-1).fds} fds, p99 ${r.p99} ms`);
    }
    printTable(
      `soak (${backend}): mix at ${rate} req/s (half of ${Math.round(peak.reqs)}) paced evenly over ${s.connections} connections, ${minutes} × 60 s`,
      ['minute', 'req/s', 'p50 ms', 'p99 ms', 'due with no connection free', 'RSS MB (peak)', 'open fds'],
      samples.map((x) => [
        x.minute,
        Math.round(x.reqs),
        x.p50,
        x.p99,
        x.late ?? 0,
        `${x.rss} (${x.peak})`,
        x.fds,
      ]),
    );
    judge(samples, backend, verdicts);
  });
}

module.exports = { soak };
