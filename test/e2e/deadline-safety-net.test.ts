import { TestApp, TestResponse, startTestApp } from '../helpers/app';
import { chargingDataset, ratingBody } from '../helpers/charging';
import { simulatedDelay, waitFor } from '../helpers/wait';

/**
 * Resolves with how late, ms, a timer set now for `ms` ms fired: how long this process's event
 * loop (the gateway's: it runs in the test's process) kept a due timer waiting, on a loaded
 * machine mostly the wait for a core. A control beside a timer of the gateway due at the same
 * time, which suffers the same.
 */
function timerLateness(ms: number): Promise<number> {
  const due = performance.now() + ms;
  return new Promise((resolve) => setTimeout(() => resolve(performance.now() - due), ms));
}

/** A response, when it arrived (ms after its request was sent), and a control timer's lateness. */
interface Timed<R> {
  res: R;
  ms: number;
  /** How late a control timer set when the request was sent, for when it is due, fired. */
  late: number;
}

/** Sends a request due to be answered `dueMs` ms later and times its answer ({@link Timed}). */
async function timed<R>(send: () => Promise<R>, dueMs: number): Promise<Timed<R>> {
  const sent = performance.now();
  const [{ res, ms }, late] = await Promise.all([
    send().then((res) => ({ res, ms: performance.now() - sent })),
    timerLateness(dueMs),
  ]);
  return { res, ms, late };
}

/**
 * The request safety net (src/app.ts `admit`, timed by src/lib/late-watch.ts; docs/contract.md §8
 * "When things fail": never a hang): a request still unanswered DEADLINE_GRACE_MS (1 s) after its deadline is answered anyway, 503
 * with retry-after (a rating: 200 with returnCode 5000), its slot is given back, and it is
 * counted. Every wait in the service is bounded, so the test makes one unbounded on purpose: the
 * service method a row calls is replaced by one that never settles.
 *
 * On a loaded machine (these tests run beside others): the budget leaves a hung request ample
 * time to reach the hung method, and an answer may be late by what a timer of the test's own
 * process was late meanwhile ({@link timerLateness}), not by more.
 */
describe('requests that outlive their deadline + 1 s are answered anyway (the safety net)', () => {
  const BUDGET_MS = 1000;
  /** When a hung request is answered, ms after it was sent: its deadline plus the 1 s grace. */
  const DUE_MS = BUDGET_MS + 1000;
  /** How much later than due an answer may come, beyond a control timer's lateness. */
  const SLACK_MS = 700;
  let app: TestApp;
  const restore: (() => void)[] = [];

  const introspect = () =>
    app.request('POST', '/token/introspect', { as: 'admin', json: true, body: { token: 'abc' } });
  const rate = () =>
    app.request('POST', '/crs-api/processRating', {
      auth: 'Basic ' + Buffer.from('crs:crs-password').toString('base64'),
      json: true,
      headers: { tenant: 'acme' },
      body: ratingBody(),
    });
  const deadlineCount = async () => {
    const text = (await app.request('GET', '/metrics')).text;
    return Number(/^http_requests_deadline_exceeded_total (\d+)/m.exec(text)?.[1] ?? NaN);
  };

  beforeAll(async () => {
    app = await startTestApp({
      dataset: chargingDataset(),
      env: {
        REQUEST_TIMEOUT_MS: String(BUDGET_MS),
        RATING_TIMEOUT_MS: String(BUDGET_MS),
        GRAPHQL_TIMEOUT_MS: String(BUDGET_MS),
        MAX_INFLIGHT: '4',
      },
    });
    // Each client's first request checks its password (scrypt: tens of ms of CPU, seconds on a
    // loaded machine) within the request's budget. A hung request must reach the hung method
    // before its deadline, so both clients' credentials are checked (and cached) first, asking
    // again while a check outlives the budget.
    await waitFor(async () => (await introspect()).status === 200, {
      what: "the admin client's credentials to be checked within a request's budget",
      timeoutMs: 60_000,
    });
    await waitFor(async () => (await rate()).json().returnCode !== 5001, {
      what: "the crs client's credentials to be checked within a rating's budget",
      timeoutMs: 60_000,
    });
  }, 150_000);
  afterEach(() => restore.splice(0).forEach((undo) => undo()));
  afterAll(() => app.close());

  /** Makes `services[service][method]` hang (never settle) until the end of the test. */
  function hang(service: 'tokens' | 'charging', method: string): void {
    const target = app.app.services[service] as unknown as Record<string, unknown>;
    const original = target[method];
    target[method] = () => new Promise(() => undefined);
    restore.push(() => (target[method] = original));
  }

  it('a hung REST row: 503, retry-after, the documented body, at deadline + 1 s; counted', async () => {
    hang('tokens', 'introspect');
    const before = await deadlineCount();
    const { res, ms, late } = await timed(introspect, DUE_MS);
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(res.json()).toEqual({ errorCode: 1, message: 'request deadline exceeded, retry later' });
    expect(res.headers.get('x-request-id')).toBeTruthy();
    expect(ms).toBeGreaterThanOrEqual(DUE_MS - 5);
    expect(ms).toBeLessThan(DUE_MS + SLACK_MS + late);
    expect(await deadlineCount()).toBe(before + 1);
  });

  it('a hung rating: HTTP 200 with returnCode 5000 (outcome unknown, a retry tells)', async () => {
    hang('charging', 'processRating');
    const { res, ms, late } = await timed(rate, DUE_MS);
    expect(res.status).toBe(200);
    expect(res.json()).toEqual({ returnCode: 5000 });
    expect(ms).toBeGreaterThanOrEqual(DUE_MS - 5);
    expect(ms).toBeLessThan(DUE_MS + SLACK_MS + late);
  });

  it('a hung GraphQL operation: HTTP 504 with one TIMEOUT error, as GraphQL clients read it', async () => {
    hang('tokens', 'introspect');
    const { res, ms, late } = await timed(
      () =>
        app.request('POST', '/graphql', {
          as: 'admin',
          json: true,
          body: { query: '{ introspectToken(token: "abc") { active } }' },
        }),
      DUE_MS,
    );
    expect(res.status).toBe(504);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.json()).toEqual({
      errors: [
        {
          message: `operation exceeded GRAPHQL_TIMEOUT_MS (${BUDGET_MS} ms)`,
          extensions: { code: 'TIMEOUT' },
        },
      ],
    });
    expect(ms).toBeGreaterThanOrEqual(DUE_MS - 5);
    expect(ms).toBeLessThan(DUE_MS + SLACK_MS + late);
  });

  it('many hung requests arriving over time are each answered at their own deadline, and their slots are given back', async () => {
    hang('tokens', 'introspect');
    const answers: Promise<Timed<TestResponse>>[] = [];
    for (let i = 0; i < 4; i++) {
      answers.push(timed(introspect, DUE_MS));
      await simulatedDelay(150, 'requests arriving 150 ms apart');
    }
    const done = await Promise.all(answers);
    for (const d of done) {
      expect(d.res.status).toBe(503);
      // Each at its own arrival's deadline + 1 s (the four are due 150 ms apart).
      expect(d.ms).toBeGreaterThanOrEqual(DUE_MS - 5);
      expect(d.ms).toBeLessThan(DUE_MS + SLACK_MS + d.late);
    }
    restore.splice(0).forEach((undo) => undo());
    // MAX_INFLIGHT is 4: had the four hung requests kept their slots, these would be shed.
    const after = await Promise.all([introspect(), introspect(), introspect()]);
    expect(after.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(after[0].json()).toEqual({ active: false });
  });
});
