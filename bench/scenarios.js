/*
 * The scenarios of `npm run bench`, each `run({ backend, url, s, verdicts })`
 * on one prepared database. Pairs go through harness.comparePairs; targets are reported through
 * verdicts.target (never fatal), wrong answers and lost updates through verdicts.fail (fatal).
 */
'use strict';
const path = require('node:path');
const {
  comparePairs,
  startServer,
  runLoad,
  printTable,
  median,
  basic,
  introspection: introspectionRequest,
  rating: ratingRequest,
  RATING_SUBSCRIBERS,
  settle,
  sleep,
} = require('./harness');
const data = require('./data');
const { locationList: locationListRequest } = require('./requests');
const { soak } = require('./soak');

const AUTH = basic(data.CLIENT.username, data.CLIENT.password);
const dist = (p) => require(path.join(__dirname, '..', 'dist', 'src', p));
/** The bench's own connection: unbounded statements, and waits up to 10 s for a busy SQLite writer. */
const openDb = (url) =>
  dist('db/knex').createKnex(url, { ...dist('db/knex').MAINTENANCE_DB_LIMITS, sqliteBusyTimeoutMs: 10_000 });
/** An exact integer (BIGINT micro-units, counts) from a driver value, as a bigint. */
const big = (v) => BigInt(String(v ?? 0));

/** Starts the named servers (`{ key: program }`) on `url`, runs `fn(servers)`, stops them. */
async function withServers(url, programs, fn, opts) {
  const servers = {};
  try {
    for (const [key, program] of Object.entries(programs))
      servers[key] = await startServer(program, url, opts);
    return await fn(servers);
  } finally {
    await stopServers(servers);
  }
}

/**
 * Stops the servers of `servers` (withServers' object) other than `keep` (all of them when it is
 * not given; a server stopped already stays stopped): withServers' end, and the baselines once
 * their comparison rounds are over, before the gateway's paced runs. An idle Node process pinned
 * to the server core still collects: V8's memory reducer ran three full collections (7-12 ms
 * each) in the bare handler 6-7 s after its last round, and the gateway on the same core waited
 * for them (stalls of 10-20 ms with no CPU of its own), which alone decided a paced run's p99
 * (docs/benchmarks.md "Paced runs beside idle baselines").
 */
async function stopServers(servers, keep) {
  await Promise.all(
    Object.values(servers)
      .filter((srv) => srv !== keep)
      .map((srv) => srv.stop()),
  );
}

/** The pair runner's options for this scenario: `rounds` unless BENCH_ROUNDS/BENCH_QUICK say otherwise. */
const pairOptions = (s, verdicts, rounds, extra = {}) => ({
  rounds: s.rounds ?? rounds,
  seconds: s.seconds,
  warmupSeconds: s.warmupSeconds,
  leadInSeconds: s.leadInSeconds,
  connections: s.connections,
  verdicts,
  ...extra,
});

/** Every load result of a comparePairs row (warm-up, lead-ins and rounds). */
const allResults = (rows) => rows.flatMap((r) => [r.warmup, ...r.leadIns, ...r.results].filter(Boolean));

/**
 * Rate-limited runs at `rate` req/s, paced evenly, 3 of them (BENCH_ROUNDS when set), judged
 * like the other targets by the median over runs: in one 10 s run, 1 % of the requests is what
 * arrives in 0.1 s, so a single stall of the machine that long decides that run's p99 alone.
 * `what` names the rate ("half of peak", "a fixed 250 req/s"); `maxP99` (ms) and `judgedOn`
 * (the backends the target is for) make it a target "p99 ≤ maxP99 ms at <what>": judged on
 * those backends, `n/a` on the others; without `maxP99` the p99 is a printed figure only.
 * Prints one row per run and the median; returns the load results.
 */
async function pacedRuns(
  scenario,
  backend,
  server,
  request,
  rate,
  s,
  verdicts,
  { what, maxP99, judgedOn = [] },
) {
  const runs = [];
  for (let i = 0; i < (s.rounds ?? 3); i++) {
    await settle();
    const r = await runLoad(server.base, request, {
      duration: s.seconds,
      connections: s.connections,
      overallRate: rate,
    });
    verdicts.checkLoad(scenario, `${what}, run ${i + 1}`, r);
    runs.push(r);
  }
  const p99 = median(runs.map((r) => r.p99));
  const m = server.memory();
  printTable(
    `${scenario} at ${what} (${backend}): ${rate} req/s paced evenly over ${s.connections} connections, ${runs.length} run(s) of ${s.seconds} s`,
    ['run', 'req/s', 'p50 ms', 'p99 ms', 'due with no connection free'],
    [
      ...runs.map((r, i) => [i + 1, Math.round(r.reqs), r.p50, r.p99, r.late ?? 0]),
      ['median', Math.round(median(runs.map((r) => r.reqs))), median(runs.map((r) => r.p50)), p99, ''],
    ],
  );
  console.log(`  ${server.program} RSS after them: ${m.rss} MB (peak ${m.peak})`);
  const detail = `median ${p99} ms at ${rate} req/s (runs: ${runs.map((r) => r.p99).join(', ')} ms)`;
  if (maxP99 === undefined) console.log(`  p99 at ${what} (figure, no target): ${detail}`);
  else {
    const judged = judgedOn.includes(backend);
    verdicts.target(
      scenario,
      `p99 ≤ ${maxP99} ms at ${what} (${judgedOn.join(', ')})`,
      judged ? p99 <= maxP99 : null,
      `${detail}${judged ? '' : ` (the target is for ${judgedOn.join(', ')})`}`,
    );
  }
  return runs;
}

