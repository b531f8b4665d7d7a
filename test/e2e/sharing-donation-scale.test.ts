import { migrateLatest, migrationSource } from '../../src/db/migrations';
import { createTestDb } from '../helpers/db';
import { DONOR, OTHER_DONOR, PLAN, R, remainingOf, resetSharing, useSharingApp } from '../helpers/sharing';

/**
 * The work of a donation is bounded by its number of recipients, not by
 * the plan's history, and donations from different plans to overlapping recipients neither
 * deadlock nor fail, on the real database (SQLite, or MariaDB with TEST_DATABASE_URL).
 */
describe('donations at scale (CONTRACT §5)', () => {
  // A low plan limit so the MAX_PLANS_PER_SUBSCRIBER refusal (1) happens under concurrency.
  const MAX_PLANS = 4;
  // The client cache off: every request reads its credentials once, so counts compare exactly.
  const t = useSharingApp({ MAX_PLANS_PER_SUBSCRIBER: String(MAX_PLANS), AUTH_CLIENT_CACHE_MS: '0' });
  const db = () => t.app.tdb.db;

  /** Statements the app sent while `fn` ran, and what `fn` returned. */
  async function statementsOf<T>(fn: () => Promise<T>): Promise<{ sql: string[]; result: T }> {
    const sql: string[] = [];
    const onQuery = (q: { sql: string }) => sql.push(q.sql);
    db().on('query', onQuery);
    try {
      return { sql, result: await fn() };
    } finally {
      db().off('query', onQuery);
    }
  }

  /** A donation of 1 byte each from plan 101 (maxRecipients 80) to R(first)…R(first + n - 1). */
  const donateTo = (first: number, n: number) =>
    t.sqs.donate({
      donorId: DONOR,
      donorPlanId: PLAN.amount,
      quotaType: 'amount',
      recipients: Array.from({ length: n }, (_, i) => ({ recipientId: R(first + i), quota: 1 })),
    });

  /**
   * A long history in plan 101's current period: one real donation to R(50)…R(79), then
   * `rows` more allowance rows of 0 bytes to those same 30 recipients (so the period's distinct
   * recipients, and what the plan may still give, are unchanged).
   */
  async function seedHistory(rows: number): Promise<void> {
    const first = await donateTo(50, 30);
    expect(first.status).toBe(200);
    const donationId = first.json().id as string;
    const tenant = (await db()('tenants').where({ name: 'acme' }).first()).id;
    const allowances = Array.from({ length: rows }, (_, i) => ({
      tenant_id: tenant,
      recipient_msisdn: R(50 + (i % 30)),
      donor_plan_id: PLAN.amount,
      donation_id: donationId,
      unit_metering_type: 'volume',
      amount: 0,
      period: 1,
      created_at: 0,
    }));
    await db().batchInsert('allowances', allowances, 500);
  }

  it('runs the same statements with an empty history and with 5,000 prior allowances, not growing with recipients', async () => {
    const counts: Record<string, number> = {};
    for (const history of [0, 5000])
      for (const n of [1, 10, 50]) {
        await resetSharing(db());
        if (history) await seedHistory(history);
        await donateTo(0, 1).then((r) => expect(r.status).toBe(200)); // warm up
        const { sql, result } = await statementsOf(() => donateTo(1, n));
        expect(result.status).toBe(200);
        expect((result.json().recipients as { errorCode: number }[]).map((r) => r.errorCode)).toEqual(
          Array(n).fill(0),
        );
        // The maxRecipients and plan-count checks no longer read the period's allowances.
        expect(sql.filter((s) => /^select\b.*\bfrom [`"]?allowances\b/i.test(s))).toEqual([]);
        counts[`${history}:${n}`] = sql.length;
      }
    for (const n of [1, 10, 50]) expect(counts[`5000:${n}`]).toBe(counts[`0:${n}`]);
    // At most a small constant per extra recipient (today: none).
    expect(counts['0:10'] - counts['0:1']).toBeLessThanOrEqual(2 * 9);
    expect(counts['0:50'] - counts['0:10']).toBeLessThanOrEqual(2 * 40);
    expect(counts['0:1']).toBeLessThanOrEqual(20);
  });

  it('a 50-recipient donation succeeds and counts 50 distinct recipients of the period', async () => {
    const r = await donateTo(0, 50);
    expect(r.status).toBe(200);
    expect(await remainingOf(db(), PLAN.amount)).toBe(1000 - 50);
    const plan = await db()('subscriber_plans').where({ id: PLAN.amount }).first();
    expect(Number(plan.recipients_in_period)).toBe(50);
    // 31 more would make 81 > 80: refused as a whole, nothing moves.
    const over = await donateTo(49, 32);
    expect(over.status).toBe(422);
    expect(over.json().errorCode).toBe(13);
    // 30 more of which one (R(49)) is already counted: exactly 80.
    expect((await donateTo(49, 31)).status).toBe(200);
    expect(
      Number((await db()('subscriber_plans').where({ id: PLAN.amount }).first()).recipients_in_period),
    ).toBe(80);
  });

  it('a renewal starts the count afresh', async () => {
    expect((await donateTo(0, 5)).status).toBe(200);
    const renew = await t.app.request('POST', '/graphql', {
      as: 'admin',
      body: { query: `mutation { renewSubscriberPlan(id: ${PLAN.amount}) { plan { period } } }` },
    });
    expect(renew.status).toBe(200);
    const plan = await db()('subscriber_plans').where({ id: PLAN.amount }).first();
    expect(Number(plan.period)).toBe(2);
    expect(Number(plan.recipients_in_period)).toBe(0);
    expect(await db()('plan_period_recipients').where({ donor_plan_id: PLAN.amount })).toEqual([]);
    expect((await donateTo(0, 80)).status).toBe(200);
  });

  it('simultaneous donations from 6 plans to overlapping recipients: only business refusals, quota conserved, limits kept', async () => {
    const PLANS = [300, 301, 302, 303, 304, 305];
    const START = 300;
    const MAX_RECIPIENTS = 12;
    const tenant = (await db()('tenants').where({ name: 'acme' }).first()).id;
    await db()('plan_period_recipients').whereIn('donor_plan_id', PLANS).delete();
    await db()('subscriber_plans').whereIn('id', PLANS).delete();
    await db()('plan_definitions').where({ tenant_id: tenant, name: 'Scale' }).delete();
    const [defId] = await db()('plan_definitions').insert({
      tenant_id: tenant,
      name: 'Scale',
      unit_metering_type: 'volume',
      unit_amount: START,
      shareable: true,
      recurring: false,
      share_quota_type: 'amount',
      max_recipients: MAX_RECIPIENTS,
    });
    await db()('subscriber_plans').insert(
      PLANS.map((id, k) => ({
        id,
        tenant_id: tenant,
        msisdn: k % 2 ? OTHER_DONOR : DONOR,
        plan_definition_id: defId,
        remaining: START,
        period: 1,
        renewed_at: 0,
      })),
    );
    // 8 donations per plan of 8 recipients × 5 bytes over R(0)…R(23), half in reverse order.
    const requests = PLANS.flatMap((planId, k) =>
      Array.from({ length: 8 }, (_, j) => {
        const ids = Array.from({ length: 8 }, (_, m) => R((k * 3 + j * 5 + m) % 24));
        if (j % 2) ids.reverse();
        return {
          planId,
          donorId: k % 2 ? OTHER_DONOR : DONOR,
          recipients: ids.map((recipientId) => ({ recipientId, quota: 5 })),
        };
      }),
    );
    const responses = await Promise.all(
      requests.map((q) =>
        t.sqs.donate({
          donorId: q.donorId,
          donorPlanId: q.planId,
          quotaType: 'amount',
          recipients: q.recipients,
        }),
      ),
    );
    const outcomes = responses.map((r) => `${r.status}${r.status === 422 ? `/${r.json().errorCode}` : ''}`);
    // Documented outcomes only: 200, 207 (some recipient refused) or 422/13 (maxRecipients).
    expect(outcomes.filter((o) => !['200', '207', '422/13'].includes(o))).toEqual([]);
    expect(outcomes.filter((o) => o !== '422/13').length).toBeGreaterThan(PLANS.length);
    for (const planId of PLANS) {
      const remaining = await remainingOf(db(), planId);
      const allowances = await db()('allowances').where({ donor_plan_id: planId });
      const granted = allowances.reduce((s, a) => s + Number(a.amount), 0);
      expect(remaining).toBeGreaterThanOrEqual(0);
      expect(remaining + granted).toBe(START);
      // What the bodies say was granted is what the ledger holds.
      const said = responses.flatMap((r, i) =>
        requests[i].planId === planId && r.status !== 422
          ? (r.json().recipients as { errorCode: number }[]).filter((x) => x.errorCode === 0)
          : [],
      );
      expect(said.length * 5).toBe(granted);
      const distinct = new Set(allowances.map((a) => String(a.recipient_msisdn)));
      expect(distinct.size).toBeLessThanOrEqual(MAX_RECIPIENTS);
      const plan = await db()('subscriber_plans').where({ id: planId }).first();
      expect(Number(plan.recipients_in_period)).toBe(distinct.size);
      const counted = await db()('plan_period_recipients').where({ donor_plan_id: planId, period: 1 });
      expect(new Set(counted.map((c) => String(c.recipient_msisdn)))).toEqual(distinct);
    }
    // No recipient holds more than MAX_PLANS plans (they own none).
    const perRecipient = await db()('allowances')
      .whereIn('donor_plan_id', PLANS)
      .select('recipient_msisdn')
      .countDistinct({ n: 'donor_plan_id' })
      .groupBy('recipient_msisdn');
    expect(perRecipient.length).toBeGreaterThan(0);
    for (const r of perRecipient) expect(Number(r.n)).toBeLessThanOrEqual(MAX_PLANS);
  });
});

describe('migration 20261124000200_period_recipients', () => {
  it("backfills each plan's distinct recipients of its current period and their count, and rolls back", async () => {
    const tdb = await createTestDb({ migrate: false });
    const db = tdb.db;
    try {
      for (;;) {
        const [, pending] = (await db.migrate.list({ migrationSource })) as [unknown[], Array<[string]>];
        if (pending[0][0] === '20261124000200_period_recipients') break;
        await db.migrate.up({ migrationSource });
      }
      await db('tenants').insert({ id: 1, name: 't', created_at: 0 });
      await db('plan_definitions').insert({
        id: 1,
        tenant_id: 1,
        name: 'P',
        unit_metering_type: 'volume',
        unit_amount: 1000,
        shareable: true,
        recurring: false,
        share_quota_type: 'amount',
        max_recipients: 5,
      });
      const plan = (id: number, period: number) => ({
        id,
        tenant_id: 1,
        msisdn: '353870000000',
        plan_definition_id: 1,
        remaining: 0,
        period,
        renewed_at: 0,
      });
      await db('subscriber_plans').insert([plan(1, 2), plan(2, 1), plan(3, 1)]);
      const donation = (id: string, planId: number, period: number) => ({
        id,
        tenant_id: 1,
        donor_msisdn: '353870000000',
        donor_plan_id: planId,
        quota_type: 'amount',
        period,
        error_code: 0,
        created_at: 0,
      });
      await db('donations').insert([donation('d1', 1, 1), donation('d2', 1, 2), donation('d3', 2, 1)]);
      const allowance = (donationId: string, planId: number, period: number, msisdn: string) => ({
        tenant_id: 1,
        recipient_msisdn: msisdn,
        donor_plan_id: planId,
        donation_id: donationId,
        unit_metering_type: 'volume',
        amount: 1,
        period,
        created_at: 0,
      });
      await db('allowances').insert([
        // Plan 1's period 1 is over: A and B no longer count.
        allowance('d1', 1, 1, 'A'),
        allowance('d1', 1, 1, 'B'),
        allowance('d2', 1, 2, 'A'),
        allowance('d2', 1, 2, 'C'),
        allowance('d2', 1, 2, 'C'),
        allowance('d3', 2, 1, 'B'),
      ]);
      await migrateLatest(db);
      const rows = await db('plan_period_recipients')
        .select('donor_plan_id', 'period', 'recipient_msisdn', 'tenant_id')
        .orderBy(['donor_plan_id', 'recipient_msisdn']);
      expect(rows.map((r) => [Number(r.donor_plan_id), Number(r.period), r.recipient_msisdn])).toEqual([
        [1, 2, 'A'],
        [1, 2, 'C'],
        [2, 1, 'B'],
      ]);
      const counts = await db('subscriber_plans').select('id', 'recipients_in_period').orderBy('id');
      expect(counts.map((c) => [Number(c.id), Number(c.recipients_in_period)])).toEqual([
        [1, 2],
        [2, 1],
        [3, 0],
      ]);
      // Later migrations stay applied: roll back this one by name.
      await db.migrate.down({ migrationSource, name: '20261124000200_period_recipients' });
      expect(await db.schema.hasTable('plan_period_recipients')).toBe(false);
      expect(await db.schema.hasColumn('subscriber_plans', 'recipients_in_period')).toBe(false);
    } finally {
      await tdb.destroy();
    }
  });
});
