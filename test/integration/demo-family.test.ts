import { DEMO_FAMILY, demoDataset, seedDemoFamily } from '../../src/dataset/demo';
import { importDataset } from '../../src/dataset/import';
import { createLogger } from '../../src/logger';
import { IdempotencyService } from '../../src/modules/idempotency/idempotency.service';
import { SharingService } from '../../src/modules/sharing/sharing.service';
import { FakeClock } from '../helpers/clock';
import { TestDb, createTestDb } from '../helpers/db';

describe('the demo family (README "Quota sharing") on the real database', () => {
  let t: TestDb;
  const clock = new FakeClock();
  beforeAll(async () => {
    t = await createTestDb();
  });
  afterAll(() => t.destroy());

  it('is seeded after the demo import, and a renewal shares 25 % of 6 GB with each child', async () => {
    await importDataset(t.db, demoDataset(), clock);
    const tenantId = (await t.db('tenants').where({ name: 'demo' }).first()).id as number;
    const logger = createLogger('silent');
    const sharing = new SharingService(
      t.db,
      clock,
      { maxGroupSize: 10, maxPlansPerSubscriber: 20 },
      logger,
      new IdempotencyService(t.db, clock, logger),
    );
    const groupId = await seedDemoFamily(sharing, tenantId);
    const group = await sharing.group({ tenantId }, groupId);
    expect(group).toMatchObject({ ownerMsisdn: DEMO_FAMILY.ownerId, name: 'Family', quotaType: 'share' });
    const members = await t.db('group_members').where({ group_id: groupId }).orderBy('id');
    expect(members.map((m) => [m.member_msisdn, Number(m.quota)])).toEqual(
      DEMO_FAMILY.members.map((m) => [m.msisdn, m.quota]),
    );
    const renewal = await sharing.renewPlan({ tenantId }, DEMO_FAMILY.planId);
    expect(renewal.plan).toMatchObject({ period: 2, remaining: 3_000_000_000 });
    expect(renewal.donation!.recipients.map((r) => [r.recipientId, r.granted, r.errorCode])).toEqual([
      ['353871234570', 1_500_000_000, 0],
      ['353871234571', 1_500_000_000, 0],
    ]);
  });
});