/** pacedRuns at half of `peak` req/s. */
const halfPeak = (scenario, backend, server, request, peak, s, verdicts, target) =>
  pacedRuns(scenario, backend, server, request, Math.max(1, Math.round(peak / 2)), s, verdicts, {
    what: 'half of peak',
    ...target,
  });

/** The steady-load memory target (SQLite): the gateway's peak RSS after a scenario. */
function steadyMemory(scenario, backend, server, verdicts) {
  const { peak } = server.memory();
  verdicts.target(
    scenario,
    `gateway RSS ≤ 160 MB under steady load (${backend})`,
    backend === 'sqlite' ? peak <= 160 : null,
    `peak ${peak} MB`,
  );
}

/**
 * A ratio target `a ÷ b ≥ min` between two comparePairs rows, judged on the median of the
 * per-round ratios: round k of `a` against round k of `b`, which ran in the same round, minutes
 * closer in time than the rows' medians may be. This machine's slow spells (the same server
 * costing up to twice the CPU per request for tens of seconds) then fall on both sides of most
 * pairs instead of deciding the verdict. The ratio of the medians and the diagnostics (server
 * CPU, best rounds) are printed beside it. With `min` null the ratio is printed as a figure,
 * not judged.
 */
function ratioTarget(verdicts, scenario, backend, a, b, min) {
  const perRound = a.results.map((r, k) => r.reqs / b.results[k].reqs);
  const paired = median(perRound);
  const details = [
    `per-round ratios ${perRound.map((r) => r.toFixed(2)).join(', ')}`,
    `medians ${Math.round(a.reqs)} vs ${Math.round(b.reqs)} req/s, ${(a.reqs / b.reqs).toFixed(2)}×`,
  ];
  // The diagnostics of comparePairs rows (server CPU, best rounds) when both rows have them.
  if (a.cpuUs && b.cpuUs)
    details.push(
      `server CPU ${Math.round(a.cpuUs)} vs ${Math.round(b.cpuUs)} µs/req, ${(b.cpuUs / a.cpuUs).toFixed(2)}×`,
    );
  if (a.best && b.best) details.push(`best rounds ${(a.best / b.best).toFixed(2)}×`);
  if (min === null) {
    console.log(
      `  figure  ${a.name} ÷ ${b.name} (${backend}): ${paired.toFixed(2)}× (${details.join('; ')})`,
    );
    return;
  }
  verdicts.target(
    scenario,
    `${a.name} ≥ ${min}× ${b.name} (${backend})`,
    paired >= min,
    `${paired.toFixed(2)}× (${details.join('; ')})`,
  );
}

/**
 * One request sent once to `base` (a builder of bench/requests.js): its status and body, to see
 * what a variant answers before it is loaded.
 */
async function probe(base, request) {
  const built = require('./requests')[request.name](request.args);
  const res = await fetch(`${base}${built.path}`, {
    method: built.method,
    headers: built.headers,
    body: built.body,
  });
  return { status: res.status, body: await res.text() };
}

/**
 * Why the `/graphql` trusted-document variant cannot run on this build, or null when it can:
 * the dataset format has no `clients[].trustedDocuments` (bench/data.js then left the manifest
 * out), or the gateway answers the document's hash `PERSISTED_QUERY_NOT_FOUND` (it does not know
 * the client's trusted documents): both `n/a`. Any other wrong answer is a failure (fatal):
 * the build has trusted documents and they answer wrong.
 */
async function trustedUnavailable(base, request, verdicts) {
  if (!data.trustedDocumentsInData())
    return 'this build has no trusted documents (the dataset format has no clients[].trustedDocuments)';
  const { status, body } = await probe(base, request);
  if (body.includes('PERSISTED_QUERY_NOT_FOUND'))
    return `the gateway answers the trusted document's hash PERSISTED_QUERY_NOT_FOUND (HTTP ${status})`;
  const built = require('./requests')[request.name](request.args);
  const wrong = status === 200 ? built.check(body) : `HTTP ${status}`;
  if (!wrong) return null;
  const why = `a wrong answer to the trusted document: ${wrong}: ${body.slice(0, 200)}`;
  verdicts.fail('introspection', why);
  return why;
}

/**
 * The introspection rows' running order within a round (and back): the rows judged against each
 * other with the least margin run next to each other, seconds apart (REST JSON ≥ 0.75× lean,
 * trusted ≥ 0.8× REST JSON; REST XML ≥ 1.3× sofa-api). The table keeps the targets' order.
 */
const INTROSPECTION_RUN_ORDER = [
  'lean handler in a request scope',
  'lean handler',
  'REST JSON',
  '/graphql trusted document',
  '/graphql whole document',
  'REST XML',
  'sofa-api',
];

