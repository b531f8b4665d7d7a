import { importDataset } from '../../src/dataset/import';
import { createLogger } from '../../src/logger';
import { IdempotencyService } from '../../src/modules/idempotency/idempotency.service';
import { DEFAULT_PRIMARY_COLOR, PortalService } from '../../src/modules/portal/portal.service';
import { TokenService } from '../../src/modules/tokens/token.service';
import { FakeClock } from '../helpers/clock';
import { TestDb, createTestDb } from '../helpers/db';

/** The dataset's captive-portal fields: `tenants[].portal` and `planDefinitions[].price` (docs/portal.md). */
describe('dataset: portal branding and plan prices', () => {
  let tdb: TestDb;
  let portal: PortalService;
  const clock = new FakeClock();

  beforeAll(async () => {
    tdb = await createTestDb();
    const logger = createLogger('silent');
    portal = new PortalService(
      tdb.db,
      clock,
      new TokenService(tdb.db, clock, 3600, logger),
      new IdempotencyService(tdb.db, clock, logger),
      { maxPlansPerSubscriber: 50 },
    );
  });
  afterAll(() => tdb.destroy());

  const definition = (name: string, price?: string) => ({
    tenant: 'acme',
    name,
    unitMeteringType: 'volume' as const,
    unitAmount: 1000,
    shareable: false,
    recurring: true,
    shareQuotaType: 'amount' as const,
    ...(price === undefined ? {} : { price }),
  });

  it('imports branding and prices; absent branding takes the defaults', async () => {
    const summary = await importDataset(
      tdb.db,
      {
        tenants: [
          {
            name: 'acme',
            portal: { displayName: 'Acme Mobile', primaryColor: '#AA0033', logoUrl: '/logo.svg' },
          },
          { name: 'plain' },
        ],
        planDefinitions: [definition('Day pass', '2.50'), definition('Hidden')],
      },
      clock,
    );
    expect(summary.tenants).toEqual({ created: 2, updated: 0, unchanged: 0 });
    const [acme, plain] = await tdb.db('tenants').orderBy('id');
    expect(await portal.branding(acme.id)).toEqual({
      displayName: 'Acme Mobile',
      primaryColor: '#AA0033',
      logoUrl: '/logo.svg',
    });
    expect(await portal.branding(plain.id)).toEqual({
      displayName: 'plain',
      primaryColor: DEFAULT_PRIMARY_COLOR,
      logoUrl: null,
    });
    const prices = await tdb.db('plan_definitions').orderBy('id').select('name', 'price_micros');
    expect(
      prices.map((p: { name: string; price_micros: unknown }) => [
        p.name,
        p.price_micros === null ? null : String(p.price_micros),
      ]),
    ).toEqual([
      ['Day pass', '2500000'],
      ['Hidden', null],
    ]);
  });

  it('a tenant row without portal keeps the stored branding; portal null resets it; a price removed withdraws the offer', async () => {
    const again = await importDataset(
      tdb.db,
      { tenants: [{ name: 'acme' }], planDefinitions: [definition('Day pass')] },
      clock,
    );
    expect(again.tenants).toEqual({ created: 0, updated: 0, unchanged: 1 });
    expect(again.planDefinitions).toEqual({ created: 0, updated: 1, unchanged: 0 });
    const acme = await tdb.db('tenants').where({ name: 'acme' }).first();
    expect((await portal.branding(acme.id)).displayName).toBe('Acme Mobile');
    expect((await tdb.db('plan_definitions').where({ name: 'Day pass' }).first()).price_micros).toBeNull();
    const reset = await importDataset(tdb.db, { tenants: [{ name: 'acme', portal: null }] }, clock);
    expect(reset.tenants).toEqual({ created: 0, updated: 1, unchanged: 0 });
    expect(await portal.branding(acme.id)).toEqual({
      displayName: 'acme',
      primaryColor: DEFAULT_PRIMARY_COLOR,
      logoUrl: null,
    });
  });

  it.each([
    [{ tenants: [{ name: 'acme', portal: { primaryColor: 'red' } }] }, '$.tenants[0].portal.primaryColor'],
    [
      { tenants: [{ name: 'acme', portal: { logoUrl: 'javascript:alert(1)' } }] },
      '$.tenants[0].portal.logoUrl',
    ],
    [{ tenants: [{ name: 'acme', portal: { colour: '#000000' } }] }, '$.tenants[0].portal'],
    [
      { tenants: [{ name: 'acme' }], planDefinitions: [definition('Bad', '-1')] },
      '$.planDefinitions[0].price',
    ],
  ])('refuses %j at %s', async (doc, where) => {
    await expect(importDataset(tdb.db, doc, clock)).rejects.toThrow(where);
  });
});
