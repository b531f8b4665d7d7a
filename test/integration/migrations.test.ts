import { migrateLatest, migrateRollbackAll } from '../../src/db/migrations';
import { TestDb, createTestDb } from '../helpers/db';

describe('migrations', () => {
  let t: TestDb;
  beforeAll(async () => {
    t = await createTestDb({ migrate: false });
  });
  afterAll(() => t.destroy());

  it('run up from empty, roll back to nothing, and run up again', async () => {
    const tables = [
      'tenants',
      'api_clients',
      'tokens',
      'subscribers',
      'locations',
      'location_rates',
      'location_infos',
      'location_info_types',
      'location_profiles',
      'ratings',
      'charges',
      'plan_definitions',
      'subscriber_plans',
      'sharing_groups',
      'group_members',
      'recurring_donations',
      'donations',
      'donation_recipients',
      'allowances',
      'idempotency_keys',
      'login_failures',
      'plan_period_recipients',
      'cdrs',
      'outbox_events',
      'outbox_relay_lease',
      'renewal_events',
      'data_versions',
      'trusted_documents',
    ];
    const all = [
      '20261122000100_foundation',
      '20261122000200_locations',
      '20261122000300_charging',
      '20261122000400_sharing',
      '20261122000500_idempotency',
      '20261123000100_galera_row_version',
      '20261123000100_login_failures',
      '20261124000100_outbox',
      '20261124000200_period_recipients',
      '20261124000300_renewal_events',
      '20261124000400_cdrs',
      '20261124000500_demo_password_check',
      '20261126000100_donation_keyset',
      '20261126000200_portal',
      '20261126000300_data_versions',
      '20261126000310_rate_limits',
      '20261126001000_outbox_traceparent',
      '20261126002100_trusted_documents',
    ];
    expect(await migrateLatest(t.db)).toEqual(all);
    for (const table of tables) expect(await t.db.schema.hasTable(table)).toBe(true);
    expect(await migrateLatest(t.db)).toEqual([]);
    await migrateRollbackAll(t.db);
    for (const table of tables) expect(await t.db.schema.hasTable(table)).toBe(false);
    expect(await migrateLatest(t.db)).toEqual(all);
  });

  it('stores money micro-units at the edge of the supported range exactly', async () => {
    const [tenant] = await t.db('tenants').insert({ name: 'edge', created_at: 0 });
    await t.db('subscribers').insert({
      tenant_id: tenant,
      msisdn: '12345',
      status: 'active',
      payment_type: 'prepaid',
      balance_micros: Number.MAX_SAFE_INTEGER,
      currency: 'EUR',
      created_at: 0,
      updated_at: 0,
    });
    const row = await t.db('subscribers').where({ msisdn: '12345' }).first();
    expect(BigInt(row.balance_micros)).toBe(BigInt(Number.MAX_SAFE_INTEGER));
  });
});