/**
 * Token introspection, one valid token of 1,000,000: REST JSON, the lean handler (the floor),
 * REST XML, sofa-api, /graphql with the whole document and /graphql with the trusted
 * document's hash (when the build has trusted documents), and the lean handler in a request
 * scope (a figure, no target), alternating; then REST at half of peak.
 */
async function introspection({ backend, url, s, verdicts }) {
  const request = introspectionRequest;
  const programs = { gateway: 'gateway', lean: 'lean', leanScoped: 'lean-scoped', sofa: 'sofa' };
  await withServers(url, programs, async (srv) => {
    const unavailable = await trustedUnavailable(srv.gateway.base, request('trusted'), verdicts);
    if (unavailable) console.log(`  /graphql trusted document not measured: ${unavailable}`);
    const targets = [
      { name: 'REST JSON', server: srv.gateway, request: request('rest') },
      { name: 'lean handler', server: srv.lean, request: request('rest') },
      { name: 'REST XML', server: srv.gateway, request: request('rest-xml') },
      { name: 'sofa-api', server: srv.sofa, request: request('sofa') },
      { name: '/graphql whole document', server: srv.gateway, request: request('graphql') },
      ...(unavailable
        ? []
        : [{ name: '/graphql trusted document', server: srv.gateway, request: request('trusted') }]),
      // A figure: what the request scope's promise hooks cost the lean handler (docs/benchmarks.md).
      { name: 'lean handler in a request scope', server: srv.leanScoped, request: request('rest') },
    ];
    const rows = await comparePairs(
      'introspection',
      `POST /token/introspect (${backend}, ${data.SIZES.tokens.toLocaleString('en')} tokens)`,
      targets,
      pairOptions(s, verdicts, 5, {
        fresh: s.freshServers,
        order: INTROSPECTION_RUN_ORDER.map((name) => targets.findIndex((t) => t.name === name)).filter(
          (i) => i >= 0,
        ),
      }),
    );
    const row = (name) => rows[targets.findIndex((t) => t.name === name)];
    const [json, lean, xml, sofa, graphql, trusted] = [
      'REST JSON',
      'lean handler',
      'REST XML',
      'sofa-api',
      '/graphql whole document',
      '/graphql trusted document',
    ].map(row);
    ratioTarget(verdicts, 'introspection', backend, graphql, json, 0.6);
    if (trusted) ratioTarget(verdicts, 'introspection', backend, trusted, json, 0.8);
    else
      verdicts.target(
        'introspection',
        `/graphql trusted document ≥ 0.8× REST JSON (${backend})`,
        null,
        `not measured: ${unavailable}`,
      );
    ratioTarget(verdicts, 'introspection', backend, json, lean, 0.75);
    ratioTarget(verdicts, 'introspection', backend, json, row('lean handler in a request scope'), null);
    for (const rest of [json, xml]) ratioTarget(verdicts, 'introspection', backend, rest, sofa, 1.3);
    await stopServers(srv, srv.gateway);
    await halfPeak('introspection', backend, srv.gateway, request('rest'), json.reqs, s, verdicts, {
      maxP99: 10,
      judgedOn: ['sqlite'],
    });
    steadyMemory('introspection', backend, srv.gateway, verdicts);
  });
}

/** Sum of the balances (micro-units, exact) of subscribers `first`…`first+count-1`. */
async function balanceSum(url, first, count) {
  const db = openDb(url);
  try {
    const msisdns = Array.from({ length: count }, (_, i) => data.msisdnOf(first + i));
    const rows = await db('subscribers').whereIn('msisdn', msisdns).select('balance_micros');
    return rows.reduce((sum, r) => sum + big(r.balance_micros), 0n);
  } finally {
    await db.destroy();
  }
}

/**
 * processRating: REST, the bare handler (same ChargingService transaction) and the GraphQL
 * mutation, alternating, over 1,000 prepaid subscribers with a new operationId per request;
 * then REST at half of peak. Afterwards no update may be lost: the balances fell by exactly
 * the sum of this run's successful ledger entries, which is exactly 0.12 × the answers 0.
 */
