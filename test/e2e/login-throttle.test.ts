import { TestApp, startTestApp } from '../helpers/app';
import { basic } from '../helpers/fixtures';

// Counters persist for the whole file: each test uses its own usernames and client addresses.
const ENV = {
  AUTH_MAX_FAILURES: '3',
  AUTH_MAX_FAILURES_PER_ADDRESS: '5',
  AUTH_WINDOW_SECONDS: '60',
  TRUST_PROXY: 'true',
};

describe('brute-force throttling of failed logins', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ env: ENV });
  });
  afterAll(() => app.close());

  const from = (address: string) => ({ 'x-forwarded-for': address });
  const issueToken = (a: TestApp, auth: string, address: string) =>
    a.request('POST', '/token', {
      auth,
      json: true,
      headers: from(address),
      body: { grant_type: 'client_credentials', client_id: '+353871234567' },
    });
  const failTimes = async (a: TestApp, username: string, address: string, n: number) => {
    for (let i = 0; i < n; i++)
      expect((await issueToken(a, basic(username, `wrong-${i}`), address)).status).toBe(401);
  };

  it('answers 429 with retry-after after AUTH_MAX_FAILURES failures of one username, without scrypt, on every path', async () => {
    // portal's right password is remembered as verified first: no scrypt would run for it.
    expect((await issueToken(app, basic('portal'), '10.0.1.9')).status).toBe(201);
    await failTimes(app, 'portal', '10.0.1.1', 3);
    const scrypts = app.app.authenticator.verifications;
    const throttledCount = async () =>
      Number(
        /^login_attempts_throttled_total (\d+)/m.exec((await app.request('GET', '/metrics')).text)?.[1] ??
          NaN,
      );
    const throttledBefore = await throttledCount();

    const wrong = await issueToken(app, basic('portal', 'wrong-again'), '10.0.1.2');
    expect(wrong.status).toBe(429);
    expect(wrong.headers.get('retry-after')).toBe('60');
    expect(wrong.json()).toEqual({
      error: 'unauthorized',
      error_description: 'too many failed logins, retry later',
    });
    // The right password is refused too while throttled (else a 200 would reveal a right guess).
    expect((await issueToken(app, basic('portal'), '10.0.1.3')).status).toBe(429);

    const oauth2 = await app.request('POST', '/oauth2/token', {
      headers: { ...from('10.0.1.4'), 'content-type': 'application/x-www-form-urlencoded' },
      raw: 'grant_type=client_credentials&msisdn=353871234567&client_id=portal&client_secret=portal-password',
    });
    expect(oauth2.status).toBe(429);
    expect(oauth2.headers.get('retry-after')).toBe('60');
    expect(oauth2.json()).toEqual({
      error: 'invalid_client',
      error_description: 'too many failed logins, retry later',
    });

    const plain = await app.request('GET', '/sqs/api/groups/1', {
      as: 'portal',
      json: true,
      headers: { ...from('10.0.1.5'), tenant: 'acme' },
    });
    expect(plain.status).toBe(429);
    expect(plain.json()).toEqual({ errorCode: 1, message: 'too many failed logins, retry later' });

    const graphql = await app.request('POST', '/graphql', {
      as: 'portal',
      headers: from('10.0.1.6'),
      body: { query: '{ __typename }' },
    });
    expect(graphql.status).toBe(429);
    expect(graphql.headers.get('retry-after')).toBe('60');
    const errors = graphql.json().errors as Array<{ message: string; extensions: Record<string, unknown> }>;
    expect(errors[0].extensions).toEqual({ code: 'TOO_MANY_REQUESTS', retryAfter: 60 });

    expect(app.app.authenticator.verifications).toBe(scrypts);
    // Each of the five refusals above counted once in the metric (REST, OAuth 2.0, GraphQL alike).
    expect(await throttledCount()).toBe(throttledBefore + 5);

    // Other clients are unaffected, from the same addresses too.
    expect((await issueToken(app, basic('issuer'), '10.0.1.1')).status).toBe(201);
  });

  it('lets the username in again once its window has passed (and retry-after counts down)', async () => {
    await failTimes(app, 'nogrant', '10.0.2.1', 3);
    app.clock.advanceSeconds(45);
    const throttled = await issueToken(app, basic('nogrant'), '10.0.2.2');
    expect(throttled.status).toBe(429);
    expect(throttled.headers.get('retry-after')).toBe('15');
    app.clock.advanceSeconds(15);
    // Authenticated again: nogrant lacks TOKEN_ISSUE, so 403, not 401 or 429.
    expect((await issueToken(app, basic('nogrant'), '10.0.2.2')).status).toBe(403);
  });

  it('throttles one client address across usernames; a right login from it does not reset its counter', async () => {
    const address = '10.0.3.1';
    await failTimes(app, 'ghost-1', address, 2);
    await failTimes(app, 'ghost-2', address, 2);
    expect((await issueToken(app, basic('issuer'), address)).status).toBe(201);
    await failTimes(app, 'ghost-3', address, 1);
    const scrypts = app.app.authenticator.verifications;
    const res = await issueToken(app, basic('admin'), address);
    expect(res.status).toBe(429);
    expect(app.app.authenticator.verifications).toBe(scrypts);
    // The same client from another address is let in.
    expect((await issueToken(app, basic('admin'), '10.0.3.2')).status).toBe(201);
  });

  it('shares the counters between two instances on one database', async () => {
    const second = await startTestApp({ sameDatabaseAs: app, env: ENV });
    try {
      await failTimes(app, 'admin', '10.0.4.1', 3);
      const scrypts = second.app.authenticator.verifications;
      expect((await issueToken(second, basic('admin'), '10.0.4.2')).status).toBe(429);
      expect(second.app.authenticator.verifications).toBe(scrypts);
      expect((await issueToken(second, basic('rival'), '10.0.4.2')).status).not.toBe(429);
    } finally {
      await second.close();
    }
  });
});
