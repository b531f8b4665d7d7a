import { DatasetError, importDataset } from '../../src/dataset/import';
import { demoDataset } from '../../src/dataset/demo';
import { FakeClock } from '../helpers/clock';
import { TestDb, createTestDb, dumpTables } from '../helpers/db';
import { baseDataset } from '../helpers/fixtures';

const TABLES = [
  'tenants',
  'api_clients',
  'subscribers',
  'locations',
  'location_rates',
  'location_infos',
  'location_info_types',
  'location_profiles',
  'plan_definitions',
  'subscriber_plans',
];

describe('dataset import (CONTRACT §9) on the real database', () => {
  let t: TestDb;
  const clock = new FakeClock();
  beforeAll(async () => {
    t = await createTestDb();
  });
  afterAll(() => t.destroy());

  it('imports a good file, and a second import changes nothing', async () => {
    const first = await importDataset(t.db, demoDataset(), clock);
    expect(first.tenants.created).toBe(2);
    expect(first.clients.created).toBe(2);
    expect(first.subscribers.created).toBe(6);
    expect(first.planDefinitions.created).toBe(3);
    expect(first.subscriberPlans.created).toBe(3);
    const before = await dumpTables(t.db, TABLES);
    clock.advanceSeconds(60);
    const second = await importDataset(t.db, demoDataset(), clock);
    expect(second.tenants).toEqual({ created: 0, updated: 0, unchanged: 2 });
    expect(second.clients).toEqual({ created: 0, updated: 0, unchanged: 2 });
    expect(second.subscribers).toEqual({ created: 0, updated: 0, unchanged: 6 });
    expect(second.planDefinitions).toEqual({ created: 0, updated: 0, unchanged: 3 });
    expect(second.subscriberPlans).toEqual({ created: 0, updated: 0, unchanged: 3 });
    expect(first.locations.created).toBe(7);
    expect(second.locations).toEqual({ created: 0, updated: 0, unchanged: 7 });
    expect(second.locationInfoTypes).toEqual({ created: 0, updated: 0, unchanged: 2 });
    expect(await dumpTables(t.db, TABLES)).toEqual(before);
  });

  it('stores balances exactly and msisdns canonically', async () => {
    const row = await t.db('subscribers').where({ msisdn: '353871234567' }).first();
    expect(String(row.balance_micros)).toBe('10000000');
    await importDataset(
      t.db,
      {
        subscribers: [
          {
            tenant: 'demo',
            msisdn: '+353870000001',
            status: 'active',
            paymentType: 'postpaid',
            balance: '-0.000001',
            currency: 'EUR',
          },
        ],
      },
      clock,
    );
    const pp = await t.db('subscribers').where({ msisdn: '353870000001' }).first();
    expect(String(pp.balance_micros)).toBe('-1');
  });

  it('updates a row whose fields changed (an existing balance only with resetBalances)', async () => {
    const ds = demoDataset();
    ds.subscribers![0].balance = '12.345678';
    const s = await importDataset(t.db, { subscribers: ds.subscribers }, clock, { resetBalances: true });
    expect(s.subscribers.updated).toBe(1);
    const row = await t.db('subscribers').where({ msisdn: '353871234567' }).first();
    expect(String(row.balance_micros)).toBe('12345678');
  });

  const PLAN_DEF = {
    tenant: 'demo',
    name: 'Test plan',
    unitMeteringType: 'volume',
    unitAmount: 1000,
    shareable: true,
    recurring: false,
    shareQuotaType: 'amount',
  };
  const bad: [string, unknown, string][] = [
    ['top level not an object', [1], '$'],
    ['unknown section', { tenants: [], colours: [] }, '$.colours'],
    [
      'fractional unitAmount',
      { planDefinitions: [{ ...PLAN_DEF, unitAmount: 1.5 }] },
      '$.planDefinitions[0].unitAmount',
    ],
    [
      'subscriber plan of an unknown plan definition',
      {
        subscriberPlans: [
          { tenant: 'demo', id: 9001, msisdn: '353871234567', planDefinition: 'Nope', remaining: 1 },
        ],
      },
      '$.subscriberPlans[0].planDefinition',
    ],
    [
      'subscriber plan of an unknown subscriber',
      {
        planDefinitions: [PLAN_DEF],
        subscriberPlans: [
          { tenant: 'demo', id: 9001, msisdn: '999999999', planDefinition: 'Test plan', remaining: 1 },
        ],
      },
      '$.subscriberPlans[0].msisdn',
    ],
    [
      'duplicate subscriber plan id',
      {
        planDefinitions: [PLAN_DEF],
        subscriberPlans: [
          { tenant: 'demo', id: 9001, msisdn: '353871234567', planDefinition: 'Test plan', remaining: 1 },
          { tenant: 'demo', id: 9001, msisdn: '353871234567', planDefinition: 'Test plan', remaining: 2 },
        ],
      },
      '$.subscriberPlans[1].id',
    ],
    [
      'missing required field',
      { clients: [{ tenant: 'demo', username: 'x', permissions: [] }] },
      '$.clients[0].password',
    ],
    [
      'unknown permission',
      { clients: [{ tenant: 'demo', username: 'x', password: 'long-enough', permissions: ['ROOT'] }] },
      '$.clients[0].permissions[0]',
    ],
    [
      'bad msisdn',
      {
        subscribers: [
          { tenant: 'demo', msisdn: '12', status: 'active', paymentType: 'prepaid', currency: 'EUR' },
        ],
      },
      '$.subscribers[0].msisdn',
    ],
    [
      'float balance',
      {
        subscribers: [
          {
            tenant: 'demo',
            msisdn: '12345',
            status: 'active',
            paymentType: 'prepaid',
            balance: 1.5,
            currency: 'EUR',
          },
        ],
      },
      '$.subscribers[0].balance',
    ],
    [
      '7 fraction digits',
      {
        subscribers: [
          {
            tenant: 'demo',
            msisdn: '12345',
            status: 'active',
            paymentType: 'prepaid',
            balance: '1.1234567',
            currency: 'EUR',
          },
        ],
      },
      '$.subscribers[0].balance',
    ],
    [
      'negative prepaid balance',
      {
        subscribers: [
          {
            tenant: 'demo',
            msisdn: '12345',
            status: 'active',
            paymentType: 'prepaid',
            balance: '-1',
            currency: 'EUR',
          },
        ],
      },
      '$.subscribers[0].balance',
    ],
    [
      'duplicate msisdn (+ is not significant)',
      {
        subscribers: [
          { tenant: 'demo', msisdn: '12345', status: 'active', paymentType: 'prepaid', currency: 'EUR' },
          { tenant: 'demo', msisdn: '+12345', status: 'active', paymentType: 'prepaid', currency: 'EUR' },
        ],
      },
      '$.subscribers[1].msisdn',
    ],
    [
      'blank plan definition name',
      {
        planDefinitions: [
          {
            tenant: 'demo',
            name: '   ',
            unitMeteringType: 'volume',
            unitAmount: 1000,
            shareable: true,
            recurring: false,
            shareQuotaType: 'amount',
          },
        ],
      },
      '$.planDefinitions[0].name',
    ],
  ];
  it.each(bad)('rejects a file with %s at %s... and writes nothing', async (_name, doc, path) => {
    const before = await dumpTables(t.db, TABLES);
    const err = await importDataset(t.db, doc, clock).catch((e) => e);
    expect(err).toBeInstanceOf(DatasetError);
    expect(err.path).toBe(path);
    expect(await dumpTables(t.db, TABLES)).toEqual(before);
  });

  it('builds the demo roaming zones from real networks (PLMN IDs from mcc-mnc-list)', async () => {
    const europe = await t
      .db('locations as l')
      .join('tenants as t', 't.id', 'l.tenant_id')
      .where({ 't.name': 'demo', 'l.name': 'ZONE-EUROPE' })
      .first('l.id');
    const plmns = await t.db('location_infos').where({ location_id: europe.id }).pluck('value');
    expect(plmns).toEqual(expect.arrayContaining(['20801', '20810', '26201', '23415']));
    expect(plmns.every((v: string) => /^2\d{4,5}$/.test(v))).toBe(true);
    expect(plmns.length).toBeGreaterThan(300);
  });

  it('rejects a location info naming an unknown type, at its JSON path', async () => {
    const before = await dumpTables(t.db, TABLES);
    const doc = {
      locations: [{ tenant: 'demo', name: 'X', infos: [{ name: 'x', type: 'NOPE', value: '1' }] }],
    };
    const err = await importDataset(t.db, doc, clock).catch((e) => e);
    expect(err).toBeInstanceOf(DatasetError);
    expect(err.path).toBe('$.locations[0].infos[0].type');
    expect(await dumpTables(t.db, TABLES)).toEqual(before);
  });

  it('rolls back rows already written when a later row fails (unknown tenant)', async () => {
    const before = await dumpTables(t.db, TABLES);
    const doc = {
      tenants: [{ name: 'fresh' }],
      clients: [{ tenant: 'fresh', username: 'fresh-client', password: 'long-enough', permissions: [] }],
      subscribers: [
        { tenant: 'nowhere', msisdn: '12345', status: 'active', paymentType: 'prepaid', currency: 'EUR' },
      ],
    };
    const err = await importDataset(t.db, doc, clock).catch((e) => e);
    expect(err).toBeInstanceOf(DatasetError);
    expect(err.path).toBe('$.subscribers[0].tenant');
    expect(await dumpTables(t.db, TABLES)).toEqual(before);
  });

  it('accepts the fixture dataset used by the e2e tests', async () => {
    const s = await importDataset(t.db, baseDataset(), clock);
    expect(s.clients.created).toBe(8);
  });
});