async function rating({ backend, url, s, verdicts }) {
  const run = `bench${Date.now()}`;
  const subscribers = RATING_SUBSCRIBERS;
  const request = (via, variant) => ratingRequest(via, `${run}-${variant}`);
  const before = await balanceSum(url, subscribers.first, subscribers.count);
  let charged = 0;
  let cutOff = 0;
  await withServers(url, { gateway: 'gateway', bare: 'bare' }, async (srv) => {
    const rows = await comparePairs(
      'rating',
      `POST /crs-api/processRating (${backend}, ${subscribers.count} subscribers in turn)`,
      [
        { name: 'REST', server: srv.gateway, request: request('rest', 'rest') },
        { name: 'bare Koa handler', server: srv.bare, request: request('rest', 'bare') },
        { name: 'GraphQL mutation', server: srv.gateway, request: request('graphql', 'graphql') },
      ],
      pairOptions(s, verdicts, 5),
    );
    ratioTarget(verdicts, 'rating', backend, rows[0], rows[1], 0.8);
    await stopServers(srv, srv.gateway);
    // p99 (issue 33): on SQLite at a fixed 250 req/s with group commit on (the default; half
    // of a group-commit peak is a rate the configuration without grouping cannot serve), the
    // half-of-peak p99 a printed figure; on MariaDB at half of its own peak.
    const paced = [];
    if (backend === 'sqlite')
      paced.push(
        ...(await pacedRuns('rating', backend, srv.gateway, request('rest', 'fixed'), 250, s, verdicts, {
          what: 'a fixed 250 req/s',
          maxP99: 10,
          judgedOn: ['sqlite'],
        })),
      );
    paced.push(
      ...(await halfPeak(
        'rating',
        backend,
        srv.gateway,
        request('rest', 'half'),
        rows[0].reqs,
        s,
        verdicts,
        backend === 'sqlite' ? {} : { maxP99: 15, judgedOn: ['mariadb'] },
      )),
    );
    steadyMemory('rating', backend, srv.gateway, verdicts);
    if (backend === 'mariadb') {
      await stopServers(srv);
      paced.push(...(await bareHalfPeak(url, request, rows[0].reqs, s, verdicts)));
    }
    const results = [...allResults(rows), ...paced];
    charged = results.reduce((n, r) => n + r.ok, 0);
    // A timed run ends with up to one request per connection in flight: the server charges it,
    // autocannon never counts its answer.
    cutOff = results.length * s.connections;
  });
  const after = await balanceSum(url, subscribers.first, subscribers.count);
  const db = openDb(url);
  let ledger;
  try {
    ledger = await db('charges')
      .where('operation_id', 'like', `${run}-%`)
      .andWhere({ return_code: 0, kind: 'charge' })
      .select(db.raw('COUNT(*) AS n'), db.raw('SUM(amount_micros) AS total'))
      .first();
  } finally {
    await db.destroy();
  }
  const { Money } = dist('lib/money');
  const price = Money.parse(data.RATING.retailPrice).add(Money.parse(data.RATING.tax));
  const change = before - after;
  const total = big(ledger.total);
  const entries = big(ledger.n);
  const fmt = (micros) => Money.fromMicros(micros).toString();
  const line = `${charged} answers 0 (+ at most ${cutOff} cut off in flight); ledger ${entries} charges totalling ${fmt(total)}; balances fell by ${fmt(change)}`;
  // Exact: the balances fell by exactly the ledger's sum, every ledger entry is one price, and
  // every answer 0 is in the ledger.
  if (
    change === total &&
    total === price.micros * entries &&
    entries >= BigInt(charged) &&
    entries <= BigInt(charged + cutOff)
  )
    console.log(`  no lost update: ${line}`);
  else verdicts.fail('rating', `LOST OR EXTRA UPDATE: ${line}`);
}

/**
 * The MariaDB rating tail without the gateway (a figure beside the target): the bare Koa handler
 * (the same rating transaction, bench/baselines.js) paced at the same half of the gateway's peak,
 * as a fresh process warmed up at peak for 10 s (`BENCH_WARMUP_SECONDS` in a quick run) with the
 * gateway stopped, so the two never share the server core. In 16 runs of each on one machine the
 * bare handler's p99 spread as the gateway's (docs/benchmarks.md "The rating tail without the
 * gateway"): what the gateway's p99 is beside this one says how much of a miss is the gateway's.
 * Returns the load results (their charges count in the ledger check).
 */
async function bareHalfPeak(url, request, peak, s, verdicts) {
  const bare = await startServer('bare', url);
  try {
    const warm = await runLoad(bare.base, request('rest', 'bare-warm'), {
      duration: s.quick ? s.warmupSeconds : 10,
      connections: s.connections,
    });
    verdicts.checkLoad('rating', 'bare handler warm-up', warm);
    const runs = await halfPeak('rating', 'mariadb', bare, request('rest', 'bare-half'), peak, s, verdicts, {
      what: 'half of the gateway’s peak, bare Koa handler',
    });
    verdicts.annotate(
      'rating',
      'p99 ≤ 15 ms at half of peak',
      `the bare handler at the same rate ${median(runs.map((r) => r.p99))} ms (runs: ${runs.map((r) => r.p99).join(', ')} ms; a figure)`,
    );
    return [warm, ...runs];
  } finally {
    await bare.stop();
  }
}

/**
 * GET /pcc/pcrf/locations with 10,000 locations on 1 connection: latency, SQL statements per
 * request (counted in the server by bench/query-counter.js) and the server's RSS after it.
 */
