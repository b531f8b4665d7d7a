import { BadUserInputError } from '../../src/errors';
import { importDataset } from '../../src/dataset/import';
import { findTenantByName } from '../../src/modules/tenants/tenant.store';
import { TokenService, hashToken } from '../../src/modules/tokens/token.service';
import { findClientByUsername } from '../../src/auth/client.store';
import { FakeClock } from '../helpers/clock';
import { TestDb, createTestDb } from '../helpers/db';
import { baseDataset } from '../helpers/fixtures';

describe('TokenService on the real database', () => {
  let t: TestDb;
  const clock = new FakeClock();
  let svc: TokenService;
  let acme: { clientId: number; tenantId: number };
  let rival: { clientId: number; tenantId: number };

  beforeAll(async () => {
    t = await createTestDb();
    await importDataset(t.db, baseDataset(), clock);
    svc = new TokenService(t.db, clock, 3600);
    const caller = async (username: string) => {
      const c = (await findClientByUsername(t.db, username))!;
      return { clientId: c.id, tenantId: c.tenantId };
    };
    acme = await caller('portal');
    rival = await caller('rival');
  });
  afterAll(() => t.destroy());

  it('stores only the hash, scoped to the tenant, with expiry in epoch seconds', async () => {
    const issued = await svc.issue(acme, 'client_credentials', '+353871234567');
    expect(issued.accessToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const rows = await t.db('tokens').select('*');
    expect(rows.some((r) => r.token_hash === issued.accessToken)).toBe(false);
    const row = rows.find((r) => r.token_hash === hashToken(issued.accessToken));
    expect(row).toBeDefined();
    expect(Number(row.tenant_id)).toBe((await findTenantByName(t.db, 'acme'))!.id);
    expect(row.msisdn).toBe('353871234567');
    expect(Number(row.expires_at_seconds)).toBe(Math.floor(clock.ms / 1000) + 3600);
  });

  it('is active until expiry, then inactive; other tenants never see it', async () => {
    const { accessToken } = await svc.issue(acme, 'client_credentials', '353871234567');
    const issuedAt = Math.floor(clock.ms / 1000);
    const expiry = issuedAt + 3600;
    expect(await svc.introspect(acme, accessToken)).toEqual({
      active: true,
      clientId: '353871234567',
      expiry,
      issuedAt,
      issuedBy: 'portal',
    });
    expect(await svc.introspect(rival, accessToken)).toEqual({ active: false });
    clock.advanceSeconds(3599);
    expect((await svc.introspect(acme, accessToken)).active).toBe(true);
    clock.advanceSeconds(1);
    expect(await svc.introspect(acme, accessToken)).toEqual({ active: false });
  });

  it('revokes idempotently (RFC 7009), including unknown tokens and other tenants', async () => {
    const { accessToken } = await svc.issue(acme, 'client_credentials', '353871234567');
    expect(await svc.revoke(rival, accessToken)).toBe(true);
    expect((await svc.introspect(acme, accessToken)).active).toBe(true);
    expect(await svc.revoke(acme, accessToken)).toBe(true);
    expect(await svc.revoke(acme, accessToken)).toBe(true);
    expect(await svc.revoke(acme, 'never-issued')).toBe(true);
    expect(await svc.introspect(acme, accessToken)).toEqual({ active: false });
  });

  it('issues distinct tokens under concurrency', async () => {
    const tokens = await Promise.all(
      Array.from({ length: 40 }, () => svc.issue(acme, 'client_credentials', '353871234567')),
    );
    expect(new Set(tokens.map((x) => x.accessToken)).size).toBe(40);
  });

  it.each([
    ['password', '353871234567', 'grantType'],
    ['client_credentials', '12ab', 'clientId'],
    ['client_credentials', '', 'clientId'],
  ])('issue(%j, %j) is refused on %s (BAD_USER_INPUT) and writes nothing', async (grant, clientId, field) => {
    const before = await t.db('tokens').count({ n: '*' }).first();
    const err = await svc.issue(acme, grant, clientId).catch((e) => e);
    expect(err).toBeInstanceOf(BadUserInputError);
    expect(err.fields.map((f: { field: string }) => f.field)).toEqual([field]);
    expect(await t.db('tokens').count({ n: '*' }).first()).toEqual(before);
  });

  it('refuses an empty token to introspect or revoke (BAD_USER_INPUT on token)', async () => {
    for (const call of [() => svc.introspect(acme, ''), () => svc.revoke(acme, '')]) {
      const err = await call().catch((e) => e);
      expect(err).toBeInstanceOf(BadUserInputError);
      expect(err.fields).toEqual([{ field: 'token', description: 'must not be empty' }]);
    }
  });
});
