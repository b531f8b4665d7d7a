import {
  DONOR,
  INACTIVE,
  OTHER_DONOR,
  PLAN,
  READER_AUTH,
  SQS_AUTH,
  R,
  REMAINING,
  RIVAL_SUB,
  SUSPENDED,
  grantedFrom,
  remainingOf,
  sqsClient,
  useSharingApp,
} from '../helpers/sharing';

const UNKNOWN = '353870000999';
const ID = /^[A-Za-z0-9_-]{20}$/;

describe('quota sharing over HTTP (CONTRACT §5): statuses and errorCodes', () => {
  const t = useSharingApp();

  const give = (donorPlanId: number, quotaType: string, recipients: [string, number][], donorId = DONOR) => ({
    donorId,
    donorPlanId,
    quotaType,
    recipients: recipients.map(([recipientId, quota]) => ({ recipientId, quota })),
  });
  const conserved = async (planId: number) =>
    expect((await remainingOf(t.app.tdb.db, planId)) + (await grantedFrom(t.app.tdb.db, planId))).toBe(
      REMAINING[planId],
    );

  describe('POST /sqs/api/donations with recipients', () => {
    it('200: a share quota grants unitAmount × quota / 10^7 and lists every recipient', async () => {
      const res = await t.sqs.donate(
        give(PLAN.share, 'share', [
          [R(0), 2_500_000],
          ['+' + R(1), 1],
        ]),
      );
      expect(res.status).toBe(200);
      const body = res.json();
      expect(Object.keys(body)).toEqual(['id', 'errorCode', 'recipients']);
      expect(body.id).toMatch(ID);
      expect(body).toMatchObject({
        errorCode: 0,
        recipients: [
          { recipientId: R(0), errorCode: 0 },
          { recipientId: R(1), errorCode: 0 },
        ],
      });
      // 10 GB × 25 % = 2.5 GB; 10 GB × 1/10^7 = 1000 bytes exactly.
      const rows = await t.app.tdb.db('allowances').orderBy('id');
      expect(rows.map((r) => [r.recipient_msisdn, Number(r.amount)])).toEqual([
        [R(0), 2_500_000_000],
        [R(1), 1000],
      ]);
      expect(await remainingOf(t.app.tdb.db, PLAN.share)).toBe(REMAINING[PLAN.share] - 2_500_001_000);
    });

    it('share rounds down to whole units', async () => {
      await t.app.tdb.db('plan_definitions').where({ name: 'Credit' }).update({ share_quota_type: 'share' });
      try {
        const res = await t.sqs.donate(give(PLAN.credit, 'share', [[R(0), 3333]]));
        expect(res.status).toBe(200);
        // 60000 × 3333 / 10^7 = 19.998 → 19 minor units.
        expect(await grantedFrom(t.app.tdb.db, PLAN.credit)).toBe(19);
      } finally {
        await t.app.tdb
          .db('plan_definitions')
          .where({ name: 'Credit' })
          .update({ share_quota_type: 'amount' });
      }
    });

    it('207: per-recipient codes in request order; failed recipients cost nothing; remaining never below 0', async () => {
      const res = await t.sqs.donate(
        give(PLAN.amount, 'amount', [
          [R(0), 300],
          [DONOR, 10],
          [UNKNOWN, 10],
          [INACTIVE, 10],
          [SUSPENDED, 10],
          [R(1), 800],
          [R(2), 700],
          [RIVAL_SUB, 1],
        ]),
      );
      expect(res.status).toBe(207);
      const body = res.json();
      expect(body.id).toMatch(ID);
      expect(body.errorCode).toBe(0);
      expect((body.recipients as { errorCode: number }[]).map((r) => r.errorCode)).toEqual([
        0, 3, 12, 14, 14, 15, 0, 12,
      ]);
      expect(await remainingOf(t.app.tdb.db, PLAN.amount)).toBe(0);
      await conserved(PLAN.amount);
    });

    it('207 with every recipient failed: the overall errorCode is the first failure', async () => {
      const res = await t.sqs.donate(give(PLAN.amount, 'amount', [[R(0), 1001]]));
      expect(res.status).toBe(207);
      expect(res.json()).toMatchObject({ errorCode: 15, recipients: [{ recipientId: R(0), errorCode: 15 }] });
      expect(await remainingOf(t.app.tdb.db, PLAN.amount)).toBe(1000);
    });

    it.each([
      ['donor unknown', () => give(PLAN.amount, 'amount', [[R(0), 1]], UNKNOWN), 404, 7],
      ['plan unknown', () => give(999, 'amount', [[R(0), 1]]), 404, 8],
      ["another subscriber's plan", () => give(PLAN.other, 'share', [[R(0), 1]]), 404, 8],
      ["another tenant's plan", () => give(PLAN.rival, 'amount', [[R(0), 1]]), 404, 8],
      ["another tenant's donor", () => give(PLAN.rival, 'amount', [[R(0), 1]], RIVAL_SUB), 404, 7],
      ['plan not shareable', () => give(PLAN.voice, 'amount', [[R(0), 1]]), 422, 16],
      [
        'more recipients than maxRecipients',
        () =>
          give(
            PLAN.share,
            'share',
            [0, 1, 2, 3, 4, 5].map((i) => [R(i), 1]),
          ),
        422,
        13,
      ],
    ] as [string, () => unknown, number, number][])(
      '%s: %i errorCode %i, nothing shared',
      async (_n, body, status, errorCode) => {
        const res = await t.sqs.donate(body());
        expect(res.status).toBe(status);
        expect(res.json()).toEqual({ message: expect.any(String), errorCode });
        expect(await t.app.tdb.db('allowances').count({ n: '*' }).first()).toEqual({ n: 0 });
        expect(await t.app.tdb.db('donations').count({ n: '*' }).first()).toEqual({ n: 0 });
      },
    );

    it('an inactive donor owning the plan: 422 errorCode 14', async () => {
      await t.app.tdb.db('subscribers').where({ msisdn: DONOR }).update({ status: 'suspended' });
      try {
        const res = await t.sqs.donate(give(PLAN.amount, 'amount', [[R(0), 1]]));
        expect(res.status).toBe(422);
        expect(res.json()).toEqual({ message: expect.any(String), errorCode: 14 });
      } finally {
        await t.app.tdb.db('subscribers').where({ msisdn: DONOR }).update({ status: 'active' });
      }
    });

    it("412 when quotaType is not the plan's", async () => {
      const res = await t.sqs.donate(give(PLAN.amount, 'share', [[R(0), 1]]));
      expect(res.status).toBe(412);
      expect(res.json()).toEqual({
        errors: [{ field: 'quotaType', description: expect.stringContaining('amount') }],
      });
    });

    it('13 counts distinct recipients across the period, and a renewal starts a new one', async () => {
      expect(
        (
          await t.sqs.donate(
            give(
              PLAN.share,
              'share',
              [0, 1, 2].map((i) => [R(i), 1]),
            ),
          )
        ).status,
      ).toBe(200);
      // R(0) again plus two new: 5 distinct, allowed.
      expect(
        (
          await t.sqs.donate(
            give(
              PLAN.share,
              'share',
              [0, 3, 4].map((i) => [R(i), 1]),
            ),
          )
        ).status,
      ).toBe(200);
      const sixth = await t.sqs.donate(give(PLAN.share, 'share', [[R(5), 1]]));
      expect(sixth.status).toBe(422);
      expect(sixth.json().errorCode).toBe(13);
      const renewed = await renew(PLAN.share);
      expect(renewed.period).toBe(2);
      expect((await t.sqs.donate(give(PLAN.share, 'share', [[R(5), 1]]))).status).toBe(200);
    });

    const renew = async (id: number) => {
      const res = await t.app.request('POST', '/graphql', {
        as: 'admin',
        body: {
          query:
            'mutation($id:Int!){ renewSubscriberPlan(id:$id){ plan { period remaining } donation { id errorCode recurringDonationId recipients { recipientId granted errorCode } } } }',
          variables: { id },
        },
      });
      const body = res.json() as {
        data: { renewSubscriberPlan: { plan: { period: number; remaining: number }; donation: unknown } };
      };
      return { ...body.data.renewSubscriberPlan.plan, donation: body.data.renewSubscriberPlan.donation };
    };

    it('XML by default: 200, 207, 404, 412 and 422 bodies', async () => {
      const xml = sqsClient(t.app, { json: false });
      const ok = await xml.donate(give(PLAN.amount, 'amount', [[R(0), 10]]));
      expect(ok.status).toBe(200);
      expect(ok.headers.get('content-type')).toBe('application/xml; charset=utf-8');
      expect(ok.xml()).toEqual({
        id: expect.stringMatching(ID),
        errorCode: '0',
        recipients: { recipientId: R(0), errorCode: '0' },
      });
      const multi = await xml.donate(
        give(PLAN.amount, 'amount', [
          [R(1), 10],
          [UNKNOWN, 1],
        ]),
      );
      expect(multi.status).toBe(207);
      expect(multi.text).toContain(
        `<recipients><recipientId>${R(1)}</recipientId><errorCode>0</errorCode></recipients><recipients><recipientId>${UNKNOWN}</recipientId><errorCode>12</errorCode></recipients>`,
      );
      const notFound = await xml.donate(give(999, 'amount', [[R(0), 1]]));
      expect(notFound.status).toBe(404);
      expect(notFound.xml()).toEqual({ message: expect.any(String), errorCode: '8' });
      const invalid = await xml.donate({ ...give(PLAN.amount, 'amount', [[R(0), 1]]), donorPlanId: 0 });
      expect(invalid.status).toBe(412);
      expect(invalid.xml()).toEqual({ errors: { field: 'donorPlanId', description: expect.any(String) } });
      const refused = await xml.donate(give(PLAN.voice, 'amount', [[R(0), 1]]));
      expect(refused.status).toBe(422);
      expect(refused.text).toMatch(
        /^<\?xml version="1.0" encoding="UTF-8"\?><response><message>[^<]+<\/message><errorCode>16<\/errorCode><\/response>$/,
      );
    });
  });

  describe('POST /sqs/api/donations with a group', () => {
    const family = async (members: [string, number][], quotaType = 'share') => {
      const g = await t.sqs.createGroup({ ownerId: DONOR, name: `family-${Math.random()}`, quotaType });
      expect(g.status).toBe(201);
      const id = g.json().id as string;
      for (const [memberId, quota] of members)
        expect((await t.sqs.addMember(id, { memberId, quota })).status).toBe(201);
      return id;
    };

    it('200: each member receives its quota; the body lists the recipients, no id', async () => {
      const groupId = await family([
        [R(0), 2_500_000],
        [R(1), 5_000_000],
      ]);
      const res = await t.sqs.donate({ donorPlanId: PLAN.share, groupId });
      expect(res.status).toBe(200);
      expect(res.json()).toEqual({
        errorCode: 0,
        recipients: [
          { recipientId: R(0), errorCode: 0 },
          { recipientId: R(1), errorCode: 0 },
        ],
      });
      expect(await remainingOf(t.app.tdb.db, PLAN.share)).toBe(2_500_000_000);
      const d = await t.app.tdb.db('donations').first();
      expect(d.group_id).toBe(groupId);
      await conserved(PLAN.share);
    });

    it('207: only the members that received are listed', async () => {
      const groupId = await family(
        [
          [R(0), 400],
          [INACTIVE, 10],
          [R(1), 700],
          [R(2), 600],
        ],
        'amount',
      );
      const res = await t.sqs.donate({ donorPlanId: PLAN.amount, groupId });
      expect(res.status).toBe(207);
      expect(res.json()).toEqual({
        errorCode: 0,
        recipients: [
          { recipientId: R(0), errorCode: 0 },
          { recipientId: R(2), errorCode: 0 },
        ],
      });
      expect(await remainingOf(t.app.tdb.db, PLAN.amount)).toBe(0);
      const xml = await sqsClient(t.app, { json: false }).donate({ donorPlanId: PLAN.amount, groupId });
      expect(xml.status).toBe(207);
      // An empty array is zero repeated elements (CONTRACT §1 XML mapping).
      expect(xml.xml()).toEqual({ errorCode: '15' });
    });

    it('404 errorCode 5 for an unknown group, 8 for a plan the owner does not hold', async () => {
      const unknown = await t.sqs.donate({ donorPlanId: PLAN.share, groupId: 'AAAAAAAAAAAAAAAAAAAA' });
      expect(unknown.status).toBe(404);
      expect(unknown.json().errorCode).toBe(5);
      const groupId = await family([[R(0), 1]]);
      const other = await t.sqs.donate({ donorPlanId: PLAN.other, groupId });
      expect(other.status).toBe(404);
      expect(other.json().errorCode).toBe(8);
    });

    it("412 when the group quota type is not the plan's", async () => {
      const groupId = await family([[R(0), 1]], 'amount');
      const res = await t.sqs.donate({ donorPlanId: PLAN.share, groupId });
      expect(res.status).toBe(412);
      expect(res.json()).toEqual({ errors: [{ field: 'groupId', description: expect.any(String) }] });
    });
  });

  describe('MAX_PLANS_PER_SUBSCRIBER (errorCode 1)', () => {
    const small = useSharingApp({ MAX_PLANS_PER_SUBSCRIBER: '1' });

    it('single recipient: 422 errorCode 1; several: that recipient 1 in a 207; the same donor plan again is no new plan', async () => {
      const c = small.sqs;
      expect((await c.donate(give(PLAN.amount, 'amount', [[R(0), 10]]))).status).toBe(200);
      const single = await c.donate(give(PLAN.share, 'share', [[R(0), 10]]));
      expect(single.status).toBe(422);
      expect(single.json()).toEqual({ message: expect.any(String), errorCode: 1 });
      const two = await c.donate(
        give(PLAN.share, 'share', [
          [R(0), 10],
          [R(1), 10],
        ]),
      );
      expect(two.status).toBe(207);
      expect((two.json().recipients as { errorCode: number }[]).map((r) => r.errorCode)).toEqual([1, 0]);
      expect((await c.donate(give(PLAN.amount, 'amount', [[R(0), 10]]))).status).toBe(200);
      // OTHER_DONOR already holds a plan of its own.
      expect((await c.donate(give(PLAN.amount, 'amount', [[OTHER_DONOR, 10]]))).json().errorCode).toBe(1);
    });
  });

  describe('groups and members', () => {
    it('create 201 {id, ownerId, name, created, updated}; duplicate owner+name 409/2; unknown owner 422/14', async () => {
      const res = await t.sqs.createGroup({ ownerId: '+' + DONOR, name: 'Family' });
      expect(res.status).toBe(201);
      const g = res.json();
      expect(Object.keys(g)).toEqual(['id', 'ownerId', 'name', 'created', 'updated']);
      expect(g).toEqual({
        id: expect.stringMatching(ID),
        ownerId: DONOR,
        name: 'Family',
        // The published form (CONTRACT §1): UTC, milliseconds, +0000.
        created: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+0000$/),
        updated: g.created,
      });
      const dup = await t.sqs.createGroup({ ownerId: DONOR, name: 'Family' });
      expect(dup.status).toBe(409);
      expect(dup.json()).toEqual({ message: expect.any(String), errorCode: 2 });
      const unknown = await t.sqs.createGroup({ ownerId: UNKNOWN, name: 'Family' });
      expect(unknown.status).toBe(422);
      expect(unknown.json().errorCode).toBe(14);
      const xml = await sqsClient(t.app, { json: false }).createGroup({ ownerId: DONOR, name: 'Family' });
      expect(xml.status).toBe(409);
      expect(xml.xml()).toEqual({ message: expect.any(String), errorCode: '2' });
    });

    it("get by id with members; 404/5 when unknown or another tenant's", async () => {
      const id = (await t.sqs.createGroup({ ownerId: DONOR, name: 'Family' })).json().id as string;
      await t.sqs.addMember(id, { memberId: R(0), quota: 1_000_000 });
      const res = await t.sqs.call('GET', `/sqs/api/groups/${id}`);
      expect(res.status).toBe(200);
      expect(res.json()).toMatchObject({
        id,
        ownerId: DONOR,
        name: 'Family',
        quotaType: 'share',
        members: [{ memberId: R(0), quota: 1_000_000 }],
      });
      expect((await t.sqs.call('GET', '/sqs/api/groups/nope')).json()).toEqual({
        message: expect.any(String),
        errorCode: 5,
      });
      const rival = await t.app.request('GET', `/sqs/api/groups/${id}`, {
        as: 'rival-admin',
        json: true,
        headers: { tenant: 'rival', permissions: 'SQS_GROUP_READ_PERMISSION' },
      });
      expect(rival.status).toBe(404);
      const xml = await sqsClient(t.app, { json: false }).call('GET', `/sqs/api/groups/${id}`);
      expect(xml.xml()).toMatchObject({ id, members: { memberId: R(0), quota: '1000000' } });
    });

    it('list by ownerId or memberId: HAL _embedded.groups, 100 per page with next/prev links', async () => {
      const now = Date.now();
      const acme = (await t.app.tdb.db('tenants').where({ name: 'acme' }).first()).id;
      await t.app.tdb.db('sharing_groups').insert(
        Array.from({ length: 101 }, (_, i) => ({
          id: `g${String(i).padStart(19, '0')}`,
          tenant_id: acme,
          owner_msisdn: DONOR,
          name: `g${i}`,
          quota_type: 'share',
          created_at: now + i,
          updated_at: now + i,
        })),
      );
      const p0 = await t.sqs.call('GET', `/sqs/api/groups?ownerId=${DONOR}`);
      expect(p0.status).toBe(200);
      const b0 = p0.json() as {
        _links: Record<string, { href: string }>;
        _embedded: { groups: { id: string; _links: { self: { href: string } } }[] };
        page: unknown;
      };
      expect(b0._embedded.groups).toHaveLength(100);
      expect(b0._embedded.groups[0].id).toBe('g0000000000000000000');
      expect(b0._embedded.groups[0]._links.self.href).toBe(
        `${t.app.url}/sqs/api/groups/g0000000000000000000`,
      );
      expect(b0.page).toEqual({ size: 100, totalElements: 101, totalPages: 2, number: 0 });
      expect(b0._links.next.href).toBe(`${t.app.url}/sqs/api/groups?ownerId=${DONOR}&page=1`);
      expect(b0._links.prev).toBeUndefined();
      const p1 = (await t.sqs.call('GET', `/sqs/api/groups?ownerId=${DONOR}&page=1`)).json() as typeof b0;
      expect(p1._embedded.groups.map((g) => g.id)).toEqual(['g0000000000000000100']);
      expect(p1._links.prev.href).toContain('page=0');
      expect(p1._links.next).toBeUndefined();
      await t.sqs.addMember('g0000000000000000050', { memberId: R(3), quota: 1 });
      const byMember = (await t.sqs.call('GET', `/sqs/api/groups?memberId=%2B${R(3)}`)).json() as typeof b0;
      expect(byMember._embedded.groups.map((g) => g.id)).toEqual(['g0000000000000000050']);
      const none = await t.sqs.call('GET', '/sqs/api/groups');
      expect(none.status).toBe(412);
      expect(none.json()).toEqual({ errors: [{ field: 'ownerId', description: expect.any(String) }] });
      expect((await t.sqs.call('GET', `/sqs/api/groups?ownerId=${DONOR}&page=x`)).status).toBe(412);
    });

    it('members: 201, 409 when present, 3 owner, 12 unknown, 4 over 100 %, 412 out of range; remove 204 then 404/14', async () => {
      const id = (await t.sqs.createGroup({ ownerId: DONOR, name: 'Family' })).json().id as string;
      const add = await t.sqs.addMember(id, { memberId: '+' + R(0), quota: 6_000_000 });
      expect(add.status).toBe(201);
      expect(add.json()).toEqual({ groupId: id, memberId: R(0), quota: 6_000_000 });
      const again = await t.sqs.addMember(id, { memberId: R(0), quota: 1 });
      expect(again.status).toBe(409);
      expect(again.json()).toEqual({ message: expect.any(String), errorCode: 1 });
      expect((await t.sqs.addMember(id, { memberId: DONOR, quota: 1 })).json()).toEqual({
        message: expect.any(String),
        errorCode: 3,
      });
      expect((await t.sqs.addMember(id, { memberId: UNKNOWN, quota: 1 })).json()).toEqual({
        message: expect.any(String),
        errorCode: 12,
      });
      const over = await t.sqs.addMember(id, { memberId: R(1), quota: 4_000_001 });
      expect(over.status).toBe(422);
      expect(over.json().errorCode).toBe(4);
      expect((await t.sqs.addMember(id, { memberId: R(1), quota: 4_000_000 })).status).toBe(201);
      const range = await t.sqs.addMember(id, { memberId: R(2), quota: 10_000_001 });
      expect(range.status).toBe(412);
      expect(range.json()).toEqual({ errors: [{ field: 'quota', description: expect.any(String) }] });
      expect((await t.sqs.addMember('nope', { memberId: R(2), quota: 1 })).json().errorCode).toBe(5);
      const del = await t.sqs.call('DELETE', `/sqs/api/groups/${id}/members/${R(0)}`);
      expect(del.status).toBe(204);
      expect(del.text).toBe('');
      const gone = await t.sqs.call('DELETE', `/sqs/api/groups/${id}/members/${R(0)}`);
      expect(gone.status).toBe(404);
      expect(gone.json().errorCode).toBe(14);
      expect((await t.sqs.call('DELETE', `/sqs/api/groups/nope/members/${R(0)}`)).json().errorCode).toBe(5);
    });

    it('a group past MAX_GROUP_SIZE (10): 422 errorCode 6', async () => {
      const id = (await t.sqs.createGroup({ ownerId: DONOR, name: 'Big' })).json().id as string;
      for (let i = 0; i < 10; i++)
        expect((await t.sqs.addMember(id, { memberId: R(i), quota: 1000 })).status).toBe(201);
      const res = await t.sqs.addMember(id, { memberId: R(10), quota: 1000 });
      expect(res.status).toBe(422);
      expect(res.json().errorCode).toBe(6);
    });

    it('delete 204 cancels the recurring donation; quota already shared stays', async () => {
      const id = (await t.sqs.createGroup({ ownerId: DONOR, name: 'Family' })).json().id as string;
      await t.sqs.addMember(id, { memberId: R(0), quota: 1_000_000 });
      expect((await t.sqs.donate({ donorPlanId: PLAN.share, groupId: id })).status).toBe(200);
      const rec = await t.sqs.createRecurring({ donorId: DONOR, donorPlanId: PLAN.share, groupId: id });
      expect(rec.status).toBe(201);
      const del = await t.sqs.call('DELETE', `/sqs/api/groups/${id}`);
      expect(del.status).toBe(204);
      expect((await t.sqs.call('GET', `/sqs/api/groups/${id}`)).status).toBe(404);
      expect((await t.sqs.call('GET', `/sqs/api/recurringDonations/${rec.json().id}`)).status).toBe(404);
      expect(await grantedFrom(t.app.tdb.db, PLAN.share)).toBe(1_000_000_000);
      expect((await t.sqs.call('DELETE', `/sqs/api/groups/${id}`)).json().errorCode).toBe(5);
    });
  });

  describe('recurring donations and renewal', () => {
    it('create 201, one per plan 409/11, not recurring 422/9, get 200, delete 204 then 404/1', async () => {
      const res = await t.sqs.createRecurring({
        donorId: DONOR,
        donorPlanId: PLAN.share,
        quotaType: 'share',
        recipients: [{ recipientId: R(0), quota: 1_000_000 }],
      });
      expect(res.status).toBe(201);
      const r = res.json();
      expect(r).toEqual({
        id: expect.stringMatching(ID),
        donorId: DONOR,
        donorPlanId: PLAN.share,
        quotaType: 'share',
        recipients: [{ recipientId: R(0), quota: 1_000_000 }],
        planName: 'Share 10GB',
        created: expect.stringMatching(/\.\d{3}\+0000$/),
        updated: r.created,
        _links: { self: { href: `${t.app.url}/sqs/api/recurringDonations/${r.id}` } },
      });
      const dup = await t.sqs.createRecurring({
        donorId: DONOR,
        donorPlanId: PLAN.share,
        quotaType: 'share',
        recipients: [{ recipientId: R(1), quota: 1 }],
      });
      expect(dup.status).toBe(409);
      expect(dup.json()).toEqual({ message: expect.any(String), errorCode: 11 });
      const notRecurring = await t.sqs.createRecurring({
        donorId: DONOR,
        donorPlanId: PLAN.amount,
        quotaType: 'amount',
        recipients: [{ recipientId: R(1), quota: 1 }],
      });
      expect(notRecurring.status).toBe(422);
      expect(notRecurring.json().errorCode).toBe(9);
      const unknownPlan = await t.sqs.createRecurring({
        donorId: DONOR,
        donorPlanId: 999,
        quotaType: 'amount',
        recipients: [{ recipientId: R(1), quota: 1 }],
      });
      expect(unknownPlan.json().errorCode).toBe(8);
      const get = await t.sqs.call('GET', `/sqs/api/recurringDonations/${r.id}`);
      expect(get.status).toBe(200);
      expect(get.json()).toEqual(r);
      const xml = await sqsClient(t.app, { json: false }).call('GET', `/sqs/api/recurringDonations/${r.id}`);
      expect(xml.xml()).toMatchObject({
        id: r.id,
        donorPlanId: String(PLAN.share),
        recipients: { recipientId: R(0), quota: '1000000' },
      });
      expect((await t.sqs.call('DELETE', `/sqs/api/recurringDonations/${r.id}`)).status).toBe(204);
      const gone = await t.sqs.call('GET', `/sqs/api/recurringDonations/${r.id}`);
      expect(gone.status).toBe(404);
      expect(gone.json()).toEqual({ message: expect.any(String), errorCode: 1 });
      expect((await t.sqs.call('DELETE', `/sqs/api/recurringDonations/${r.id}`)).status).toBe(404);
    });

    it("a group recurring donation needs the donor's own group (412 on groupId)", async () => {
      const id = (await t.sqs.createGroup({ ownerId: OTHER_DONOR, name: 'Theirs' })).json().id as string;
      const res = await t.sqs.createRecurring({ donorId: DONOR, donorPlanId: PLAN.share, groupId: id });
      expect(res.status).toBe(412);
      expect(res.json()).toEqual({ errors: [{ field: 'groupId', description: expect.any(String) }] });
    });

    it('renewal resets remaining and executes the group donation with the member quotas as changed since', async () => {
      const id = (await t.sqs.createGroup({ ownerId: DONOR, name: 'Family' })).json().id as string;
      await t.sqs.addMember(id, { memberId: R(0), quota: 2_500_000 });
      await t.sqs.addMember(id, { memberId: R(1), quota: 2_500_000 });
      const rec = (
        await t.sqs.createRecurring({ donorId: DONOR, donorPlanId: PLAN.share, groupId: id })
      ).json();
      expect((await t.sqs.donate({ donorPlanId: PLAN.share, groupId: id })).status).toBe(200);
      expect(await remainingOf(t.app.tdb.db, PLAN.share)).toBe(5_000_000_000);
      // Change the family after the recurring donation was set up.
      await t.sqs.call('DELETE', `/sqs/api/groups/${id}/members/${R(1)}`);
      await t.sqs.addMember(id, { memberId: R(2), quota: 5_000_000 });
      const res = await t.app.request('POST', '/graphql', {
        as: 'admin',
        body: {
          query: `mutation { renewSubscriberPlan(id: ${PLAN.share}) { plan { period remaining } donation { recurringDonationId errorCode recipients { recipientId granted errorCode } } } }`,
        },
      });
      expect(res.json()).toEqual({
        data: {
          renewSubscriberPlan: {
            plan: { period: 2, remaining: 2_500_000_000 },
            donation: {
              recurringDonationId: rec.id,
              errorCode: 0,
              recipients: [
                { recipientId: R(0), granted: 2_500_000_000, errorCode: 0 },
                { recipientId: R(2), granted: 5_000_000_000, errorCode: 0 },
              ],
            },
          },
        },
      });
      const periods = (await t.app.tdb
        .db('allowances')
        .select('period')
        .sum({ s: 'amount' })
        .where({ donor_plan_id: PLAN.share })
        .groupBy('period')
        .orderBy('period')) as unknown as { period: number; s: number }[];
      expect(periods.map((p) => [Number(p.period), Number(p.s)])).toEqual([
        [1, 5_000_000_000],
        [2, 7_500_000_000],
      ]);
    });

    it('renewal of a plan whose recurring donation is refused still renews and records the refusal', async () => {
      await t.sqs.createRecurring({
        donorId: DONOR,
        donorPlanId: PLAN.share,
        quotaType: 'share',
        recipients: [{ recipientId: R(0), quota: 1 }],
      });
      await t.app.tdb.db('plan_definitions').where({ name: 'Share 10GB' }).update({ shareable: false });
      try {
        const res = await t.app.request('POST', '/graphql', {
          as: 'admin',
          body: {
            query: `mutation { renewSubscriberPlan(id: ${PLAN.share}) { plan { period remaining } donation { errorCode recipients { recipientId } } } }`,
          },
        });
        expect(res.json()).toEqual({
          data: {
            renewSubscriberPlan: {
              plan: { period: 2, remaining: REMAINING[PLAN.share] },
              donation: { errorCode: 16, recipients: [] },
            },
          },
        });
      } finally {
        await t.app.tdb.db('plan_definitions').where({ name: 'Share 10GB' }).update({ shareable: true });
      }
    });
  });

  describe('transport rules (CONTRACT §2)', () => {
    const body = () => give(PLAN.amount, 'amount', [[R(0), 1]]);
    it.each([
      ['no credentials', { headers: { tenant: 'acme', permissions: 'SQS_DONATION_PERMISSION' } }, 401],
      ['no permissions header', { auth: SQS_AUTH, headers: { tenant: 'acme' } }, 403],
      [
        'header names it but the client lacks it',
        { auth: READER_AUTH, headers: { tenant: 'acme', permissions: 'SQS_DONATION_PERMISSION' } },
        403,
      ],
      ['no tenant header', { auth: SQS_AUTH, headers: { permissions: 'SQS_DONATION_PERMISSION' } }, 400],
      [
        'another tenant named',
        { auth: SQS_AUTH, headers: { tenant: 'rival', permissions: 'SQS_DONATION_PERMISSION' } },
        403,
      ],
    ] as [string, { auth?: string; headers: Record<string, string> }, number][])(
      '%s: %i {errorCode, message}, nothing shared',
      async (_n, opts, status) => {
        const res = await t.app.request('POST', '/sqs/api/donations', { ...opts, json: true, body: body() });
        expect(res.status).toBe(status);
        expect(res.json()).toEqual({ errorCode: 1, message: expect.any(String) });
        if (status === 401)
          expect(res.headers.get('www-authenticate')).toBe('Basic realm="subscriber-gateway"');
        expect(await remainingOf(t.app.tdb.db, PLAN.amount)).toBe(1000);
      },
    );

    it('group paths check the grant (a read-only client cannot create, can read)', async () => {
      const create = await t.app.request('POST', '/sqs/api/groups', {
        auth: READER_AUTH,
        json: true,
        headers: { tenant: 'acme', permissions: 'SQS_GROUP_CREATE_UPDATE_PERMISSION' },
        body: { ownerId: DONOR, name: 'x' },
      });
      expect(create.status).toBe(403);
      const read = await t.app.request('GET', `/sqs/api/groups?ownerId=${DONOR}`, {
        auth: READER_AUTH,
        json: true,
        headers: { tenant: 'acme', permissions: 'SQS_GROUP_READ_PERMISSION' },
      });
      expect(read.status).toBe(200);
    });
  });

  describe('GraphQL reads', () => {
    it('plans, donations with recipient results, allowances, groups with members, recurring donation of a plan', async () => {
      const groupId = (await t.sqs.createGroup({ ownerId: DONOR, name: 'Family' })).json().id as string;
      await t.sqs.addMember(groupId, { memberId: R(0), quota: 1_000_000 });
      await t.sqs.createRecurring({ donorId: DONOR, donorPlanId: PLAN.share, groupId });
      const donation = (
        await t.sqs.donate(
          give(PLAN.amount, 'amount', [
            [R(0), 10],
            [UNKNOWN, 5],
          ]),
        )
      ).json();
      const res = await t.app.request('POST', '/graphql', {
        auth: SQS_AUTH,
        body: {
          query: `{
            subscriberPlans(msisdn: "+${DONOR}") { edges { node { planId remaining definition { name unitMeteringType shareQuotaType } recurringDonation { groupId } } } }
            donation(id: "${donation.id}") { donorId errorCode recipients { recipientId quota granted errorCode errorName } }
            allowances(msisdn: "${R(0)}") { edges { node { donorPlanId amount unitMeteringType } } }
            groups(ownerId: "${DONOR}") { totalCount edges { node { id members { edges { node { memberId quota } } } } } }
          }`,
        },
      });
      expect(res.json()).toEqual({
        data: {
          subscriberPlans: {
            edges: [
              {
                node: {
                  planId: PLAN.share,
                  remaining: REMAINING[PLAN.share],
                  definition: {
                    name: 'Share 10GB',
                    unitMeteringType: 'VOLUME',
                    shareQuotaType: 'SHARE',
                  },
                  recurringDonation: { groupId },
                },
              },
              {
                node: {
                  planId: PLAN.amount,
                  remaining: 990,
                  definition: {
                    name: 'Gift 1000',
                    unitMeteringType: 'VOLUME',
                    shareQuotaType: 'AMOUNT',
                  },
                  recurringDonation: null,
                },
              },
              {
                node: {
                  planId: PLAN.voice,
                  remaining: REMAINING[PLAN.voice],
                  definition: {
                    name: 'Voice',
                    unitMeteringType: 'TIME',
                    shareQuotaType: 'AMOUNT',
                  },
                  recurringDonation: null,
                },
              },
              {
                node: {
                  planId: PLAN.credit,
                  remaining: REMAINING[PLAN.credit],
                  definition: {
                    name: 'Credit',
                    unitMeteringType: 'CREDIT',
                    shareQuotaType: 'AMOUNT',
                  },
                  recurringDonation: null,
                },
              },
            ],
          },
          donation: {
            donorId: DONOR,
            errorCode: 0,
            recipients: [
              { recipientId: R(0), quota: 10, granted: 10, errorCode: 0, errorName: 'OK' },
              { recipientId: UNKNOWN, quota: 5, granted: 0, errorCode: 12, errorName: 'RECIPIENT_NOT_FOUND' },
            ],
          },
          allowances: {
            edges: [{ node: { donorPlanId: PLAN.amount, amount: 10, unitMeteringType: 'VOLUME' } }],
          },
          groups: {
            totalCount: 1,
            edges: [
              { node: { id: groupId, members: { edges: [{ node: { memberId: R(0), quota: 1_000_000 } }] } } },
            ],
          },
        },
      });
    });

    it('whole-request refusals are userErrors with a typed code (errorCode 16: PLAN_NOT_SHAREABLE)', async () => {
      const res = await t.app.request('POST', '/graphql', {
        auth: SQS_AUTH,
        body: {
          query:
            'mutation($r: DonationInput!){ shareQuota(input: $r) { donation { id } userErrors { code field message } } }',
          variables: { r: { ...give(PLAN.voice, 'amount', [[R(0), 1]]), quotaType: 'AMOUNT' } },
        },
      });
      expect(res.json()).toEqual({
        data: {
          shareQuota: {
            donation: null,
            userErrors: [{ code: 'PLAN_NOT_SHAREABLE', field: null, message: expect.any(String) }],
          },
        },
      });
    });
  });
});