async function locations({ backend, url, s, verdicts }) {
  const request = { name: 'locationList', args: { auth: AUTH, count: data.SIZES.locations } };
  await withServers(
    url,
    { gateway: 'gateway' },
    async ({ gateway }) => {
      verdicts.checkLoad(
        'locations',
        'warm-up',
        await runLoad(gateway.base, request, { amount: 2, connections: 1 }),
      );
      const q0 = await gateway.queries();
      const amount = s.quick ? 5 : 30;
      const r = await runLoad(gateway.base, request, { amount, connections: 1 });
      verdicts.checkLoad('locations', 'list', r);
      const perRequest = ((await gateway.queries()) - q0) / amount;
      const m = gateway.memory();
      printTable(
        `GET /pcc/pcrf/locations (${backend}, ${data.SIZES.locations.toLocaleString('en')} locations, JSON): ${amount} requests, 1 connection`,
        ['req/s', 'p50 ms', 'p99 ms', 'MB/s', 'SQL statements / request', 'RSS MB after (peak)'],
        [
          [
            r.reqs.toFixed(1),
            r.p50,
            r.p99,
            (r.bytes / 1e6).toFixed(2),
            perRequest.toFixed(1),
            `${m.rss} (${m.peak})`,
          ],
        ],
      );
      verdicts.target('locations', `p50 ≤ 300 ms (${backend})`, r.p50 <= 300, `${r.p50} ms`);
      await revalidations(gateway, request, amount, backend, verdicts);
      verdicts.target(
        'locations',
        `≤ 5 SQL statements per request (${backend})`,
        perRequest <= 5,
        perRequest.toFixed(1),
      );
      verdicts.target(
        'locations',
        `RSS ≤ 200 MB after it (${backend})`,
        m.rss <= 200,
        `${m.rss} MB (peak ${m.peak})`,
      );
    },
    { countQueries: true },
  );
}

/**
 * The location list revalidated: `If-None-Match` with the list's current `ETag`, answered 304 with
 * no body (the tag comes from the tenant's data version, so the list is not read). Skipped when
 * the gateway sends no `ETag` (a build before HTTP caching).
 */
async function revalidations(gateway, request, amount, backend, verdicts) {
  const { headers } = locationListRequest(request.args);
  const res = await fetch(`${gateway.base}/pcc/pcrf/locations`, { headers });
  await res.arrayBuffer();
  const etag = res.headers.get('etag');
  if (!etag) return console.log('  (no ETag on the list: 304 not measured)');
  const conditional = { ...request, args: { ...request.args, ifNoneMatch: etag } };
  const q0 = await gateway.queries();
  const r = await runLoad(gateway.base, conditional, { amount: amount * 10, connections: 1 });
  verdicts.checkLoad('locations', '304', r);
  const perRequest = ((await gateway.queries()) - q0) / (amount * 10);
  printTable(
    `GET /pcc/pcrf/locations with a matching If-None-Match (${backend}): ${amount * 10} requests, 1 connection`,
    ['req/s', 'p50 ms', 'p99 ms', 'SQL statements / request'],
    [[r.reqs.toFixed(1), r.p50, r.p99, perRequest.toFixed(1)]],
  );
}

/** Spawn to the first 200 on /healthz on the existing database, median of several starts. */
async function startup({ backend, url, s, verdicts }) {
  const times = [];
  for (let i = 0; i < (s.quick ? 3 : 7); i++) {
    const srv = await startServer('gateway', url);
    times.push(Math.round(srv.startupMs));
    await srv.stop();
  }
  const m = median(times);
  printTable(
    `Start-up to the first 200 on /healthz (${backend}, existing database)`,
    ['median ms', 'each start ms'],
    [[m, times.join(', ')]],
  );
  verdicts.target('startup', `start-up ≤ 1 s (${backend})`, m <= 1000, `median ${m} ms`);
}

/** Donor plans the MariaDB 1/10/50-recipient comparison takes in turn (see donations()). */
const BUSY_DONOR_PLANS = 8;

/** The donor of plan `id` (subscribers 90,000…99,999) and its 1,000 recipients' first index. */
const donorOf = (id) => 90_000 + (id % 10_000);
// A window of 1,000 recipients per plan, so no recipient reaches MAX_PLANS_PER_SUBSCRIBER.
const recipientsOf = (id) => 10_000 + (id % 80) * 1000;

/**
 * A new donor plan (id: one above the highest, full `unitAmount` remaining) for donorOf(id),
 * through the project's dataset import. Returns its id.
 */
async function newDonorPlan(url) {
  // The gateway may still be writing the donations cut off when the last run ended: on SQLite a
  // transaction that read before the writer committed cannot upgrade to a write (SQLITE_BUSY at
  // once, whatever busy_timeout), so it is retried until the writer is done (30 s at most).
  for (let attempt = 0; ; attempt++) {
    try {
      return await insertDonorPlan(url);
    } catch (err) {
      if (!String(err.code).startsWith('SQLITE_BUSY') || attempt >= 150) throw err;
      await sleep(200);
    }
  }
}

/** One attempt of newDonorPlan. */
async function insertDonorPlan(url) {
  const db = openDb(url);
  try {
    const id = Number((await db('subscriber_plans').max({ m: 'id' }).first()).m ?? 0) + 1;
    await dist('dataset/import').importDataset(
      db,
      {
        subscriberPlans: [
          {
            tenant: data.TENANT,
            id,
            msisdn: data.msisdnOf(donorOf(id)),
            planDefinition: data.DONATION_PLAN.name,
            remaining: data.DONATION_PLAN.unitAmount,
          },
        ],
      },
      { nowMs: () => Date.now() },
    );
    return id;
  } finally {
    await db.destroy();
  }
}

