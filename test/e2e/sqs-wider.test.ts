import { basic } from '../helpers/fixtures';
import {
  DONOR,
  INACTIVE,
  OTHER_DONOR,
  PLAN,
  R,
  READER_AUTH,
  SQS_AUTH,
  SQS_PERMISSIONS,
  sqsClient,
  useSharingApp,
} from '../helpers/sharing';

/**
 * The source product's wider SQS API (docs/contract.md §5): PUT group, member list, PUT member, bulk add
 * and delete, the recurring donation list, the published recurring form, the permissions header
 * of every SQS path, the published time form and HAL links. MAX_GROUP_SIZE is 100 here so that
 * a 100-entry bulk request can succeed but for its one bad entry.
 */

const UNKNOWN = '353870000999';

/** A recurring donation body and a HAL page of them. */
type Recurring = { id: string; planName: string; _links: { self: { href: string } } };
type Hal = {
  _links: Record<string, { href: string }>;
  _embedded: { recurringDonations: Recurring[] };
  page: unknown;
};
/** The published time form `2019-08-07T15:01:58.000+0000`. */
const PUBLISHED_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+0000$/;
/** Active acme subscribers: R(0..79) then 40 more created here. */
const M = (i: number) => (i < 80 ? R(i) : `3538730${String(i - 80).padStart(5, '0')}`);

