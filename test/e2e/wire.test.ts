import fc from 'fast-check';
import { TestApp, startTestApp } from '../helpers/app';
import { dumpTables } from '../helpers/db';

describe('wire conventions and system endpoints (CONTRACT §1, §8)', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(() => app.close());

  it('GET /healthz reports the version; /readyz pings the database; both public', async () => {
    const health = await app.request('GET', '/healthz', { json: true });
    expect(health.status).toBe(200);
    expect(health.json()).toEqual({ status: 'ok', version: require('../../package.json').version });
    const ready = await app.request('GET', '/readyz', { json: true });
    expect(ready.status).toBe(200);
    expect(ready.json()).toEqual({ status: 'ready' });
    expect((await app.request('GET', '/healthz')).xml()).toEqual({
      status: 'ok',
      version: expect.any(String),
    });
  });

  it('GET /metrics exposes Prometheus metrics including request durations', async () => {
    await app.request('GET', '/healthz');
    const res = await app.request('GET', '/metrics');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(res.text).toMatch(
      /http_request_duration_seconds_count\{method="GET",route="\/healthz",status="200"\} \d+/,
    );
    // Transactions rerun after a deadlock or Galera certification conflict, from zero.
    expect(res.text).toMatch(/db_transaction_retries_total\{reason="deadlock"\} \d+/);
  });

  it('404 and 405 with legacy bodies in the negotiated format', async () => {
    const missing = await app.request('GET', '/no/such/path', { json: true });
    expect(missing.status).toBe(404);
    expect(missing.json()).toEqual({ errorCode: 1, message: 'no such path' });
    expect((await app.request('GET', '/no/such/path')).xml()).toEqual({
      errorCode: '1',
      message: 'no such path',
    });
    const wrongMethod = await app.request('GET', '/token', { json: true });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toContain('POST');
    expect(wrongMethod.json()).toEqual({ errorCode: 1, message: 'method GET not allowed here' });
  });

  it('every response carries x-request-id', async () => {
    for (const [method, path] of [
      ['GET', '/healthz'],
      ['GET', '/nope'],
      ['POST', '/token'],
      ['POST', '/graphql'],
    ]) {
      const res = await app.request(method, path, method === 'POST' ? { body: {} } : {});
      expect(res.headers.get('x-request-id')).toBeTruthy();
    }
  });

  it('hostile bodies never produce a 500 or a stack trace, and change nothing', async () => {
    const before = await dumpTables(app.tdb.db, ['tokens', 'api_clients', 'subscribers']);
    const value = fc.oneof(
      fc.string(),
      fc.string({ unit: 'binary' }),
      fc.integer(),
      fc.double(),
      fc.boolean(),
      fc.constant(null),
      fc.array(fc.string(), { maxLength: 3 }),
      fc.dictionary(fc.string(), fc.string(), { maxKeys: 3 }),
      fc.constantFrom(
        '__proto__',
        'constructor',
        '<x>&amp;]]>',
        '\u0000',
        'password',
        '+',
        '1'.repeat(10_000),
      ),
    );
    const body = fc.record(
      { grant_type: value, client_id: value, token: value, __proto__: value, constructor: value },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('/token', '/token/introspect'),
        body,
        fc.boolean(),
        async (path, b, json) => {
          // `grant_type` never equals client_credentials here, and random tokens never match: nothing may be written.
          if (b.grant_type === 'client_credentials') return;
          const res = await app.request('POST', path, { as: 'portal', json, body: b });
          expect([200, 400]).toContain(res.status);
          expect(res.text).not.toMatch(/Error:|\bat .*:\d+:\d+|stack/);
          if (!json) res.xml();
        },
      ),
      { numRuns: 150 },
    );
    const rawBodies = [
      '{"a":1',
      '\u0000\u0001',
      '{"__proto__":{"polluted":1}}',
      '{"constructor":{"prototype":{"x":1}}}',
      '\xff\xfe',
      '{}'.repeat(5000),
      ' ',
    ];
    for (const raw of rawBodies) {
      const res = await app.request('POST', '/token', {
        as: 'portal',
        json: true,
        raw,
        headers: { 'content-type': 'application/json' },
      });
      expect(res.status).toBe(400);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    }
    expect(await dumpTables(app.tdb.db, ['tokens', 'api_clients', 'subscribers'])).toEqual(before);
  });

  it('hostile headers never produce a 500', async () => {
    const headers: Record<string, string>[] = [
      { authorization: 'Basic ' + 'A'.repeat(20_000) },
      { authorization: 'Basic ' + Buffer.from('\u0000:\u0000').toString('base64') },
      { authorisation: 'Basic', authorization: 'Basic' },
      { accept: ';;;q=abc,,,*/*;q=2' },
      { 'content-type': 'application/json; charset=klingon' },
      { tenant: 'x'.repeat(5000) },
    ];
    for (const h of headers) {
      const res = await app.request('POST', '/token', {
        headers: h,
        body: { grant_type: 'client_credentials', client_id: '353871234567' },
      });
      expect(res.status).toBeLessThan(500);
    }
  });
});

describe('overload guard (MAX_INFLIGHT)', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ env: { MAX_INFLIGHT: '1' } });
  });
  afterAll(() => app.close());

  it('answers 503 with retry-after past the in-flight limit', async () => {
    // Wrong passwords cost a full scrypt each, so these requests overlap.
    const results = await Promise.all(
      Array.from({ length: 6 }, () =>
        app.request('POST', '/token', {
          as: 'portal',
          auth: 'Basic ' + Buffer.from('portal:wrong').toString('base64'),
          json: true,
          body: {},
        }),
      ),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toContain(401);
    expect(statuses).toContain(503);
    const busy = results.find((r) => r.status === 503)!;
    expect(busy.headers.get('retry-after')).toBe('1');
    expect(busy.json()).toEqual({ errorCode: 1, message: 'service overloaded, retry later' });
  });
});