/** Donations and granted amounts (bytes, exact) of a donor plan's current history. */
async function planHistory(url, planId) {
  const db = openDb(url);
  try {
    const granted = await db('donation_recipients as r')
      .join('donations as d', 'd.id', 'r.donation_id')
      .where('d.donor_plan_id', planId)
      .andWhere('r.error_code', 0)
      .select(db.raw('COUNT(*) AS n'), db.raw('SUM(r.granted) AS total'))
      .first();
    const plan = await db('subscriber_plans').where({ id: planId }).first();
    return { allowances: Number(granted.n), granted: big(granted.total), remaining: big(plan.remaining) };
  } finally {
    await db.destroy();
  }
}

/**
 * POST /sqs/api/donations from one plan with 1, 10 and 50 recipients per request (rotating over
 * 1,000), alternating: cost per extra recipient, no non-2xx at 50, and independence of history
 * (1 recipient from the plan with tens of thousands of allowances in its period vs from a plan
 * with an empty period, 5 rounds). Afterwards each plan's remaining + granted is conserved.
 */
async function donations({ backend, url, s, verdicts }) {
  const quota = 1000;
  const plans = [];
  const request = (planId, recipients) => ({
    name: 'donation',
    args: {
      auth: AUTH,
      tenant: data.TENANT,
      donorId: data.msisdnOf(donorOf(planId)),
      donorPlanId: planId,
      recipients,
      first: recipientsOf(planId),
      count: 1000,
      quota,
    },
  });
  const fresh = async () => {
    const id = await newDonorPlan(url);
    plans.push(id);
    return id;
  };
  const plan = await fresh();
  // On MariaDB the comparison spreads the donations over BUSY_DONOR_PLANS plans (the first one
  // `plan`), as many donors donate at once in service: from one plan they run one at a time (the
  // plan's lane and row lock), so the service time was that one queue's round trips. Eight plans
  // at once also exposed a lock every plan of one plan definition shared (fixed in 360dd97:
  // 1-recipient donations from 8 plans: 115 → 158/s). The verdict stays on the gateway's CPU per donation
  // (docs/benchmarks.md "Donations from eight plans at once (MariaDB)").
  const many = backend === 'mariadb';
  const comparedPlans = [plan];
  while (many && comparedPlans.length < BUSY_DONOR_PLANS) comparedPlans.push(await fresh());
  const compared = (k) => {
    if (!many) return request(plan, k);
    const plans = comparedPlans.map((id) => ({
      donorId: data.msisdnOf(donorOf(id)),
      donorPlanId: id,
      first: recipientsOf(id),
    }));
    return { name: 'donation', args: { ...request(plan, k).args, plans } };
  };
  const allowancesAtRound = [];
  await withServers(url, { gateway: 'gateway' }, async ({ gateway }) => {
    const rows = await comparePairs(
      'donations',
      `POST /sqs/api/donations (${backend}, ${many ? `${BUSY_DONOR_PLANS} donor plans in turn` : 'one donor plan'}, recipients rotating over 1,000 per plan)`,
      [1, 10, 50].map((k) => ({
        name: `${k} recipient${k > 1 ? 's' : ''}`,
        server: gateway,
        request: compared(k),
      })),
      pairOptions(s, verdicts, 3, {
        beforeRound: async () => allowancesAtRound.push((await planHistory(url, plan)).allowances),
      }),
    );
    // Service time per donation (ms) and cost per extra recipient, 1→10 and 10→50, of the
    // medians and of each round (the three rows of a round ran back to back).
    const perRecipient = (reqs) => {
      const ms = reqs.map((r) => 1000 / r);
      return { ms, extra10: (ms[1] - ms[0]) / 9, extra50: (ms[2] - ms[1]) / 40 };
    };
    const medians = perRecipient(rows.map((r) => r.reqs));
    const rounds = rows[0].results.map((_, k) => perRecipient(rows.map((r) => r.results[k].reqs)));
    console.log(
      `  service time per donation: ${medians.ms.map((m) => m.toFixed(2)).join(' / ')} ms; per extra recipient ${medians.extra10.toFixed(3)} ms (1→10), ${medians.extra50.toFixed(3)} ms (10→50); allowances in the period at each round's start: ${allowancesAtRound.join(', ')}`,
    );
    // The gateway's own CPU per donation (a diagnostic beside the verdict): on MariaDB one plan's
    // donations are bounded by their round trips in turn, not by the gateway's core, and the
    // service time above also holds MariaDB's work and its waits.
    const cpu = rows.map((r) => r.cpuUs / 1000);
    console.log(
      `  gateway CPU per donation: ${cpu.map((m) => m.toFixed(2)).join(' / ')} ms; per extra recipient ${((cpu[1] - cpu[0]) / 9).toFixed(3)} ms (1→10), ${((cpu[2] - cpu[1]) / 40).toFixed(3)} ms (10→50)`,
    );
    // Judged like the ratio targets (see ratioTarget): the median of the rounds' own ratios. On
    // SQLite of the service time; on MariaDB (issue 33) of the gateway's CPU per donation, the
    // service time there being one plan's row-lock queue and round trips, not the recipients'
    // cost: its ratio is a printed figure.
    const serviceRatios = rounds.map((r) => r.extra50 / r.extra10);
    const cpuRatios = rows[0].results.map((_, k) => {
      const c = rows.map((r) => r.results[k].cpuUs);
      return (c[2] - c[1]) / 40 / ((c[1] - c[0]) / 9);
    });
    const byCpu = backend === 'mariadb';
    const judged = byCpu ? cpuRatios : serviceRatios;
    const steady = median(judged);
    const shown = (ratios) => `per-round ratios ${ratios.map((r) => r.toFixed(2)).join(', ')}`;
    const other = byCpu ? serviceRatios : cpuRatios;
    console.log(
      `  per extra recipient, 10→50 ÷ 1→10 (figure): ${byCpu ? 'service time' : 'gateway CPU'} ${median(other).toFixed(2)}× (${shown(other)})`,
    );
    verdicts.target(
      'donations',
      `${byCpu ? 'gateway CPU' : 'cost'} per extra recipient roughly constant, 10→50 within 0.67–1.5× of 1→10 (${backend})`,
      steady >= 0.67 && steady <= 1.5,
      `${steady.toFixed(2)}× (${shown(judged)}${byCpu ? '' : `; of the medians ${(medians.extra50 / medians.extra10).toFixed(2)}×`})`,
    );
    verdicts.target(
      'donations',
      `no non-2xx at 50 recipients (${backend})`,
      allResults([rows[2]]).every((r) => r.bad === 0 && r.non2xx === 0),
      `${allResults([rows[2]]).reduce((n, r) => n + r.non2xx, 0)} non-2xx`,
    );
    const historyAllowances = (await planHistory(url, plan)).allowances;
    const empty = await fresh();
    const [withHistory, emptyPeriod] = await comparePairs(
      'donations',
      `1 recipient: plan with ${historyAllowances.toLocaleString('en')} allowances in its period vs a new plan (${backend})`,
      [
        { name: `plan with ${historyAllowances} allowances`, server: gateway, request: request(plan, 1) },
        { name: 'plan with an empty period', server: gateway, request: request(empty, 1) },
      ],
      // Five rounds, in turn forwards and back: one 10 s pair fell either way on slow spells
      // (0.82× and 1.14× in two runs the same evening).
      pairOptions(s, verdicts, 5, { warmupSeconds: 0 }),
    );
    ratioTarget(verdicts, 'donations', backend, withHistory, emptyPeriod, 0.9);
  });
  for (const id of plans) {
    const h = await planHistory(url, id);
    const total = h.remaining + h.granted;
    const line = `plan ${id}: remaining ${h.remaining} + granted ${h.granted} = ${total} bytes (started ${data.DONATION_PLAN.unitAmount}), ${h.allowances} allowances`;
    if (total === BigInt(data.DONATION_PLAN.unitAmount)) console.log(`  conserved: ${line}`);
    else verdicts.fail('donations', `NOT CONSERVED: ${line}`);
  }
}