describe('the wider SQS API over REST and GraphQL', () => {
  const t = useSharingApp({ MAX_GROUP_SIZE: '100' });
  const db = () => t.app.tdb.db;
  const xml = () => sqsClient(t.app, { json: false });

  beforeAll(async () => {
    const model = await db()('subscribers')
      .where({ msisdn: R(0) })
      .first();
    const { id: _id, ...row } = model as Record<string, unknown>;
    await db()('subscribers')
      .insert(Array.from({ length: 40 }, (_, i) => ({ ...row, msisdn: M(80 + i) })))
      .onConflict(['tenant_id', 'msisdn'])
      .ignore();
  });

  const group = async (name = 'Family', quotaType = 'share', ownerId = DONOR) => {
    const res = await t.sqs.createGroup({ ownerId, name, quotaType });
    expect(res.status).toBe(201);
    return res.json().id as string;
  };
  const membersInDb = async (groupId: string) =>
    (await db()('group_members').where({ group_id: groupId }).orderBy('id')).map(
      (r) => [String(r.member_msisdn), Number(r.quota)] as [string, number],
    );
  const put = (path: string, body: unknown, extra?: Record<string, string>) =>
    t.sqs.call('PUT', path, body, extra);
  const bulkAdd = (groupId: string, members: [string, number][]) =>
    put(`/sqs/api/groups/${groupId}/members/_bulk/add`, {
      members: members.map(([memberId, quota]) => ({ memberId, quota })),
    });
  const bulkDelete = (groupId: string, members: unknown[]) =>
    put(`/sqs/api/groups/${groupId}/members/_bulk/delete`, { members });
  const errorsOf = (body: Record<string, unknown>) =>
    (body.errors as { field: string }[]).map((e) => e.field);

  describe('PUT /sqs/api/groups/<id>', () => {
    it('200 {created, updated, id, ownerId, name} with updated advanced and the name stored', async () => {
      const id = await group();
      const before = (await t.sqs.call('GET', `/sqs/api/groups/${id}`)).json();
      const res = await put(`/sqs/api/groups/${id}`, { id, ownerId: '+' + DONOR, name: 'Renamed' });
      expect(res.status).toBe(200);
      const body = res.json();
      expect(Object.keys(body)).toEqual(['created', 'updated', 'id', 'ownerId', 'name']);
      expect(body).toEqual({
        created: before.created,
        updated: expect.any(String),
        id,
        ownerId: DONOR,
        name: 'Renamed',
      });
      expect(body.created).toMatch(PUBLISHED_TIME);
      expect(body.updated).toMatch(PUBLISHED_TIME);
      const ms = (v: unknown) => Date.parse(String(v).replace('+0000', 'Z'));
      expect(ms(body.updated)).toBeGreaterThan(ms(before.updated));
      expect((await db()('sharing_groups').where({ id }).first()).name).toBe('Renamed');
      const x = await xml().call('PUT', `/sqs/api/groups/${id}`, { id, ownerId: DONOR, name: 'Again' });
      expect(x.status).toBe(200);
      expect(x.xml()).toMatchObject({ id, ownerId: DONOR, name: 'Again', created: before.created });
    });

    it('412 per missing field, on id not the path and on an owner change; 400 wrong type; 409/2; 404/5', async () => {
      const id = await group();
      await group('Other');
      const missing = await put(`/sqs/api/groups/${id}`, {});
      expect(missing.status).toBe(412);
      expect(errorsOf(missing.json())).toEqual(['id', 'ownerId', 'name']);
      const wrongType = await put(`/sqs/api/groups/${id}`, { id, ownerId: DONOR, name: 7 });
      expect(wrongType.status).toBe(400);
      const otherId = await put(`/sqs/api/groups/${id}`, { id: 'x', ownerId: DONOR, name: 'n' });
      expect(otherId.status).toBe(412);
      expect(errorsOf(otherId.json())).toEqual(['id']);
      const owner = await put(`/sqs/api/groups/${id}`, { id, ownerId: OTHER_DONOR, name: 'n' });
      expect(owner.status).toBe(412);
      expect(errorsOf(owner.json())).toEqual(['ownerId']);
      const taken = await put(`/sqs/api/groups/${id}`, { id, ownerId: DONOR, name: 'Other' });
      expect(taken.status).toBe(409);
      expect(taken.json()).toEqual({ message: expect.any(String), errorCode: 2 });
      const unknown = await put('/sqs/api/groups/nope', { id: 'nope', ownerId: DONOR, name: 'n' });
      expect(unknown.status).toBe(404);
      expect(unknown.json()).toEqual({ message: expect.any(String), errorCode: 5 });
      const x = await xml().call('PUT', '/sqs/api/groups/nope', { id: 'nope', ownerId: DONOR, name: 'n' });
      expect(x.xml()).toEqual({ message: expect.any(String), errorCode: '5' });
      const x412 = await xml().call('PUT', `/sqs/api/groups/${id}`, { id, ownerId: OTHER_DONOR, name: 'n' });
      expect(x412.xml()).toEqual({ errors: { field: 'ownerId', description: expect.any(String) } });
      expect((await db()('sharing_groups').where({ id }).first()).name).toBe('Family');
    });
  });

  describe('GET /sqs/api/groups/<id>/members', () => {
    it('200 {_embedded.members in joining order, page}; page 1 empty; 404/5; XML', async () => {
      const id = await group();
      await t.sqs.addMember(id, { memberId: R(2), quota: 100 });
      await t.sqs.addMember(id, { memberId: R(1), quota: 200 });
      const res = await t.sqs.call('GET', `/sqs/api/groups/${id}/members`);
      expect(res.status).toBe(200);
      expect(res.json()).toEqual({
        _embedded: {
          members: [
            { memberId: R(2), quota: 100 },
            { memberId: R(1), quota: 200 },
          ],
        },
        page: { size: 100, totalElements: 2, totalPages: 1, number: 0 },
      });
      const p1 = await t.sqs.call('GET', `/sqs/api/groups/${id}/members?page=1`);
      expect(p1.json()).toEqual({
        _embedded: { members: [] },
        page: { size: 100, totalElements: 2, totalPages: 1, number: 1 },
      });
      expect((await t.sqs.call('GET', `/sqs/api/groups/${id}/members?page=-1`)).status).toBe(412);
      const unknown = await t.sqs.call('GET', '/sqs/api/groups/nope/members');
      expect(unknown.status).toBe(404);
      expect(unknown.json().errorCode).toBe(5);
      const x = await xml().call('GET', `/sqs/api/groups/${id}/members`);
      expect(x.xml()).toEqual({
        _embedded: {
          members: [
            { memberId: R(2), quota: '100' },
            { memberId: R(1), quota: '200' },
          ],
        },
        page: { size: '100', totalElements: '2', totalPages: '1', number: '0' },
      });
    });
  });

  describe('PUT /sqs/api/groups/<id>/members/<memberId>', () => {
    it('201 adds, 201 updates the quota; 412 memberId not the path; 3, 4, 12, 14; 404/5; 400', async () => {
      const id = await group();
      const path = (m: string) => `/sqs/api/groups/${id}/members/${m}`;
      const add = await put(path(R(0)), { memberId: '+' + R(0), quota: 6_000_000 });
      expect(add.status).toBe(201);
      expect(add.json()).toEqual({ memberId: R(0), quota: 6_000_000 });
      const update = await put(path(R(0)), { memberId: R(0), quota: 9_000_000 });
      expect(update.status).toBe(201);
      expect(await membersInDb(id)).toEqual([[R(0), 9_000_000]]);
      const over = await put(path(R(1)), { memberId: R(1), quota: 1_000_001 });
      expect(over.status).toBe(422);
      expect(over.json()).toEqual({ message: expect.any(String), errorCode: 4 });
      const mismatch = await put(path(R(1)), { memberId: R(2), quota: 1 });
      expect(mismatch.status).toBe(412);
      expect(errorsOf(mismatch.json())).toEqual(['memberId']);
      for (const [m, code] of [
        [DONOR, 3],
        [UNKNOWN, 12],
        [INACTIVE, 14],
      ] as const) {
        const res = await put(path(m), { memberId: m, quota: 1 });
        expect([res.status, res.json().errorCode]).toEqual([422, code]);
      }
      const range = await put(path(R(1)), { memberId: R(1), quota: 10_000_001 });
      expect(range.status).toBe(412);
      expect(errorsOf(range.json())).toEqual(['quota']);
      expect((await put(path(R(1)), { memberId: R(1), quota: '1' })).status).toBe(400);
      expect((await put(path(R(1)), { memberId: R(1) })).status).toBe(412);
      const unknown = await put(`/sqs/api/groups/nope/members/${R(1)}`, { memberId: R(1), quota: 1 });
      expect([unknown.status, unknown.json().errorCode]).toEqual([404, 5]);
      expect(await membersInDb(id)).toEqual([[R(0), 9_000_000]]);
      const x = await xml().call('PUT', path(R(1)), { memberId: R(1), quota: 5 });
      expect(x.status).toBe(201);
      expect(x.xml()).toEqual({ memberId: R(1), quota: '5' });
    });
  });

  describe('PUT /sqs/api/groups/<id>/members/_bulk/add', () => {
    it('200 {members} in request order; adds and updates; limits judged on the group after the request', async () => {
      const id = await group();
      await t.sqs.addMember(id, { memberId: R(0), quota: 6_000_000 });
      // Entry by entry with R(0) still at 6M, R(1) at 8M would pass 100 %; after the request it is 9M.
      const res = await bulkAdd(id, [
        [R(1), 8_000_000],
        [R(0), 1_000_000],
      ]);
      expect(res.status).toBe(200);
      expect(res.json()).toEqual({
        members: [
          { memberId: R(1), quota: 8_000_000 },
          { memberId: R(0), quota: 1_000_000 },
        ],
      });
      expect(await membersInDb(id)).toEqual([
        [R(0), 1_000_000],
        [R(1), 8_000_000],
      ]);
      const over = await bulkAdd(id, [[R(2), 1_000_001]]);
      expect([over.status, over.json().errorCode]).toEqual([422, 4]);
      const x = await xml().call('PUT', `/sqs/api/groups/${id}/members/_bulk/add`, {
        members: [{ memberId: R(2), quota: 1 }],
      });
      expect(x.status).toBe(200);
      expect(x.xml()).toEqual({ members: { memberId: R(2), quota: '1' } });
    });

    it('size: 99 members, one updated and one added is 100; one more is 422/6', async () => {
      const id = await group('Big', 'amount');
      const acme = (await db()('tenants').where({ name: 'acme' }).first()).id;
      expect(acme).toBeDefined();
      await db()('group_members').insert(
        Array.from({ length: 99 }, (_, i) => ({
          group_id: id,
          member_msisdn: M(i),
          quota: 1,
          created_at: 1,
        })),
      );
      expect(
        (
          await bulkAdd(id, [
            [M(0), 5],
            [M(99), 5],
          ])
        ).status,
      ).toBe(200);
      const full = await bulkAdd(id, [[M(100), 5]]);
      expect([full.status, full.json().errorCode]).toEqual([422, 6]);
      expect(await membersInDb(id)).toHaveLength(100);
    });

    it('412: empty, over 100, a memberId twice (members[i].memberId), a bad quota; 400 wrong types; 404/5', async () => {
      const id = await group();
      const empty = await bulkAdd(id, []);
      expect([empty.status, errorsOf(empty.json())]).toEqual([412, ['members']]);
      const many = await bulkAdd(
        id,
        Array.from({ length: 101 }, (_, i) => [M(i), 1]),
      );
      expect([many.status, errorsOf(many.json())]).toEqual([412, ['members']]);
      const twice = await bulkAdd(id, [
        [R(0), 1],
        ['+' + R(0), 1],
      ]);
      expect([twice.status, errorsOf(twice.json())]).toEqual([412, ['members[1].memberId']]);
      const quota = await bulkAdd(id, [
        [R(0), 1],
        [R(1), -1],
      ]);
      expect([quota.status, errorsOf(quota.json())]).toEqual([412, ['members[1].quota']]);
      const half = await bulkAdd(id, [[R(0), 1.5]]);
      expect([half.status, errorsOf(half.json())]).toEqual([412, ['members[0].quota']]);
      const missing = await put(`/sqs/api/groups/${id}/members/_bulk/add`, { members: [{ memberId: R(0) }] });
      expect([missing.status, errorsOf(missing.json())]).toEqual([412, ['members[0].quota']]);
      expect((await put(`/sqs/api/groups/${id}/members/_bulk/add`, { members: {} })).status).toBe(400);
      expect((await put(`/sqs/api/groups/${id}/members/_bulk/add`, { members: ['x'] })).status).toBe(400);
      expect((await bulkAdd(id, [[R(0), '1' as never]])).status).toBe(400);
      const unknown = await bulkAdd('nope', [[R(0), 1]]);
      expect([unknown.status, unknown.json().errorCode]).toEqual([404, 5]);
      expect(await membersInDb(id)).toEqual([]);
    });

    it.each([
      ['an unknown subscriber', UNKNOWN, 1, 422, 12],
      ['the owner', DONOR, 1, 422, 3],
      ['an inactive subscriber', INACTIVE, 1, 422, 14],
      ['an out-of-range quota', M(57), 10_000_001, 412, 'members[57].quota'],
    ] as const)(
      'atomic: 100 entries with %s at one of them: that answer, nothing changed',
      async (_n, m, q, status, code) => {
        const id = await group('Atomic', 'share');
        await t.sqs.addMember(id, { memberId: M(0), quota: 7 });
        const entries = Array.from({ length: 100 }, (_, i) => [M(i), 1000] as [string, number]);
        entries[57] = [m, q];
        const res = await bulkAdd(id, entries);
        expect(res.status).toBe(status);
        if (status === 412) expect(errorsOf(res.json())).toEqual([code]);
        else expect(res.json()).toEqual({ message: expect.any(String), errorCode: code });
        expect(await membersInDb(id)).toEqual([[M(0), 7]]);
      },
    );

    it('the first failing entry answers', async () => {
      const id = await group();
      const res = await bulkAdd(id, [
        [R(0), 1],
        [INACTIVE, 1],
        [UNKNOWN, 1],
      ]);
      expect(res.json().errorCode).toBe(14);
    });
  });

  describe('PUT /sqs/api/groups/<id>/members/_bulk/delete', () => {
    it('204 removes the members listed, ignores others; atomic on a bad entry; 404/5; 400', async () => {
      const id = await group();
      for (const i of [0, 1, 2]) await t.sqs.addMember(id, { memberId: R(i), quota: 1 });
      const bad = await bulkDelete(id, [R(0), 'not-a-number']);
      expect([bad.status, errorsOf(bad.json())]).toEqual([412, ['members[1]']]);
      expect(await membersInDb(id)).toHaveLength(3);
      expect((await bulkDelete(id, [R(0), 7])).status).toBe(400);
      expect((await bulkDelete(id, [])).status).toBe(412);
      const res = await bulkDelete(id, ['+' + R(0), R(2), UNKNOWN]);
      expect(res.status).toBe(204);
      expect(res.text).toBe('');
      expect(await membersInDb(id)).toEqual([[R(1), 1]]);
      const unknown = await bulkDelete('nope', [R(0)]);
      expect([unknown.status, unknown.json().errorCode]).toEqual([404, 5]);
      const x = await xml().call('PUT', `/sqs/api/groups/${id}/members/_bulk/delete`, { members: [R(1)] });
      expect(x.status).toBe(204);
      expect(await membersInDb(id)).toEqual([]);
    });

    it('100 entries, one malformed: nothing removed', async () => {
      const id = await group('Many', 'amount');
      await bulkAdd(
        id,
        Array.from({ length: 100 }, (_, i) => [M(i), 1]),
      );
      const list: unknown[] = Array.from({ length: 100 }, (_, i) => M(i));
      list[99] = '12';
      const res = await bulkDelete(id, list);
      expect([res.status, errorsOf(res.json())]).toEqual([412, ['members[99]']]);
      expect(await membersInDb(id)).toHaveLength(100);
    });
  });

  describe('concurrency: simultaneous bulk adds cannot pass the limits', () => {
    it('size: 94 members and 6 bulk adds of 3 new each: at most 2 succeed, never over 100', async () => {
      const id = await group('Crowd', 'amount');
      await db()('group_members').insert(
        Array.from({ length: 94 }, (_, i) => ({
          group_id: id,
          member_msisdn: M(i),
          quota: 1,
          created_at: 1,
        })),
      );
      const results = await Promise.all(
        Array.from({ length: 6 }, (_, k) =>
          bulkAdd(
            id,
            [0, 1, 2].map((j) => [M(94 + 3 * k + j), 1] as [string, number]),
          ),
        ),
      );
      const statuses = results.map((r) => r.status);
      expect(statuses.filter((s) => s === 200)).toHaveLength(2);
      expect(results.filter((r) => r.status === 422).map((r) => r.json().errorCode)).toEqual([6, 6, 6, 6]);
      expect(await membersInDb(id)).toHaveLength(100);
    });

    it('share sum: 8 bulk adds of 2 × 20 %: at most 2 succeed, the sum never over 10^7', async () => {
      const id = await group('Shares');
      const results = await Promise.all(
        Array.from({ length: 8 }, (_, k) =>
          bulkAdd(id, [
            [R(2 * k), 2_000_000],
            [R(2 * k + 1), 2_000_000],
          ]),
        ),
      );
      expect(results.filter((r) => r.status === 200)).toHaveLength(2);
      expect(results.filter((r) => r.status === 422).map((r) => r.json().errorCode)).toEqual(
        Array(6).fill(4),
      );
      const sum = (await membersInDb(id)).reduce((s, [, q]) => s + q, 0);
      expect(sum).toBe(8_000_000);
    });
  });

  describe('recurring donations: the list, the published form, planName and links', () => {
    it('POST {donorPlanId, groupId}: the donor is the group owner; 201 with planName, times and _links.self', async () => {
      const groupId = await group();
      const res = await t.sqs.createRecurring({ donorPlanId: PLAN.share, groupId });
      expect(res.status).toBe(201);
      const r = res.json();
      expect(r).toEqual({
        id: expect.any(String),
        donorId: DONOR,
        donorPlanId: PLAN.share,
        quotaType: 'share',
        groupId,
        planName: 'Share 10GB',
        created: expect.stringMatching(PUBLISHED_TIME),
        updated: r.created,
        _links: { self: { href: `${t.app.url}/sqs/api/recurringDonations/${r.id}` } },
      });
      const unknown = await t.sqs.createRecurring({ donorPlanId: PLAN.share, groupId: 'nope' });
      expect([unknown.status, unknown.json().errorCode]).toEqual([404, 5]);
      const notOwners = await t.sqs.createRecurring({
        donorPlanId: PLAN.share,
        groupId: await group('x', 'share', OTHER_DONOR),
      });
      expect([notOwners.status, notOwners.json().errorCode]).toEqual([404, 8]);
    });

    it('GET ?donorId=|groupId=: HAL page; every _links href answers 200; 412 without either', async () => {
      const groupId = await group();
      const a = (await t.sqs.createRecurring({ donorPlanId: PLAN.share, groupId })).json() as Recurring;
      const bId = (
        await t.sqs.createRecurring({
          donorId: DONOR,
          donorPlanId: PLAN.credit,
          quotaType: 'amount',
          recipients: [{ recipientId: R(0), quota: 5 }],
        })
      ).json().id as string;
      // The test clock stands still: make b one second younger, so "oldest first" is a's then b's.
      await db()('recurring_donations')
        .where({ id: bId })
        .update({ created_at: db().raw('created_at + 1000') });
      const b = (await t.sqs.call('GET', `/sqs/api/recurringDonations/${bId}`)).json();
      await t.sqs.createRecurring({
        donorPlanId: PLAN.other,
        groupId: await group('o', 'share', OTHER_DONOR),
      });
      const res = await t.sqs.call('GET', `/sqs/api/recurringDonations?donorId=%2B${DONOR}`);
      expect(res.status).toBe(200);
      const body = res.json() as Hal;
      expect(body).toEqual({
        _links: { self: { href: `${t.app.url}/sqs/api/recurringDonations?donorId=%2B${DONOR}&page=0` } },
        _embedded: { recurringDonations: [a, b] },
        page: { size: 100, totalElements: 2, totalPages: 1, number: 0 },
      });
      expect(b.planName).toBe('Credit');
      const byGroup = (
        await t.sqs.call('GET', `/sqs/api/recurringDonations?groupId=${groupId}`)
      ).json() as Hal;
      expect(byGroup._embedded.recurringDonations).toEqual([a]);
      const both = (
        await t.sqs.call('GET', `/sqs/api/recurringDonations?donorId=${DONOR}&groupId=${groupId}&page=1`)
      ).json() as Hal;
      expect(both._embedded.recurringDonations).toEqual([]);
      expect(both.page).toEqual({ size: 100, totalElements: 1, totalPages: 1, number: 1 });
      const hrefs = [
        body._links.self.href,
        both._links.prev.href,
        ...body._embedded.recurringDonations.map(
          (r: { _links: { self: { href: string } } }) => r._links.self.href,
        ),
      ];
      for (const href of hrefs) {
        const got = await t.sqs.call('GET', href.slice(t.app.url.length));
        expect([href, got.status]).toEqual([href, 200]);
      }
      const none = await t.sqs.call('GET', '/sqs/api/recurringDonations');
      expect([none.status, errorsOf(none.json())]).toEqual([412, ['donorId']]);
      expect((await t.sqs.call('GET', `/sqs/api/recurringDonations?donorId=abc`)).status).toBe(412);
      const x = await xml().call('GET', `/sqs/api/recurringDonations?groupId=${groupId}`);
      expect(x.xml()).toMatchObject({
        _embedded: {
          recurringDonations: {
            id: a.id,
            planName: 'Share 10GB',
            _links: { self: { href: a._links.self.href } },
          },
        },
        page: { size: '100', totalElements: '1' },
      });
    });
  });

  describe('the permissions header and grant on every SQS path (CONTRACT §2)', () => {
    const G = 'g0000000000000000001';
    const paths: [string, string, string][] = [
      ['POST', '/sqs/api/donations', 'SQS_DONATION_PERMISSION'],
      ['POST', '/sqs/api/groups', 'SQS_GROUP_CREATE_UPDATE_PERMISSION'],
      ['GET', `/sqs/api/groups/${G}`, 'SQS_GROUP_READ_PERMISSION'],
      ['GET', `/sqs/api/groups?ownerId=${DONOR}`, 'SQS_GROUP_READ_PERMISSION'],
      ['PUT', `/sqs/api/groups/${G}`, 'SQS_GROUP_CREATE_UPDATE_PERMISSION'],
      ['DELETE', `/sqs/api/groups/${G}`, 'SQS_GROUP_DELETE_PERMISSION'],
      ['GET', `/sqs/api/groups/${G}/members`, 'SQS_GROUP_READ_PERMISSION'],
      ['POST', `/sqs/api/groups/${G}/members`, 'SQS_GROUP_CREATE_UPDATE_PERMISSION'],
      ['PUT', `/sqs/api/groups/${G}/members/${R(0)}`, 'SQS_GROUP_CREATE_UPDATE_PERMISSION'],
      ['DELETE', `/sqs/api/groups/${G}/members/${R(0)}`, 'SQS_GROUP_DELETE_PERMISSION'],
      ['PUT', `/sqs/api/groups/${G}/members/_bulk/add`, 'SQS_GROUP_CREATE_UPDATE_PERMISSION'],
      ['PUT', `/sqs/api/groups/${G}/members/_bulk/delete`, 'SQS_GROUP_DELETE_PERMISSION'],
      ['POST', '/sqs/api/recurringDonations', 'SQS_RECURRING_DONATION_CREATE_UPDATE_PERMISSION'],
      ['GET', `/sqs/api/recurringDonations?donorId=${DONOR}`, 'SQS_RECURRING_DONATION_READ_PERMISSION'],
      ['GET', '/sqs/api/recurringDonations/x', 'SQS_RECURRING_DONATION_READ_PERMISSION'],
      ['DELETE', '/sqs/api/recurringDonations/x', 'SQS_RECURRING_DONATION_DELETE_PERMISSION'],
    ];
    it.each(paths)('%s %s needs the header naming %s and the grant', async (method, path, permission) => {
      const others = SQS_PERMISSIONS.filter((p) => p !== permission).join(',');
      const call = (auth: string, permissions?: string) =>
        t.app.request(method, path, {
          auth,
          json: true,
          headers: { tenant: 'acme', ...(permissions === undefined ? {} : { permissions }) },
          body: method === 'POST' || method === 'PUT' ? {} : undefined,
        });
      for (const res of [await call(SQS_AUTH), await call(SQS_AUTH, others)]) {
        expect(res.status).toBe(403);
        expect(res.json()).toEqual({ errorCode: 1, message: expect.stringContaining(permission) });
      }
      // The header names it but the client does not hold it (the reader holds only group reads).
      const lacking = permission === 'SQS_GROUP_READ_PERMISSION' ? basic('nogrant') : READER_AUTH;
      expect((await call(lacking, permission)).status).toBe(403);
      // With both, the request gets past the transport rules.
      expect((await call(SQS_AUTH, `x, ${permission}`)).status).not.toBe(403);
    });
  });

  describe('Idempotency-Key on the new PUT rows', () => {
    it('a repeat of the same bulk add replays the first answer; another body is 422/1', async () => {
      const id = await group();
      const body = { members: [{ memberId: R(0), quota: 1 }] };
      const key = { 'idempotency-key': 'bulk-1' };
      const first = await put(`/sqs/api/groups/${id}/members/_bulk/add`, body, key);
      expect(first.status).toBe(200);
      await db()('group_members').where({ group_id: id }).delete();
      const again = await put(`/sqs/api/groups/${id}/members/_bulk/add`, body, key);
      expect([again.status, again.text]).toEqual([200, first.text]);
      expect(await membersInDb(id)).toEqual([]);
      const other = await put(
        `/sqs/api/groups/${id}/members/_bulk/add`,
        { members: [{ memberId: R(1), quota: 1 }] },
        key,
      );
      expect([other.status, other.json().errorCode]).toEqual([422, 1]);
    });
  });

  describe('GraphQL: the same operations with typed inputs', () => {
    const gql = async (query: string, variables: Record<string, unknown> = {}) =>
      (await t.app.request('POST', '/graphql', { auth: SQS_AUTH, body: { query, variables } })).json() as {
        data?: Record<string, unknown>;
        errors?: { extensions: Record<string, unknown> }[];
      };

    it('updateGroup, upsertGroupMember, addGroupMembers, removeGroupMembers, group members(page), recurringDonations', async () => {
      const id = await group();
      const r = await gql(
        `mutation($id: ID!, $m: [GroupMemberInput!]!) {
          updateGroup(id: $id, input: { id: $id, ownerId: "${DONOR}", name: "Typed" }) { group { name } userErrors { code } }
          upsertGroupMember(groupId: $id, memberId: "${R(0)}", input: { memberId: "${R(0)}", quota: 5 }) { groupMember { memberId quota } }
          addGroupMembers(groupId: $id, members: $m) { groupMembers { memberId quota } }
        }`,
        {
          id,
          m: [
            { memberId: R(1), quota: 6 },
            { memberId: R(2), quota: 7 },
          ],
        },
      );
      expect(r).toEqual({
        data: {
          updateGroup: { group: { name: 'Typed' }, userErrors: [] },
          upsertGroupMember: { groupMember: { memberId: R(0), quota: 5 } },
          addGroupMembers: {
            groupMembers: [
              { memberId: R(1), quota: 6 },
              { memberId: R(2), quota: 7 },
            ],
          },
        },
      });
      const removed = await gql(
        `mutation($id: ID!) { removeGroupMembers(groupId: $id, memberIds: ["${R(1)}"]) { deletedGroupMemberIds userErrors { code } } }`,
        { id },
      );
      expect(removed).toEqual({
        data: { removeGroupMembers: { deletedGroupMemberIds: [expect.any(String)], userErrors: [] } },
      });
      await t.sqs.createRecurring({ donorPlanId: PLAN.share, groupId: id });
      const read = await gql(
        `query($id: ID!, $groupId: ID!) {
          group(id: $id) { memberCount members(page: 0) { edges { node { memberId } } } }
          recurringDonations(groupId: $groupId) { totalCount edges { node { planName groupId } } }
        }`,
        { id, groupId: id },
      );
      expect(read).toEqual({
        data: {
          group: {
            memberCount: 2,
            members: { edges: [{ node: { memberId: R(0) } }, { node: { memberId: R(2) } }] },
          },
          recurringDonations: { totalCount: 1, edges: [{ node: { planName: 'Share 10GB', groupId: id } }] },
        },
      });
    });

    it('field-level errors name the offending input field; refusals are typed userErrors', async () => {
      const id = await group();
      const bad = await gql(
        `mutation($id: ID!, $m: [GroupMemberInput!]!) { addGroupMembers(groupId: $id, members: $m) { groupMembers { memberId } } }`,
        {
          id,
          m: [
            { memberId: R(0), quota: 1 },
            { memberId: 'x', quota: 1 },
          ],
        },
      );
      // A malformed MSISDN is refused by the scalar before any resolver runs.
      expect(bad.errors?.[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT' });
      const twice = await gql(
        `mutation($id: ID!) { addGroupMembers(groupId: $id, members: [{ memberId: "${R(0)}", quota: 1 }, { memberId: "+${R(0)}", quota: 1 }]) { groupMembers { memberId } userErrors { code field } } }`,
        { id },
      );
      expect(twice).toEqual({
        data: {
          addGroupMembers: {
            groupMembers: null,
            userErrors: [{ code: 'INVALID', field: ['members', '1', 'memberId'] }],
          },
        },
      });
      const owner = await gql(
        `mutation($id: ID!) { updateGroup(id: $id, input: { id: $id, ownerId: "${OTHER_DONOR}", name: "n" }) { group { id } userErrors { code field } } }`,
        { id },
      );
      expect(owner).toEqual({
        data: {
          updateGroup: { group: null, userErrors: [{ code: 'INVALID', field: ['input', 'ownerId'] }] },
        },
      });
      const full = await gql(
        `mutation($id: ID!) { upsertGroupMember(groupId: $id, memberId: "${DONOR}", input: { memberId: "${DONOR}", quota: 1 }) { groupMember { memberId } userErrors { code } } }`,
        { id },
      );
      expect(full).toEqual({
        data: { upsertGroupMember: { groupMember: null, userErrors: [{ code: 'MEMBER_IS_OWNER' }] } },
      });
      const untyped = await gql(
        `mutation($id: ID!) { addGroupMembers(groupId: $id, members: [{ memberId: "${R(0)}" }]) { groupMembers { memberId } } }`,
        { id },
      );
      expect(untyped.errors).toBeDefined();
      expect(await membersInDb(id)).toEqual([]);
    });
  });
});
