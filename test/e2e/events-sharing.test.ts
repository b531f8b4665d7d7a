import { OutboxEvent, listEventsAfter } from '../../src/modules/events/outbox.store';
import { DONOR, PLAN, R, useSharingApp } from '../helpers/sharing';

/** Sharing changes write their events in the change's transaction. */
describe('outbox events of quota sharing', () => {
  const t = useSharingApp();
  let seen = 0;
  const fresh = async (): Promise<OutboxEvent[]> => {
    const events = await listEventsAfter(t.app.tdb.db, { afterSeq: seen, limit: 1000 });
    if (events.length) seen = events[events.length - 1].seq;
    return events;
  };
  const brief = (events: OutboxEvent[]) => events.map((e) => [e.type, e.subject]);
  beforeEach(() => fresh());

  it('a donation: one quota.received per recipient granted, then donation.completed with the outcome', async () => {
    const res = await t.sqs.donate({
      donorId: DONOR,
      donorPlanId: PLAN.amount,
      quotaType: 'amount',
      recipients: [
        { recipientId: R(0), quota: 100 },
        { recipientId: DONOR, quota: 5 },
        { recipientId: R(1), quota: 200 },
        { recipientId: R(2), quota: 5000 },
      ],
    });
    expect(res.status).toBe(207);
    const donationId = res.json().id as string;
    const events = await fresh();
    expect(brief(events)).toEqual([
      ['quota.received', R(0)],
      ['quota.received', R(1)],
      ['donation.completed', DONOR],
    ]);
    expect(events[0].payload).toEqual({
      donationId,
      recipient: R(0),
      donor: DONOR,
      amount: 100,
      unit: 'volume',
      planName: 'Gift 1000',
      planDefinitionId: expect.any(Number),
      donorPlanId: PLAN.amount,
      recurringDonationId: null,
      occurredAt: Math.floor(t.app.clock.nowMs() / 1000),
    });
    expect(events[2].payload).toMatchObject({
      donationId,
      donor: DONOR,
      donorPlanId: PLAN.amount,
      donationType: 'one-time',
      errorCode: 0,
      recipients: [
        { recipient: R(0), quota: 100, granted: 100, errorCode: 0 },
        { recipient: DONOR, quota: 5, granted: 0, errorCode: 3 },
        { recipient: R(1), quota: 200, granted: 200, errorCode: 0 },
        { recipient: R(2), quota: 5000, granted: 0, errorCode: 15 },
      ],
    });
  });

  it('a donation refused as a whole writes nothing; an idempotent repeat writes nothing again', async () => {
    const refused = await t.sqs.donate({
      donorId: DONOR,
      donorPlanId: PLAN.voice,
      quotaType: 'amount',
      recipients: [{ recipientId: R(0), quota: 1 }],
    });
    expect(refused.status).toBe(422);
    expect(await fresh()).toHaveLength(0);
    const body = {
      donorId: DONOR,
      donorPlanId: PLAN.amount,
      quotaType: 'amount',
      recipients: [{ recipientId: R(3), quota: 1 }],
    };
    const key = { 'idempotency-key': `k-${Date.now()}` };
    expect((await t.sqs.call('POST', '/sqs/api/donations', body, key)).status).toBe(200);
    expect(brief(await fresh())).toEqual([
      ['quota.received', R(3)],
      ['donation.completed', DONOR],
    ]);
    expect((await t.sqs.call('POST', '/sqs/api/donations', body, key)).status).toBe(200);
    expect(await fresh()).toHaveLength(0);
  });

  it('groups and members: created, member added/updated/removed, renamed, deleted (subject the group id)', async () => {
    const g = await t.sqs.createGroup({ ownerId: DONOR, name: 'family', quotaType: 'amount' });
    expect(g.status).toBe(201);
    const id = g.json().id as string;
    expect((await t.sqs.addMember(id, { memberId: R(0), quota: 10 })).status).toBe(201);
    const bulk = await t.sqs.call('PUT', `/sqs/api/groups/${id}/members/_bulk/add`, {
      members: [
        { memberId: R(0), quota: 20 },
        { memberId: R(1), quota: 30 },
      ],
    });
    expect(bulk.status).toBeLessThan(300);
    // A refused member write changes nothing and writes nothing.
    expect((await t.sqs.addMember(id, { memberId: DONOR, quota: 1 })).status).toBe(422);
    expect(
      (await t.sqs.call('PUT', `/sqs/api/groups/${id}`, { id, ownerId: DONOR, name: 'fam' })).status,
    ).toBe(200);
    const del = await t.sqs.call('PUT', `/sqs/api/groups/${id}/members/_bulk/delete`, {
      members: [R(1), R(9)],
    });
    expect(del.status).toBeLessThan(300);
    expect((await t.sqs.call('DELETE', `/sqs/api/groups/${id}/members/${R(0)}`)).status).toBeLessThan(300);
    expect((await t.sqs.call('DELETE', `/sqs/api/groups/${id}`)).status).toBeLessThan(300);
    const events = await fresh();
    expect(events.every((e) => e.subject === id)).toBe(true);
    expect(events.map((e) => [e.type, e.payload.member ?? e.payload.name, e.payload.quota])).toEqual([
      ['group.created', 'family', undefined],
      ['group.member.added', R(0), 10],
      ['group.member.updated', R(0), 20],
      ['group.member.added', R(1), 30],
      ['group.updated', 'fam', undefined],
      ['group.member.removed', R(1), null],
      ['group.member.removed', R(0), null],
      ['group.deleted', 'fam', undefined],
    ]);
    expect(events[0].payload).toMatchObject({ groupId: id, owner: DONOR, quotaType: 'amount' });
  });

  it('recurring donations and a renewal: created, plan.renewed, the renewal donation, deleted', async () => {
    const rec = await t.sqs.createRecurring({
      donorId: DONOR,
      donorPlanId: PLAN.credit,
      quotaType: 'amount',
      recipients: [{ recipientId: R(5), quota: 7 }],
    });
    expect(rec.status).toBe(201);
    const recId = rec.json().id as string;
    const renewed = await t.app.request('POST', '/graphql', {
      as: 'admin',
      body: {
        query: 'mutation($id:Int!){ renewSubscriberPlan(id:$id){ plan { period } } }',
        variables: { id: PLAN.credit },
      },
    });
    expect(renewed.json().errors).toBeUndefined();
    expect((await t.sqs.call('DELETE', `/sqs/api/recurringDonations/${recId}`)).status).toBeLessThan(300);
    const events = await fresh();
    expect(brief(events)).toEqual([
      ['recurring-donation.created', DONOR],
      ['plan.renewed', DONOR],
      ['quota.received', R(5)],
      ['donation.completed', DONOR],
      ['recurring-donation.deleted', DONOR],
    ]);
    expect(events[0].payload).toMatchObject({
      recurringDonationId: recId,
      donorPlanId: PLAN.credit,
      recipients: [{ recipient: R(5), quota: 7 }],
    });
    expect(events[1].payload).toMatchObject({
      planId: PLAN.credit,
      msisdn: DONOR,
      planName: 'Credit',
      unit: 'credit',
      remaining: 60_000,
      period: 2,
    });
    expect(events[2].payload).toMatchObject({
      recipient: R(5),
      donor: DONOR,
      amount: 7,
      unit: 'credit',
      planName: 'Credit',
      recurringDonationId: recId,
    });
    expect(events[3].payload).toMatchObject({
      donationType: 'recurring',
      recurringDonationId: recId,
      errorCode: 0,
    });
    // Deleting it again: 404, no event.
    expect((await t.sqs.call('DELETE', `/sqs/api/recurringDonations/${recId}`)).status).toBe(404);
    expect(await fresh()).toHaveLength(0);
  });
});