/** Introspection with 1,000,000 stored tokens vs 10,000 (a second database), alternating. */
async function tokens({ backend, url, s, verdicts, prepare }) {
  const small = await prepare({ tokens: 10_000 });
  if (small.skipped) return console.log(`  skipped: ${small.skipped}`);
  const request = (n) => ({
    name: 'introspect',
    args: { via: 'rest', ...data.introspectedOf(n), auth: AUTH },
  });
  try {
    await withServers(url, { big: 'gateway' }, (big1) =>
      withServers(small.url, { small: 'gateway' }, async ({ small: smallServer }) => {
        const [many, few] = await comparePairs(
          'tokens',
          `POST /token/introspect, REST JSON (${backend}): 1,000,000 vs 10,000 stored tokens`,
          [
            { name: '1,000,000 tokens', server: big1.big, request: request(data.SIZES.tokens) },
            { name: '10,000 tokens', server: smallServer, request: request(10_000) },
          ],
          pairOptions(s, verdicts, 5),
        );
        ratioTarget(verdicts, 'tokens', backend, many, few, 0.9);
      }),
    );
  } finally {
    small.cleanup();
  }
}

/**
 * POST /token (REST JSON) over 1,000 subscribers in turn, SQLite with group commit on (the
 * default) and off, alternating (on MariaDB the gateway alone: it has no group commit). No
 * target: the figures show what grouping the token writes gives. Afterwards every token answered
 * is stored: the tokens table grew by the answers 201 plus at most the requests cut off in flight.
 */
