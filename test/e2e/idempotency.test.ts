import {
  IDEMPOTENCY_LEASE_MS,
  IDEMPOTENCY_WINDOW_MS,
  fingerprint,
} from '../../src/modules/idempotency/idempotency.service';
import { TestApp, TestResponse, startTestApp } from '../helpers/app';
import { withFailingWrites } from '../helpers/faults';
import { basic } from '../helpers/fixtures';
import {
  DONOR,
  PLAN,
  R,
  REMAINING,
  RIVAL_SUB,
  SQS_AUTH,
  remainingOf,
  sqsClient,
  useSharingApp,
} from '../helpers/sharing';
import { waitFor } from '../helpers/wait';

const UNKNOWN = '353870000999';

/** An `amount` donation from the donor's plan 101 (1000 bytes). */
const gift = (recipients: [string, number][]) => ({
  donorId: DONOR,
  donorPlanId: PLAN.amount,
  quotaType: 'amount',
  recipients: recipients.map(([recipientId, quota]) => ({ recipientId, quota })),
});

const keyed = (key: string) => ({ 'idempotency-key': key });

describe('Idempotency-Key on the SQS POST paths (CONTRACT §5) on the real database', () => {
  const t = useSharingApp();
  const db = () => t.app.tdb.db;
  const count = async (table: string, where: Record<string, unknown> = {}) =>
    Number((await db()(table).where(where).count({ n: '*' }).first())!.n);
  const donate = (body: unknown, key: string, app: TestApp = t.app) =>
    sqsClient(app).call('POST', '/sqs/api/donations', body, keyed(key));
  const post = (path: string, body: unknown, key: string) => t.sqs.call('POST', path, body, keyed(key));
  const graphql = (query: string, variables: Record<string, unknown>) =>
    t.app.request('POST', '/graphql', {
      auth: SQS_AUTH,
      headers: { tenant: 'acme' },
      body: { query, variables },
    });
  const SHARE_QUOTA = `mutation($input: DonationInput!, $key: String) {
    shareQuota(input: $input, idempotencyKey: $key) {
      donation { id errorCode recipients { recipientId errorCode } }
      userErrors { code field }
    }
  }`;
  /** A REST body as the `input` variable (the QuotaType enum's names are upper case). */
  const typed = (body: ReturnType<typeof gift>) => ({ ...body, quotaType: body.quotaType.toUpperCase() });

  /** The answer a keyed repeat must give: the first status and exactly the first body. */
  const expectReplay = (again: TestResponse, first: TestResponse) => {
    expect(again.status).toBe(first.status);
    expect(again.text).toBe(first.text);
  };

  it('replays a donation: the first status and body, nothing shared again; without the key a repeat is a new donation', async () => {
    const body = gift([[R(0), 100]]);
    const first = await donate(body, 'donation-0001');
    expect(first.status).toBe(200);
    expectReplay(await donate(body, 'donation-0001'), first);
    expect(await remainingOf(db(), PLAN.amount)).toBe(REMAINING[PLAN.amount] - 100);
    expect(await count('donations')).toBe(1);
    expect(await count('allowances')).toBe(1);

    const unkeyed = await t.sqs.donate(body);
    expect(unkeyed.json().id).not.toBe(first.json().id);
    expect(await remainingOf(db(), PLAN.amount)).toBe(REMAINING[PLAN.amount] - 200);
  });

  it('replays a committed 207 partial donation with its status, in JSON and in XML', async () => {
    const body = gift([
      [R(0), 100],
      [UNKNOWN, 1],
    ]);
    const first = await donate(body, 'partial');
    expect(first.status).toBe(207);
    expectReplay(await donate(body, 'partial'), first);
    const xml = await sqsClient(t.app, { json: false }).call(
      'POST',
      '/sqs/api/donations',
      body,
      keyed('partial'),
    );
    expect(xml.status).toBe(207);
    expect(xml.xml()).toMatchObject({ id: first.json().id, errorCode: '0' });
    expect(await count('donations')).toBe(1);
    expect(await remainingOf(db(), PLAN.amount)).toBe(REMAINING[PLAN.amount] - 100);
  });

  it('replays createGroup, addGroupMember and createRecurringDonation: 201 again where an unkeyed repeat is 409', async () => {
    const groupBody = { ownerId: DONOR, name: 'Family' };
    const group = await post('/sqs/api/groups', groupBody, 'group-1');
    expect(group.status).toBe(201);
    expectReplay(await post('/sqs/api/groups', groupBody, 'group-1'), group);
    expect((await t.sqs.createGroup(groupBody)).json()).toMatchObject({ errorCode: 2 });

    const id = group.json().id as string;
    const memberBody = { memberId: R(1), quota: 1_000_000 };
    const member = await post(`/sqs/api/groups/${id}/members`, memberBody, 'member-1');
    expect(member.status).toBe(201);
    expectReplay(await post(`/sqs/api/groups/${id}/members`, memberBody, 'member-1'), member);
    expect((await t.sqs.addMember(id, memberBody)).status).toBe(409);

    const recurringBody = { donorId: DONOR, donorPlanId: PLAN.share, groupId: id };
    const recurring = await post('/sqs/api/recurringDonations', recurringBody, 'recurring-1');
    expect(recurring.status).toBe(201);
    expectReplay(await post('/sqs/api/recurringDonations', recurringBody, 'recurring-1'), recurring);
    expect((await t.sqs.createRecurring(recurringBody)).json()).toMatchObject({ errorCode: 11 });

    expect(await count('sharing_groups')).toBe(1);
    expect(await count('group_members')).toBe(1);
    expect(await count('recurring_donations')).toBe(1);
  });

  it('the same key with another body, path or operation: 422 {message, errorCode: 1}, nothing done; key order in the body does not matter', async () => {
    const body = gift([[R(0), 100]]);
    const first = await donate(body, 'k');
    expect(first.status).toBe(200);
    const reordered = {
      recipients: body.recipients,
      quotaType: 'amount',
      donorPlanId: PLAN.amount,
      donorId: DONOR,
    };
    expectReplay(await donate(reordered, 'k'), first);

    for (const other of [
      () => donate(gift([[R(0), 101]]), 'k'),
      () => post('/sqs/api/groups', { ownerId: DONOR, name: 'k' }, 'k'),
    ]) {
      const res = await other();
      expect(res.status).toBe(422);
      expect(res.json()).toEqual({ message: expect.stringMatching(/idempotency key/), errorCode: 1 });
    }
    const [a, b] = await Promise.all(
      ['a', 'b'].map(async (name) => (await t.sqs.createGroup({ ownerId: DONOR, name })).json().id as string),
    );
    const memberBody = { memberId: R(1), quota: 1 };
    expect((await post(`/sqs/api/groups/${a}/members`, memberBody, 'm')).status).toBe(201);
    expect((await post(`/sqs/api/groups/${b}/members`, memberBody, 'm')).status).toBe(422);

    expect(await count('donations')).toBe(1);
    expect(await count('sharing_groups')).toBe(2);
    expect(await count('group_members')).toBe(1);
    expect(await remainingOf(db(), PLAN.amount)).toBe(REMAINING[PLAN.amount] - 100);
  });

  it("keys are per tenant: another tenant's request with the same key is its own", async () => {
    expect((await donate(gift([[R(0), 100]]), 'shared-key')).status).toBe(200);
    const rival = await t.app.request('POST', '/sqs/api/groups', {
      auth: basic('rival-admin'),
      json: true,
      headers: { tenant: 'rival', permissions: 'SQS_GROUP_CREATE_UPDATE_PERMISSION', ...keyed('shared-key') },
      body: { ownerId: RIVAL_SUB, name: 'Rivals' },
    });
    expect(rival.status).toBe(201);
    expect(await count('idempotency_keys', { idempotency_key: 'shared-key' })).toBe(2);
  });

  it('a refused request is not remembered: its key stays free and a retry runs again', async () => {
    const body = {
      donorId: DONOR,
      donorPlanId: PLAN.share,
      quotaType: 'share',
      recipients: [{ recipientId: R(0), quota: 1 }],
    };
    const existing = (await t.sqs.createRecurring(body)).json().id as string;
    const refused = await post('/sqs/api/recurringDonations', body, 'retry-me');
    expect(refused.status).toBe(409);
    expect(refused.json().errorCode).toBe(11);
    expect(await count('idempotency_keys')).toBe(0);

    expect((await t.sqs.call('DELETE', `/sqs/api/recurringDonations/${existing}`)).status).toBe(204);
    const created = await post('/sqs/api/recurringDonations', body, 'retry-me');
    expect(created.status).toBe(201);
    expectReplay(await post('/sqs/api/recurringDonations', body, 'retry-me'), created);
  });

  it('a write that fails in the database rolls back and frees its key; the retry runs once', async () => {
    const body = gift([[R(0), 100]]);
    const failed = await withFailingWrites(db(), t.app.tdb.dialect, 'subscriber_plans', () =>
      donate(body, 'fails-once'),
    );
    expect(failed.status).toBeGreaterThanOrEqual(500);
    expect(await count('idempotency_keys')).toBe(0);
    expect(await count('donations')).toBe(0);

    const retried = await donate(body, 'fails-once');
    expect(retried.status).toBe(200);
    expectReplay(await donate(body, 'fails-once'), retried);
    expect(await remainingOf(db(), PLAN.amount)).toBe(REMAINING[PLAN.amount] - 100);
  });

  it('after 24 h a key is new again: the same body runs again, another body is accepted', async () => {
    const body = gift([[R(0), 100]]);
    const first = await donate(body, 'daily');
    t.app.clock.advanceSeconds(IDEMPOTENCY_WINDOW_MS / 1000 - 1);
    expectReplay(await donate(body, 'daily'), first);
    t.app.clock.advanceSeconds(1);
    const next = await donate(body, 'daily');
    expect(next.status).toBe(200);
    expect(next.json().id).not.toBe(first.json().id);
    t.app.clock.advanceSeconds(IDEMPOTENCY_WINDOW_MS / 1000);
    expect((await donate(gift([[R(1), 7]]), 'daily')).status).toBe(200);
    expect(await remainingOf(db(), PLAN.amount)).toBe(REMAINING[PLAN.amount] - 207);
  });

  it('a malformed key is 412 naming Idempotency-Key and does nothing; the sf-string form "…" names the same key', async () => {
    const body = gift([[R(0), 100]]);
    for (const bad of ['', 'two words', 'x'.repeat(256), 'cl\u00e9']) {
      const res = await donate(body, bad);
      expect(res.status).toBe(412);
      expect(res.json()).toEqual({
        errors: [{ field: 'Idempotency-Key', description: 'must be 1-255 visible ASCII characters' }],
      });
    }
    expect(await count('donations')).toBe(0);
    expect((await donate(body, 'x'.repeat(255))).status).toBe(200);
    const quoted = await donate(body, '"a\\"quoted\\\\key"');
    expect(quoted.status).toBe(200);
    expectReplay(await donate(body, 'a"quoted\\key'), quoted);
    expect(await count('donations')).toBe(2);
  });

  it('GraphQL: idempotencyKey replays the same data and shares its keys with REST', async () => {
    const body = gift([[R(0), 100]]);
    const rest = await donate(body, 'both-ways');
    const viaGraphql = await graphql(SHARE_QUOTA, { input: typed(body), key: 'both-ways' });
    expect(viaGraphql.json()).toEqual({
      data: {
        shareQuota: {
          donation: { id: rest.json().id, errorCode: 0, recipients: [{ recipientId: R(0), errorCode: 0 }] },
          userErrors: [],
        },
      },
    });
    const fresh = await graphql(SHARE_QUOTA, { input: typed(body), key: 'graphql-only' });
    expect((await graphql(SHARE_QUOTA, { input: typed(body), key: 'graphql-only' })).json()).toEqual(
      fresh.json(),
    );
    expect(await remainingOf(db(), PLAN.amount)).toBe(REMAINING[PLAN.amount] - 200);

    const reused = await graphql(SHARE_QUOTA, { input: typed(gift([[R(0), 1]])), key: 'both-ways' });
    expect(reused.json().data).toEqual({
      shareQuota: {
        donation: null,
        userErrors: [{ code: 'IDEMPOTENCY_KEY_REUSED', field: null }],
      },
    });
    const bad = await graphql(SHARE_QUOTA, { input: typed(body), key: 'two words' });
    expect(bad.json().data).toEqual({
      shareQuota: {
        donation: null,
        userErrors: [{ code: 'INVALID', field: ['idempotencyKey'] }],
      },
    });
  });

  it('20 simultaneous identical requests with one key: one donation; the others replay it or get 409', async () => {
    const body = gift([[R(0), 100]]);
    const results = await Promise.all(Array.from({ length: 20 }, () => donate(body, 'burst')));
    const done = results.filter((r) => r.status === 200);
    expect(done.length).toBeGreaterThanOrEqual(1);
    for (const r of done) expect(r.text).toBe(done[0].text);
    for (const r of results.filter((x) => x.status !== 200)) {
      expect(r.status).toBe(409);
      expect(r.json()).toEqual({ message: expect.stringMatching(/in progress/), errorCode: 1 });
    }
    expect(await count('donations')).toBe(1);
    expect(await count('allowances')).toBe(1);
    expect(await remainingOf(db(), PLAN.amount)).toBe(REMAINING[PLAN.amount] - 100);
    expectReplay(await donate(body, 'burst'), done[0]);
  });

  it('a key whose first request died uncommitted is 409 until its lease ends, then taken over: one effect', async () => {
    const body = gift([[R(0), 100]]);
    const tenant = await db()('tenants').where({ name: 'acme' }).first();
    const now = t.app.clock.nowMs();
    // What a request killed (kill -9) between its claim and its commit leaves behind.
    await db()('idempotency_keys').insert({
      tenant_id: tenant.id,
      idempotency_key: 'orphan',
      fingerprint: fingerprint('shareQuota', body),
      state: 'pending',
      owner: 'killed-instance-0001',
      result: null,
      created_at: now,
      locked_until: now + IDEMPOTENCY_LEASE_MS,
    });
    const during = await donate(body, 'orphan');
    expect(during.status).toBe(409);
    expect(during.headers.get('retry-after')).toBe('1');
    expect(during.json().errorCode).toBe(1);
    expect(await count('donations')).toBe(0);

    t.app.clock.advanceSeconds(IDEMPOTENCY_LEASE_MS / 1000);
    const after = await donate(body, 'orphan');
    expect(after.status).toBe(200);
    expectReplay(await donate(body, 'orphan'), after);
    expect(await count('donations')).toBe(1);
  });

  describe('two instances over one database', () => {
    let second: TestApp;
    beforeAll(async () => {
      second = await startTestApp({ sameDatabaseAs: t.app });
    });
    afterAll(() => second.close());

    it('a key used on one instance replays on the other', async () => {
      const body = gift([[R(0), 100]]);
      const first = await donate(body, 'cross', t.app);
      expectReplay(await donate(body, 'cross', second), first);
      expect(await count('donations')).toBe(1);
    });

    // A request in flight cannot be watched from the same process on SQLite (better-sqlite3 runs
    // each statement synchronously), so there the pending-row test above stands for it.
    const mysqlOnly = process.env.TEST_DATABASE_URL?.startsWith('mysql://') ? it : it.skip;

    mysqlOnly(
      'while the first request runs on one instance, the same key on the other is 409; afterwards it replays',
      async () => {
        const body = gift([[R(0), 100]]);
        // Holding the donor plan's row lock keeps the first request inside its effect.
        const hold = await second.tdb.db.transaction();
        try {
          await hold('subscriber_plans').where({ id: PLAN.amount }).forUpdate().first();
          const first = donate(body, 'slow', t.app);
          await waitFor(
            async () =>
              !!(await second.tdb.db('idempotency_keys').where({ idempotency_key: 'slow' }).first()),
            { what: "the first request's claim on its key", intervalMs: 5 },
          );
          const during = await donate(body, 'slow', second);
          expect(during.status).toBe(409);
          expect(during.json()).toEqual({ message: expect.stringMatching(/in progress/), errorCode: 1 });
          await hold.commit();
          const done = await first;
          expect(done.status).toBe(200);
          expectReplay(await donate(body, 'slow', second), done);
        } finally {
          if (!hold.isCompleted()) await hold.rollback();
        }
        expect(await count('donations')).toBe(1);
        expect(await remainingOf(db(), PLAN.amount)).toBe(REMAINING[PLAN.amount] - 100);
      },
    );

    // Two processes writing one SQLite file at once is not a deployment the gateway supports.
    mysqlOnly('20 simultaneous requests with one key, split over both instances: one effect', async () => {
      const body = gift([[R(0), 100]]);
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) => donate(body, 'split', i % 2 ? second : t.app)),
      );
      const done = results.filter((r) => r.status === 200);
      expect(done.length).toBeGreaterThanOrEqual(1);
      for (const r of done) expect(r.text).toBe(done[0].text);
      expect(results.filter((r) => r.status !== 200).every((r) => r.status === 409)).toBe(true);
      expect(await count('donations')).toBe(1);
      expect(await remainingOf(db(), PLAN.amount)).toBe(REMAINING[PLAN.amount] - 100);
    });
  });
});
