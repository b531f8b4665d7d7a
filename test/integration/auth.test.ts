import { Authenticator } from '../../src/auth/authenticate';
import { hashPassword } from '../../src/auth/password';
import { TooManyRequestsError } from '../../src/errors';
import { importDataset } from '../../src/dataset/import';
import { FakeClock } from '../helpers/clock';
import { TestDb, createTestDb } from '../helpers/db';
import { baseDataset, basic } from '../helpers/fixtures';
import { waitFor } from '../helpers/wait';

describe('Authenticator on the real database', () => {
  let t: TestDb;
  let auth: Authenticator;
  beforeAll(async () => {
    t = await createTestDb();
    await importDataset(t.db, baseDataset(), new FakeClock());
    auth = new Authenticator(t.db);
  });
  afterAll(() => t.destroy());

  it('accepts either header spelling and returns the client with its tenant and grants', async () => {
    for (const header of ['authorization', 'authorisation']) {
      const r = await auth.authenticate({ [header]: basic('portal') });
      expect(r.status).toBe('ok');
      if (r.status === 'ok') {
        expect(r.client.tenantName).toBe('acme');
        expect([...r.client.permissions].sort()).toEqual(['TOKEN_INTROSPECT', 'TOKEN_ISSUE']);
      }
    }
  });

  it('rejects wrong passwords, unknown users, disabled clients and malformed headers', async () => {
    expect((await auth.authenticate({})).status).toBe('missing');
    expect((await auth.authenticate({ authorization: basic('portal', 'wrong') })).status).toBe('invalid');
    expect((await auth.authenticate({ authorization: basic('ghost', 'portal-password') })).status).toBe(
      'invalid',
    );
    expect((await auth.authenticate({ authorization: basic('disabled') })).status).toBe('invalid');
    // A Bearer token is returned unchecked: only /graphql accepts it, as a subscriber (docs/portal.md).
    expect(await auth.authenticate({ authorization: 'Bearer abc' })).toEqual({
      status: 'bearer',
      token: 'abc',
    });
    expect((await auth.authenticate({ authorization: 'Bearer' })).status).toBe('invalid');
  });

  it('sees a client being disabled at once with AUTH_CLIENT_CACHE_MS=0, even after a cached verification', async () => {
    const uncached = new Authenticator(t.db, undefined, undefined, 0);
    expect((await uncached.authenticate({ authorization: basic('issuer') })).status).toBe('ok');
    await t.db('api_clients').where({ username: 'issuer' }).update({ enabled: false });
    expect((await uncached.authenticate({ authorization: basic('issuer') })).status).toBe('invalid');
    await t.db('api_clients').where({ username: 'issuer' }).update({ enabled: true });
  });

  it('serves a client row for at most the cache bound: a disabled client or a new password takes effect within it', async () => {
    const cached = new Authenticator(t.db, undefined, undefined, 1000);
    // The change must show within the 1000 ms bound (+300 ms for a loaded machine).
    const within = (expected: string, header: string) =>
      waitFor(async () => (await cached.authenticate({ authorization: header })).status === expected, {
        what: `the cached authenticator to answer ${expected} within its 1000 ms bound`,
        timeoutMs: 1000 + 300,
      });
    // The first success runs scrypt (which drops the cached reads); the second one is served from the row it reads.
    expect((await cached.authenticate({ authorization: basic('issuer') })).status).toBe('ok');
    expect((await cached.authenticate({ authorization: basic('issuer') })).status).toBe('ok');
    await t.db('api_clients').where({ username: 'issuer' }).update({ enabled: false });
    // The row read just before is still served: the bound is a staleness, not a delay on every change.
    expect((await cached.authenticate({ authorization: basic('issuer') })).status).toBe('ok');
    await within('invalid', basic('issuer'));
    await t.db('api_clients').where({ username: 'issuer' }).update({ enabled: true });
    await within('ok', basic('issuer'));
    const { password_hash: old } = await t.db('api_clients').where({ username: 'issuer' }).first();
    await t
      .db('api_clients')
      .where({ username: 'issuer' })
      .update({ password_hash: await hashPassword('rotated-password') });
    await within('invalid', basic('issuer'));
    expect((await cached.authenticate({ authorization: basic('issuer', 'rotated-password') })).status).toBe(
      'ok',
    );
    await t.db('api_clients').where({ username: 'issuer' }).update({ password_hash: old });
  });

  it('costs an unknown username about as much as a wrong password (a full scrypt each)', async () => {
    const time = async (h: string) => {
      const start = process.hrtime.bigint();
      for (let i = 0; i < 4; i++) await auth.authenticate({ authorization: h });
      return Number(process.hrtime.bigint() - start) / 4e6;
    };
    await time(basic('ghost', 'x'));
    const unknown = await time(basic('ghost', 'x'));
    const wrong = await time(basic('portal', 'x'));
    const cached = await time(basic('portal'));
    // Both failures run scrypt; a cached success does not. Ratios, not absolute times.
    expect(unknown / wrong).toBeGreaterThan(0.5);
    expect(unknown / wrong).toBeLessThan(2);
    expect(cached * 3).toBeLessThan(wrong);
  });

  it('answers without a wait (authenticateNow) only credentials verified before, read fresh and not throttled', async () => {
    const header = { authorization: basic('nogrant') };
    const limits = { maxFailuresPerUsername: 2, maxFailuresPerAddress: 50, windowSeconds: 300 };
    const a = new Authenticator(t.db, limits, undefined, 200);
    const other = new Authenticator(t.db, limits, undefined, 200);
    try {
      // What needs no check at all is answered at once.
      expect(a.authenticateNow({})).toEqual({ status: 'missing' });
      expect(a.authenticateNow({ authorization: 'Bearer abc' })).toEqual({ status: 'bearer', token: 'abc' });
      expect(a.authenticateNow({ authorization: 'Digest x' })).toEqual({ status: 'invalid' });
      // Basic credentials never verified here need a read and a verification.
      expect(a.authenticateNow(header)).toBeUndefined();
      expect((await a.authenticate(header)).status).toBe('ok');
      expect((await a.authenticate(header)).status).toBe('ok');
      const verifications = a.verifications;
      const now = a.authenticateNow(header);
      expect(now?.status).toBe('ok');
      expect(now?.status === 'ok' && now.client.username).toBe('nogrant');
      expect(a.verifications).toBe(verifications);
      // A wrong password is never answered at once (it costs a verification and counts).
      expect(a.authenticateNow({ authorization: basic('nogrant', 'wrong') })).toBeUndefined();
      // Failures counted by another instance: once this one reads them (its cached read expired),
      // the right password is refused (429) and is not answered at once either.
      for (let i = 0; i < 3; i++)
        await other.authenticate({ authorization: basic('nogrant', 'wrong') }).catch(() => undefined);
      await new Promise((r) => setTimeout(r, 250));
      await expect(a.authenticate(header)).rejects.toBeInstanceOf(TooManyRequestsError);
      expect(a.authenticateNow(header)).toBeUndefined();
      await expect(a.authenticate(header)).rejects.toBeInstanceOf(TooManyRequestsError);
    } finally {
      await t.db('login_failures').where('throttle_key', 'like', '%nogrant%').delete();
    }
  });
});