async function tokenIssue({ backend, url, s, verdicts }) {
  const request = { name: 'tokenIssue', args: { auth: AUTH, first: 0, count: 1000 } };
  const countTokens = async () => {
    const db = openDb(url);
    try {
      return Number((await db('tokens').count({ n: '*' }).first()).n);
    } finally {
      await db.destroy();
    }
  };
  const before = await countTokens();
  let answered = 0;
  let runs = 0;
  const measure = async (servers) => {
    const rows = await comparePairs(
      'tokenIssue',
      `POST /token, REST JSON (${backend}, 1,000 subscribers in turn)`,
      servers.map(([name, server]) => ({ name, server, request })),
      pairOptions(s, verdicts, 3),
    );
    const results = allResults(rows);
    answered += results.reduce((n, r) => n + r.ok, 0);
    runs += results.length;
  };
  if (backend === 'sqlite') {
    await withServers(url, { grouped: 'gateway' }, (a) =>
      withServers(
        url,
        { single: 'gateway' },
        (b) =>
          measure([
            ['group commit (default)', a.grouped],
            ['SQLITE_GROUP_COMMIT=false', b.single],
          ]),
        { env: { SQLITE_GROUP_COMMIT: 'false' } },
      ),
    );
  } else {
    await withServers(url, { gateway: 'gateway' }, ({ gateway }) => measure([['gateway', gateway]]));
  }
  const stored = (await countTokens()) - before;
  const cutOff = runs * s.connections;
  const line = `${answered} answers 201 (+ at most ${cutOff} cut off in flight); ${stored} tokens stored`;
  if (stored >= answered && stored <= answered + cutOff)
    console.log(`  every answered token stored: ${line}`);
  else verdicts.fail('tokenIssue', `TOKENS LOST OR EXTRA: ${line}`);
}

/**
 * An OTLP/HTTP receiver that accepts every export and drops it (200, empty body: an empty
 * `ExportTraceServiceResponse` in protobuf and JSON alike), in the bench's own process, off the
 * gateway's core. Returns `{ endpoint, received(), close() }` (`received`: exports and bytes).
 */
async function otlpSink() {
  let exports = 0;
  let bytes = 0;
  const server = require('node:http').createServer((req, res) => {
    req.on('data', (chunk) => (bytes += chunk.length));
    req.on('end', () => {
      exports++;
      res.writeHead(200, { 'content-type': req.headers['content-type'] ?? 'application/x-protobuf' });
      res.end();
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${server.address().port}`,
    received: () => ({ exports, bytes }),
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

/**
 * What tracing and per-client rate limiting cost when on (issue 33; figures, no target: off is
 * the default configuration, measured by every other scenario): REST introspection (JSON) by
 * the default gateway, by a gateway with tracing on (`OTEL_EXPORTER_OTLP_ENDPOINT`, every
 * request sampled, the spans exported to {@link otlpSink}), and by the default gateway for the
 * API client with a per-client rate limit it never reaches (bench/data.js LIMITED_CLIENT,
 * counted in the gateway's memory), alternating; each vs the default as the median of the
 * per-round ratios of req/s, and of the server CPU per request.
 */
async function overheads({ backend, url, s, verdicts }) {
  const request = (auth) => ({
    name: 'introspect',
    args: { via: 'rest', ...data.introspectedOf(data.SIZES.tokens), auth },
  });
  const limitedAuth = basic(data.LIMITED_CLIENT.username, data.LIMITED_CLIENT.password);
  const sink = await otlpSink();
  try {
    await withServers(url, { gateway: 'gateway' }, (plain) =>
      withServers(
        url,
        { traced: 'gateway' },
        async ({ traced }) => {
          const [base, tracing, limited] = await comparePairs(
            'overheads',
            `POST /token/introspect, REST JSON (${backend}): tracing and rate limiting on`,
            [
              { name: 'default (tracing off, no rate limit)', server: plain.gateway, request: request(AUTH) },
              { name: 'tracing on, OTLP to a sink', server: traced, request: request(AUTH) },
              {
                name: 'client with a rate limit never reached',
                server: plain.gateway,
                request: request(limitedAuth),
              },
            ],
            pairOptions(s, verdicts, 5),
          );
          for (const row of [tracing, limited]) {
            const perRound = row.results.map((r, k) => r.reqs / base.results[k].reqs);
            const cpu = row.results.map((r, k) => r.cpuUs / base.results[k].cpuUs);
            console.log(
              `  figure: ${row.name} ÷ default: ${median(perRound).toFixed(2)}× req/s (per round ${perRound.map((r) => r.toFixed(2)).join(', ')}); server CPU per request ${median(cpu).toFixed(2)}× (${Math.round(row.cpuUs)} vs ${Math.round(base.cpuUs)} µs)`,
            );
          }
          const { exports, bytes } = sink.received();
          console.log(`  the OTLP sink received ${exports} exports, ${(bytes / 1e6).toFixed(1)} MB`);
          if (!exports) verdicts.fail('overheads', 'tracing on, yet the OTLP sink received no export');
        },
        { env: { OTEL_EXPORTER_OTLP_ENDPOINT: sink.endpoint, OTEL_TRACES_EXPORTER: 'otlp' } },
      ),
    );
  } finally {
    await sink.close();
  }
}

/** In the order they run; BENCH_ONLY selects by name. */
const SCENARIOS = {
  startup,
  introspection,
  overheads,
  tokens,
  tokenIssue,
  rating,
  donations,
  locations,
  soak: (ctx) => soak(ctx, { withServers, newDonorPlan, donorOf, recipientsOf }),
};

module.exports = { SCENARIOS };
