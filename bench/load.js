/*
 * The load generator process (started by harness.runLoad, pinned to its own core): runs
 * autocannon once with the request bench/requests.js builds and checks every answer: a non-2xx
 * status or a body the request's `check` refuses counts as `bad`, never as throughput. Prints
 * one JSON line: req/s, latency p50/p99 (ms), bytes/s, counts.
 * Usage: node bench/load.js '{"base":…,"request":{"name":…,"args":…},"opts":{…}}'
 */
'use strict';
const autocannon = require('autocannon');
const requests = require('./requests');

async function main() {
  const { base, request, opts } = JSON.parse(process.argv[2]);
  const { check, ...req } = requests[request.name](request.args);
  let ok = 0;
  let bad = 0;
  let badSample;
  const result = await autocannon({
    url: base,
    connections: opts.connections ?? 1,
    ...(opts.amount ? { amount: opts.amount } : { duration: opts.duration }),
    ...(opts.overallRate ? { overallRate: opts.overallRate } : {}),
    timeout: opts.timeoutSeconds ?? 30,
    requests: [
      {
        ...req,
        onResponse(status, body) {
          const wrong = status < 200 || status > 299 ? `HTTP ${status}` : check(body);
          if (wrong) {
            bad++;
            badSample ??= `${wrong}: ${String(body).slice(0, 300)}`;
          } else ok++;
        },
      },
    ],
  });
  process.stdout.write(
    `${JSON.stringify({
      reqs: result.requests.average,
      p50: result.latency.p50,
      p99: result.latency.p99,
      bytes: result.throughput.average,
      total: result.requests.total,
      ok,
      bad,
      badSample,
      non2xx: result.non2xx,
      errors: result.errors,
      timeouts: result.timeouts,
    })}\n`,
  );
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
