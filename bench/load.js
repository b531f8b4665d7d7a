/*
 * The load generator process (started by harness.runLoad, pinned to its own core): runs
 * autocannon once with the request bench/requests.js builds and checks every answer: a non-2xx
 * status or a body the request's `check` refuses counts as `bad`, never as throughput. Prints
 * one JSON line: req/s, latency p50/p99 (ms), bytes/s, counts.
 *
 * `opts.overallRate` paces requests evenly (see pacer below) instead of autocannon's own rate
 * option, which lets every connection send its whole per-second quota back to back at the start
 * of each second: at "half of peak" that is full load for half a second, then silence, and its
 * latencies are those of a saturated server.
 * A mix (requests.mix) sends its parts in turn on every connection.
 * Usage: node bench/load.js '{"base":…,"request":{"name":…,"args":…},"opts":{…}}'
 */
'use strict';
const { performance } = require('node:perf_hooks');
const { setInterval, clearInterval } = require('node:timers');
const autocannon = require('autocannon');
const requests = require('./requests');

/**
 * An open-loop pacer for `rate` requests per second over autocannon's connections: a request is
 * due every 1/rate s (counted from the start, so a late tick sends what is due at once); a
 * connection that has its answer waits in a FIFO queue for the next due request. Works through
 * autocannon's `setupClient` hook by wrapping the client's `_doRequest` (autocannon 9.0.0,
 * pinned by the lock file). `late` counts due requests that found no connection free (a sign
 * that the server no longer keeps up at this rate).
 */
function pacer(rate) {
  const waiting = [];
  let started;
  let sent = 0;
  let late = 0;
  let timer;
  const tick = () => {
    const due = Math.floor(((performance.now() - started) / 1000) * rate) - sent;
    for (let i = 0; i < due; i++) {
      const send = waiting.shift();
      if (!send) {
        late += due - i;
        sent += due - i;
        return;
      }
      sent++;
      send();
    }
  };
  return {
    setupClient(client) {
      const doRequest = client._doRequest;
      client._doRequest = function (...args) {
        if (this.destroyed) return;
        if (timer === undefined) {
          started = performance.now();
          timer = setInterval(tick, 1);
        }
        waiting.push(() => !this.destroyed && doRequest.apply(this, args));
      };
    },
    stop() {
      clearInterval(timer);
    },
    get late() {
      return late;
    },
  };
}

/** Response headers (autocannon gives them as sent: `{ name: value }`) with names in lower case. */
const lowerCase = (headers) =>
  Object.fromEntries(Object.entries(headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]));

async function main() {
  const { base, request, opts } = JSON.parse(process.argv[2]);
  const built = requests[request.name](request.args);
  let ok = 0;
  let bad = 0;
  let badSample;
  // One autocannon request per part of a mix (sent in turn on each connection), else the one.
  // `checkHeaders(headers)` (names in lower case), when a request has it, judges the headers too.
  const parts = (built.sequence ?? [built]).map(({ check, checkHeaders, expectStatus, ...req }) => ({
    ...req,
    onResponse(status, body, _context, headers) {
      const unexpected = expectStatus ? status !== expectStatus : status < 200 || status > 299;
      const wrong = unexpected
        ? `HTTP ${status}`
        : (check(body) ?? (checkHeaders ? checkHeaders(lowerCase(headers)) : null));
      if (wrong) {
        bad++;
        badSample ??= `${req.method} ${req.path}: ${wrong}: ${String(body).slice(0, 300)}`;
      } else ok++;
    },
  }));
  const paced = opts.overallRate ? pacer(opts.overallRate) : undefined;
  const result = await autocannon({
    url: base,
    connections: opts.connections ?? 1,
    ...(opts.amount ? { amount: opts.amount } : { duration: opts.duration }),
    ...(paced ? { setupClient: paced.setupClient } : {}),
    timeout: opts.timeoutSeconds ?? 30,
    requests: parts,
  });
  paced?.stop();
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
      ...(paced ? { late: paced.late } : {}),
    })}\n`,
  );
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
