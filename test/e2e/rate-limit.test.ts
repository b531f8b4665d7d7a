import net from 'node:net';
import { Dataset } from '../../src/dataset/dataset.schema';
import { importDataset } from '../../src/dataset/import';
import { TestApp, TestResponse, startTestApp } from '../helpers/app';
import { baseDataset } from '../helpers/fixtures';
import { subscribe, wsClient } from '../helpers/graphql-ws';
import { basic } from '../helpers/fixtures';

/*
 * Per-client rate limits (docs/operations.md "Rate limits"). The Redis tests use TEST_REDIS_URL,
 * default redis://127.0.0.1:6379, with a key prefix of their own; they are skipped, with the
 * reason printed, when that Redis is unreachable, unless TEST_REDIS_URL is set (CI sets it after
 * starting Redis: .ci/run), which makes it a failure.
 */
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const RUN = `test:rl:${process.pid}-${Date.now()}`;

/** True when a TCP connection to the Redis of {@link REDIS_URL} opens within 500 ms. */
function redisReachable(): Promise<boolean> {
  const { hostname, port } = new URL(REDIS_URL);
  return new Promise((resolve) => {
    const socket = net.connect({ host: hostname, port: Number(port || 6379), timeout: 500 });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
    socket.once('timeout', () => done(false));
  });
}

/**
 * The base fixture with limits: `admin` 5 requests per second with a burst of 5, `pcrf` 1 with a
 * burst of 1; tenant `rival` a default of 1 per second with a burst of 2 (`rival` has none of its own).
 */
function dataset(): Dataset {
  const ds = baseDataset();
  ds.tenants = [{ name: 'acme' }, { name: 'rival', rateLimit: { requestsPerSecond: 1, burst: 2 } }];
  for (const c of ds.clients!) {
    if (c.username === 'admin') c.rateLimit = { requestsPerSecond: 5, burst: 5 };
    if (c.username === 'pcrf') c.rateLimit = { requestsPerSecond: 1, burst: 1 };
  }
  return ds;
}

/** Request `i` of a storm of `who`: a GraphQL query, a token introspection (oauth) or a rating (plain). */
function stormRequest(app: TestApp, who: string, i: number): Promise<TestResponse> {
  const as = { auth: basic(who), json: true };
  if (i % 3 === 0) return app.request('POST', '/graphql', { ...as, body: { query: '{ __typename }' } });
  if (i % 3 === 1) return app.request('POST', '/token/introspect', { ...as, body: { token: 'unknown' } });
  return app.request('POST', '/crs-api/processRating', { ...as, body: {} });
}

const metric = async (app: TestApp, line: RegExp): Promise<number> =>
  Number(line.exec((await app.request('GET', '/metrics')).text)?.[1] ?? 0);

/** Checks one 429 of the storm: headers on every interface, and the body of its interface. */
function expectRefusal(res: TestResponse, i: number): void {
  expect(res.status).toBe(429);
  const retryAfter = Number(res.headers.get('retry-after'));
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(res.headers.get('ratelimit-policy')).toBe('"default";q=5;w=1');
  expect(res.headers.get('ratelimit')).toBe(`"default";r=0;t=${retryAfter}`);
  const body = res.json();
  if (i % 3 === 0) {
    const errors = body.errors as { extensions: Record<string, unknown> }[];
    expect(errors[0].extensions).toEqual({ code: 'TOO_MANY_REQUESTS', retryAfter });
  } else if (i % 3 === 1)
    expect(body).toEqual({ error: 'unauthorized', error_description: 'rate limit exceeded, retry later' });
  else expect(body).toEqual({ errorCode: 1, message: 'rate limit exceeded, retry later' });
}

