import { hashPassword } from '../../src/auth/password';
import { TestApp, startTestApp } from '../helpers/app';
import { basic } from '../helpers/fixtures';
import { quietPeriod, waitFor } from '../helpers/wait';

// The client row cache (AUTH_CLIENT_CACHE_MS) seen from two instances on one database:
// a change made anywhere reaches every instance within the bound, and a lockout holds.
const CACHE_MS = 1000;
const ENV = {
  AUTH_CLIENT_CACHE_MS: String(CACHE_MS),
  AUTH_MAX_FAILURES: '3',
  AUTH_MAX_FAILURES_PER_ADDRESS: '50',
  AUTH_WINDOW_SECONDS: '60',
  TRUST_PROXY: 'true',
};

describe('API client rows cached for AUTH_CLIENT_CACHE_MS on two instances', () => {
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    a = await startTestApp({ env: ENV });
    b = await startTestApp({ sameDatabaseAs: a, env: ENV });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  const introspect = (app: TestApp, auth: string, address = '10.9.0.1') =>
    app.request('POST', '/token/introspect', {
      auth,
      json: true,
      headers: { 'x-forwarded-for': address },
      body: { token: 'not-a-token' },
    });

  /** Polls until `app` answers `status`, failing past the bound (+500 ms for a loaded machine). */
  const until = (app: TestApp, auth: string, status: number, address?: string) =>
    waitFor(async () => (await introspect(app, auth, address)).status === status, {
      what: `an answer ${status} within the ${CACHE_MS} ms cache bound`,
      timeoutMs: CACHE_MS + 500,
      intervalMs: 25,
    });

  const warm = async (auth: string, address?: string) => {
    for (const app of [a, b])
      for (let i = 0; i < 2; i++) expect((await introspect(app, auth, address)).status).toBe(200);
  };

  it('disabling a client takes effect on both instances within the bound, and re-enabling it too', async () => {
    await warm(basic('portal'));
    await a.tdb.db('api_clients').where({ username: 'portal' }).update({ enabled: false });
    await Promise.all([until(a, basic('portal'), 401), until(b, basic('portal'), 401)]);
    // Still refused once the bound has passed (not a one-off).
    await quietPeriod(CACHE_MS + 100, 'one cache bound: every row read before the change has expired');
    expect((await introspect(a, basic('portal'))).status).toBe(401);
    expect((await introspect(b, basic('portal'))).status).toBe(401);
    await a.tdb.db('api_clients').where({ username: 'portal' }).update({ enabled: true });
    await Promise.all([until(a, basic('portal'), 200), until(b, basic('portal'), 200)]);
  });

  it('a new password replaces the old one on both instances within the bound', async () => {
    await warm(basic('admin'));
    const { password_hash: old } = await a.tdb.db('api_clients').where({ username: 'admin' }).first();
    await a.tdb
      .db('api_clients')
      .where({ username: 'admin' })
      .update({ password_hash: await hashPassword('rotated-password') });
    try {
      // Two failures at most per instance (below AUTH_MAX_FAILURES together with the login below).
      await until(a, basic('admin'), 401, '10.9.1.1');
      await until(b, basic('admin'), 401, '10.9.1.2');
      expect((await introspect(a, basic('admin', 'rotated-password'), '10.9.1.1')).status).toBe(200);
      expect((await introspect(b, basic('admin', 'rotated-password'), '10.9.1.2')).status).toBe(200);
    } finally {
      await a.tdb.db('api_clients').where({ username: 'admin' }).update({ password_hash: old });
    }
  });

  it('a username locked out on one instance is refused there at once and on the other within the bound, and stays refused', async () => {
    await warm(basic('rival'), '10.9.2.1');
    for (let i = 0; i < 3; i++)
      expect((await introspect(a, basic('rival', `wrong-${i}`), '10.9.2.2')).status).toBe(401);
    // The instance that counted the failures dropped its cached read: the right password is refused now.
    expect((await introspect(a, basic('rival'), '10.9.2.1')).status).toBe(429);
    // The other one served a read from before the lockout for at most the bound.
    await until(b, basic('rival'), 429, '10.9.2.1');
    for (let i = 0; i < 5; i++) {
      expect((await introspect(a, basic('rival'), '10.9.2.1')).status).toBe(429);
      expect((await introspect(b, basic('rival'), '10.9.2.1')).status).toBe(429);
      await quietPeriod(CACHE_MS / 3, 'five checks a third of the bound apart span more than one bound');
    }
  });
});
