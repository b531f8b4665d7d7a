import fc from 'fast-check';
import { groupCommitCounts, itOnSqlite } from '../helpers/group-commit';
import {
  DONOR,
  PLAN,
  R,
  RECIPIENT_COUNT,
  grantedFrom,
  remainingOf,
  resetSharing,
  useSharingApp,
} from '../helpers/sharing';

describe('quota sharing under concurrency on the real database (CONTRACT §5)', () => {
  const t = useSharingApp();

  const setRemaining = (planId: number, remaining: number) =>
    t.app.tdb.db('subscriber_plans').where({ id: planId }).update({ remaining });
  const codesOf = (body: Record<string, unknown>) =>
    (body.recipients as { errorCode: number }[]).map((r) => r.errorCode);

  it('50 simultaneous donations from a plan whose remaining covers exactly K: K granted, the rest 15, conserved to the byte', async () => {
    const K = 17;
    const quota = 37;
    await setRemaining(PLAN.amount, K * quota);
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        t.sqs.donate({
          donorId: DONOR,
          donorPlanId: PLAN.amount,
          quotaType: 'amount',
          recipients: [{ recipientId: R(i), quota }],
        }),
      ),
    );
    const codes = results.map((r) => codesOf(r.json())[0]);
    expect(codes.filter((c) => c === 0)).toHaveLength(K);
    expect(codes.filter((c) => c === 15)).toHaveLength(50 - K);
    expect(results.map((r) => r.status).filter((s) => s === 200)).toHaveLength(K);
    expect(await remainingOf(t.app.tdb.db, PLAN.amount)).toBe(0);
    expect(await grantedFrom(t.app.tdb.db, PLAN.amount)).toBe(K * quota);
    expect(await t.app.tdb.db('donations').count({ n: '*' }).first()).toEqual({ n: 50 });
  });

  itOnSqlite(
    'on SQLite, donations from one plan requested together share COMMITs (group commit, no per-plan bulkhead)',
    async () => {
      await setRemaining(PLAN.amount, 1_000_000);
      const { tenant_id: tenantId } = await t.app.tdb
        .db('subscriber_plans')
        .where({ id: PLAN.amount })
        .first();
      const before = await groupCommitCounts();
      // Asked for in one turn of the event loop, as the requests a busy server reads together.
      const donations = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          t.app.app.services.sharing.donate(
            { tenantId },
            {
              donorId: DONOR,
              donorPlanId: PLAN.amount,
              quotaType: 'amount',
              recipients: [{ recipientId: R(i % RECIPIENT_COUNT), quota: 10 }],
            },
          ),
        ),
      );
      expect(donations.map((d) => d.recipients.map((r) => r.errorCode))).toEqual(Array(30).fill([0]));
      const after = await groupCommitCounts();
      // One transaction per donation (no idempotency key); the plan's bulkhead made it one COMMIT each.
      expect(after.transactions - before.transactions).toBe(30);
      expect(after.commits - before.commits).toBeLessThanOrEqual(2);
      expect(await grantedFrom(t.app.tdb.db, PLAN.amount)).toBe(300);
      expect(await remainingOf(t.app.tdb.db, PLAN.amount)).toBe(1_000_000 - 300);
    },
  );

  it('simultaneous multi-recipient donations never overdraw and conserve remaining + Σ granted', async () => {
    const start = 5000;
    await setRemaining(PLAN.amount, start);
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        t.sqs.donate({
          donorId: DONOR,
          donorPlanId: PLAN.amount,
          quotaType: 'amount',
          recipients: [0, 1, 2].map((k) => ({
            recipientId: R((i * 3 + k) % RECIPIENT_COUNT),
            quota: 50 + ((i * 7 + k * 13) % 200),
          })),
        }),
      ),
    );
    // Each body's granted recipients are what the ledger holds, and nothing else moved.
    const granted = results.flatMap((r, i) =>
      codesOf(r.json()).flatMap((c, k) => (c === 0 ? [50 + ((i * 7 + k * 13) % 200)] : [])),
    );
    const remaining = await remainingOf(t.app.tdb.db, PLAN.amount);
    expect(remaining).toBeGreaterThanOrEqual(0);
    expect(await grantedFrom(t.app.tdb.db, PLAN.amount)).toBe(granted.reduce((a, b) => a + b, 0));
    expect(remaining + (await grantedFrom(t.app.tdb.db, PLAN.amount))).toBe(start);
  });

  it('simultaneous donations to distinct recipients never pass maxRecipients (5 per period)', async () => {
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        t.sqs.donate({
          donorId: DONOR,
          donorPlanId: PLAN.share,
          quotaType: 'share',
          recipients: [{ recipientId: R(i), quota: 1000 }],
        }),
      ),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(5);
    expect(results.filter((r) => r.status === 422).map((r) => r.json().errorCode)).toEqual(
      Array(15).fill(13),
    );
    const distinct = await t.app.tdb
      .db('allowances')
      .countDistinct({ n: 'recipient_msisdn' })
      .where({ donor_plan_id: PLAN.share })
      .first();
    expect(Number(distinct!.n)).toBe(5);
  });

  it.each([
    ['the size past MAX_GROUP_SIZE (10)', 30, 100_000, 10, 6],
    ['share quotas past 100 %', 20, 3_000_000, 3, 4],
  ])('simultaneous member additions never push %s', async (_n, tries, quota, admitted, refusal) => {
    const id = (await t.sqs.createGroup({ ownerId: DONOR, name: `g-${quota}` })).json().id as string;
    const results = await Promise.all(
      Array.from({ length: tries }, (_, i) => t.sqs.addMember(id, { memberId: R(i), quota })),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(admitted);
    expect(results.filter((r) => r.status === 422).map((r) => r.json().errorCode)).toEqual(
      Array(tries - admitted).fill(refusal),
    );
    const members = await t.app.tdb.db('group_members').where({ group_id: id });
    expect(members).toHaveLength(admitted);
    expect(members.reduce((sum, m) => sum + Number(m.quota), 0)).toBe(admitted * quota);
  });

  it('simultaneous renewals and donations: each renewal resets to unitAmount; no donation is lost or doubled', async () => {
    await setRemaining(PLAN.credit, 0);
    const ops = await Promise.all([
      ...Array.from({ length: 10 }, (_, i) =>
        t.sqs.donate({
          donorId: DONOR,
          donorPlanId: PLAN.credit,
          quotaType: 'amount',
          recipients: [{ recipientId: R(i), quota: 1000 }],
        }),
      ),
      t.app.request('POST', '/graphql', {
        as: 'admin',
        body: { query: `mutation { renewSubscriberPlan(id: ${PLAN.credit}) { plan { period } } }` },
      }),
    ]);
    const donated = ops.slice(0, 10).filter((r) => codesOf(r.json())[0] === 0).length;
    // Period 1 had nothing; every grant happened after the renewal to 60000.
    expect(await remainingOf(t.app.tdb.db, PLAN.credit)).toBe(60_000 - donated * 1000);
    expect(await grantedFrom(t.app.tdb.db, PLAN.credit)).toBe(donated * 1000);
  });

  it('property: any mix of donations (some fired together) keeps remaining ≥ 0 and remaining + Σ granted constant', async () => {
    const donation = fc.record({
      recipients: fc.uniqueArray(fc.nat(RECIPIENT_COUNT - 1), { minLength: 1, maxLength: 4 }),
      quota: fc.integer({ min: 1, max: 400 }),
      together: fc.boolean(),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.array(donation, { minLength: 1, maxLength: 12 }),
        fc.integer({ min: 0, max: 2000 }),
        async (steps, start) => {
          await resetSharing(t.app.tdb.db);
          await setRemaining(PLAN.amount, start);
          let batch: Promise<unknown>[] = [];
          for (const s of steps) {
            const p = t.sqs.donate({
              donorId: DONOR,
              donorPlanId: PLAN.amount,
              quotaType: 'amount',
              recipients: s.recipients.map((i) => ({ recipientId: R(i), quota: s.quota })),
            });
            batch.push(p);
            if (!s.together) {
              await Promise.all(batch);
              batch = [];
            }
          }
          await Promise.all(batch);
          const remaining = await remainingOf(t.app.tdb.db, PLAN.amount);
          expect(remaining).toBeGreaterThanOrEqual(0);
          expect(remaining + (await grantedFrom(t.app.tdb.db, PLAN.amount))).toBe(start);
        },
      ),
      { numRuns: 15 },
    );
  });
});
