import { TestApp, startTestApp } from '../helpers/app';
import { chargingDataset, ratingBody } from '../helpers/charging';
import { simulatedDelay } from '../helpers/wait';

/**
 * The request safety net (src/app.ts `admit`, timed by src/lib/late-watch.ts; docs/contract.md §8
 * "When things fail": never a hang): a request still unanswered DEADLINE_GRACE_MS (1 s) after its deadline is answered anyway, 503
 * with retry-after (a rating: 200 with returnCode 5000), its slot is given back, and it is
 * counted. Every wait in the service is bounded, so the test makes one unbounded on purpose: the
 * service method a row calls is replaced by one that never settles.
 */
describe('requests that outlive their deadline + 1 s are answered anyway (the safety net)', () => {
  const BUDGET_MS = 300;
  let app: TestApp;
  const restore: (() => void)[] = [];
  beforeAll(async () => {
    app = await startTestApp({
      dataset: chargingDataset(),
      env: { REQUEST_TIMEOUT_MS: String(BUDGET_MS), RATING_TIMEOUT_MS: String(BUDGET_MS), MAX_INFLIGHT: '4' },
    });
  });
  afterEach(() => restore.splice(0).forEach((undo) => undo()));
  afterAll(() => app.close());

  /** Makes `services[service][method]` hang (never settle) until the end of the test. */
  function hang(service: 'tokens' | 'charging', method: string): void {
    const target = app.app.services[service] as unknown as Record<string, unknown>;
    const original = target[method];
    target[method] = () => new Promise(() => undefined);
    restore.push(() => (target[method] = original));
  }

  const introspect = () =>
    app.request('POST', '/token/introspect', { as: 'admin', json: true, body: { token: 'abc' } });
  const deadlineCount = async () => {
    const text = (await app.request('GET', '/metrics')).text;
    return Number(/^http_requests_deadline_exceeded_total (\d+)/m.exec(text)?.[1] ?? NaN);
  };

  it('a hung REST row: 503, retry-after, the documented body, at deadline + 1 s; counted', async () => {
    hang('tokens', 'introspect');
    const before = await deadlineCount();
    const started = performance.now();
    const res = await introspect();
    const ms = performance.now() - started;
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(res.json()).toEqual({ errorCode: 1, message: 'request deadline exceeded, retry later' });
    expect(res.headers.get('x-request-id')).toBeTruthy();
    expect(ms).toBeGreaterThanOrEqual(BUDGET_MS + 1000 - 5);
    expect(ms).toBeLessThan(BUDGET_MS + 1000 + 700);
    expect(await deadlineCount()).toBe(before + 1);
  });

  it('a hung rating: HTTP 200 with returnCode 5000 (outcome unknown, a retry tells)', async () => {
    hang('charging', 'processRating');
    const res = await app.request('POST', '/crs-api/processRating', {
      auth: 'Basic ' + Buffer.from('crs:crs-password').toString('base64'),
      json: true,
      headers: { tenant: 'acme' },
      body: ratingBody(),
    });
    expect(res.status).toBe(200);
    expect(res.json()).toEqual({ returnCode: 5000 });
  });

  it('many hung requests arriving over time are each answered at their own deadline, and their slots are given back', async () => {
    hang('tokens', 'introspect');
    const started = performance.now();
    const answers: Promise<{ status: number; ms: number }>[] = [];
    for (let i = 0; i < 4; i++) {
      answers.push(introspect().then((r) => ({ status: r.status, ms: performance.now() - started })));
      await simulatedDelay(150, 'requests arriving 150 ms apart');
    }
    const done = await Promise.all(answers);
    done.forEach((d, i) => {
      expect(d.status).toBe(503);
      // Sent at about i × 150 ms, due 1.3 s later.
      expect(d.ms).toBeGreaterThanOrEqual(i * 150 + BUDGET_MS + 1000 - 5);
      expect(d.ms).toBeLessThan(i * 150 + BUDGET_MS + 1000 + 700);
    });
    restore.splice(0).forEach((undo) => undo());
    // MAX_INFLIGHT is 4: had the four hung requests kept their slots, these would be shed.
    const after = await Promise.all([introspect(), introspect(), introspect()]);
    expect(after.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(after[0].json()).toEqual({ active: false });
  });
});