describe('per-client rate limits shared through Redis', () => {
  let redisUp = false;
  let a: TestApp | undefined;
  let b: TestApp | undefined;
  beforeAll(async () => {
    redisUp = await redisReachable();
    if (!redisUp && process.env.TEST_REDIS_URL) throw new Error(`TEST_REDIS_URL ${REDIS_URL} is unreachable`);
    if (!redisUp) {
      console.warn(`rate-limit tests through Redis skipped: ${REDIS_URL} is unreachable`);
      return;
    }
    // A generous Redis wait: a loaded test machine must not make the limiter fail open here.
    const env = { REDIS_URL, RATE_LIMIT_KEY_PREFIX: `${RUN}:shared`, RATE_LIMIT_REDIS_TIMEOUT_MS: '2000' };
    a = await startTestApp({ dataset: dataset(), env });
    b = await startTestApp({ sameDatabaseAs: a, env });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it('40 requests at once across two gateways, 5 per second with a burst of 5: at most about 9 answered, the rest 429', async () => {
    if (!redisUp) return;
    // Warm both gateways (compiled rows, admin's verified password), then let admin's window pass:
    // the storm itself must take well under a second for the count to mean something.
    for (const app of [a!, b!]) {
      for (let i = 0; i < 3; i++) await stormRequest(app, 'portal', i);
      await stormRequest(app, 'admin', 0);
    }
    await new Promise((r) => setTimeout(r, 1100));
    const storm = await Promise.all(
      Array.from({ length: 40 }, (_, i) => stormRequest(i % 2 ? a! : b!, 'admin', i)),
    );
    const answered = storm.filter((r) => r.status !== 429);
    expect(answered.length).toBeGreaterThanOrEqual(1);
    expect(answered.length).toBeLessThanOrEqual(9);
    for (const r of answered) expect(r.status).toBeLessThan(500);
    storm.forEach((r, i) => r.status === 429 && expectRefusal(r, i));
    // The other client of the same tenant is unaffected, on both gateways.
    for (const app of [a!, b!])
      for (let i = 0; i < 3; i++) expect((await stormRequest(app, 'portal', i)).status).not.toBe(429);
    const refused =
      (await metric(a!, /^rate_limited_requests_total\{client="admin"\} (\d+)/m)) +
      (await metric(b!, /^rate_limited_requests_total\{client="admin"\} (\d+)/m));
    expect(refused).toBe(40 - answered.length);
    expect(await metric(a!, /^rate_limit_fail_open_total (\d+)/m)).toBe(0);
  });

  it("a tenant's default limit applies to its clients without one of their own", async () => {
    if (!redisUp) return;
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await stormRequest(i % 2 ? a! : b!, 'rival', 1)).status);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(1);
    expect(statuses.filter((s) => s !== 429).length).toBeLessThanOrEqual(2);
  });

  it('refuses a subscription connect over the limit with close code 4429', async () => {
    if (!redisUp) return;
    // pcrf may send one request per second: the HTTP request takes it, the connect is refused.
    expect(
      (await a!.request('POST', '/graphql', { as: 'pcrf', body: { query: '{ __typename }' } })).status,
    ).toBe(200);
    const closes: { code: number; reason: string }[] = [];
    const ws = wsClient(b!, basic('pcrf'), closes);
    const s = subscribe(ws, 'subscription { __typename }', {});
    await expect(s.ended).rejects.toBeDefined();
    await ws.dispose();
    expect(closes[0]).toEqual({ code: 4429, reason: 'Rate limit exceeded' });
  });
});

describe('per-client rate limits when Redis is unreachable', () => {
  let app: TestApp;
  beforeAll(async () => {
    // Port 1: nothing listens there, connections are refused at once.
    app = await startTestApp({
      dataset: dataset(),
      env: { REDIS_URL: 'redis://127.0.0.1:1', RATE_LIMIT_KEY_PREFIX: RUN },
    });
  });
  afterAll(() => app.close());

  it('fails open: every request is served, none gets a 5xx, and each is counted', async () => {
    const storm = await Promise.all(Array.from({ length: 12 }, (_, i) => stormRequest(app, 'admin', i)));
    for (const r of storm) {
      expect(r.status).not.toBe(429);
      expect(r.status).toBeLessThan(500);
    }
    expect(await metric(app, /^rate_limit_fail_open_total (\d+)/m)).toBe(12);
  });
});

describe('per-client rate limits counted in-process (no REDIS_URL)', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ dataset: dataset() });
  });
  afterAll(() => app.close());

  it('answers the burst and refuses the rest with 429 and the RateLimit headers', async () => {
    for (let i = 0; i < 3; i++) await stormRequest(app, 'portal', i);
    await stormRequest(app, 'admin', 0);
    await new Promise((r) => setTimeout(r, 1100));
    const storm = await Promise.all(Array.from({ length: 20 }, (_, i) => stormRequest(app, 'admin', i)));
    expect(storm.filter((r) => r.status !== 429)).toHaveLength(5);
    storm.forEach((r, i) => r.status === 429 && expectRefusal(r, i));
    expect((await stormRequest(app, 'portal', 0)).status).toBe(200);
  });

  it('lets the client in again once its window has passed', async () => {
    const first = await stormRequest(app, 'pcrf', 0);
    expect(first.status).toBe(200);
    const refused = await stormRequest(app, 'pcrf', 0);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('ratelimit-policy')).toBe('"default";q=1;w=1');
    await new Promise((r) => setTimeout(r, Number(refused.headers.get('retry-after')) * 1000 + 50));
    expect((await stormRequest(app, 'pcrf', 0)).status).toBe(200);
  });

  it('is set, kept and removed by a dataset import; a bad one is rejected whole', async () => {
    const db = app.tdb.db;
    const pcrf = dataset().clients!.find((c) => c.username === 'pcrf')!;
    const row = () =>
      db('api_clients').where({ username: 'pcrf' }).first('rate_limit_rps', 'rate_limit_burst');
    const bad = { clients: [{ ...pcrf, rateLimit: { requestsPerSecond: 0, burst: 1 } }] };
    await expect(importDataset(db, bad, app.clock)).rejects.toMatchObject({
      path: expect.stringContaining('rateLimit'),
    });
    expect(await row()).toEqual({ rate_limit_rps: 1, rate_limit_burst: 1 });
    const withoutLimit = { ...pcrf, rateLimit: undefined };
    await importDataset(db, { clients: [withoutLimit] }, app.clock);
    expect(await row()).toEqual({ rate_limit_rps: 1, rate_limit_burst: 1 });
    await importDataset(db, { clients: [{ ...pcrf, rateLimit: null }] }, app.clock);
    expect(await row()).toEqual({ rate_limit_rps: null, rate_limit_burst: null });
  });
});
