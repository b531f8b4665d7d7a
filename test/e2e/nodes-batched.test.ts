import { globalId } from '../../src/graphql/node';
import { TestApp, startTestApp } from '../helpers/app';
import { chargingDataset } from '../helpers/charging';
import { basic } from '../helpers/fixtures';
import { DONOR, PLAN, R, sharingDataset, sqsClient } from '../helpers/sharing';

/**
 * `nodes(ids:)` reads each entity type's rows in one statement per type, however many ids name
 * them (docs/graphql.md "Batched"): the ledger entries, catalogue entries, CDRs, allowances, plan
 * definitions and offers, subscriber and portal plans, group members and both event types. Each
 * answer is the one `node(id:)` gives for that id, in its place; unknown and other tenants' ids
 * are null.
 */
describe('nodes(ids:): one statement per entity type', () => {
  let app: TestApp;
  const ADMIN = basic('admin');

  /** Two rows' keys of each type, read from the database after the writes below. */
  let keys: Record<string, string[]>;

  const gql = async (query: string, variables: Record<string, unknown> = {}) =>
    (await app.request('POST', '/graphql', { auth: ADMIN, body: { query, variables } })).json() as {
      data?: Record<string, unknown>;
      errors?: unknown[];
    };

  beforeAll(async () => {
    const ds = sharingDataset();
    ds.ratings = chargingDataset().ratings;
    for (const d of ds.planDefinitions!) if (d.tenant === 'acme') d.price = '5.00';
    app = await startTestApp({ dataset: ds });
    const sqs = sqsClient(app);
    for (const amount of ['1.00', '2.00']) {
      const r = await gql(
        'mutation($m: MSISDN!, $a: Decimal!) { adjustBalance(msisdn: $m, amount: $a, reason: "batch test") { userErrors { code } } }',
        { m: DONOR, a: amount },
      );
      expect(r).toEqual({ data: { adjustBalance: { userErrors: [] } } });
    }
    for (const i of [0, 1]) {
      const r = await sqs.donate({
        donorId: DONOR,
        donorPlanId: PLAN.amount,
        quotaType: 'amount',
        recipients: [{ recipientId: R(i), quota: 5 }],
      });
      expect(r.status).toBe(200);
    }
    const group = (await sqs.createGroup({ ownerId: DONOR, name: 'batched' })).json().id as string;
    for (const i of [2, 3])
      expect((await sqs.addMember(group, { memberId: R(i), quota: 10 })).status).toBe(201);

    const db = app.tdb.db;
    const ids = async (table: string, where: Record<string, unknown> = {}) =>
      (await db(table).select('id').where(where).orderBy('id').limit(2)).map((r) => String(r.id));
    const acme = (await db('tenants').where({ name: 'acme' }).first()).id as number;
    const events = async (type: string) =>
      (await db('outbox_events').select('event_id').where({ tenant_id: acme, type }).limit(2)).map((r) =>
        String(r.event_id),
      );
    const members = (await db('group_members').select('member_msisdn').where({ group_id: group })).map(
      (r) => `${group}:${r.member_msisdn}`,
    );
    const definitions = await ids('plan_definitions', { tenant_id: acme });
    keys = {
      Charge: await ids('charges', { tenant_id: acme }),
      Rating: await ids('ratings', { tenant_id: acme }),
      Cdr: await ids('cdrs', { tenant_id: acme }),
      Allowance: await ids('allowances', { tenant_id: acme }),
      PlanDefinition: definitions,
      PlanOffer: definitions.map((id) => `${id}:EUR`),
      SubscriberPlan: await ids('subscriber_plans', { tenant_id: acme }),
      PortalPlan: await ids('subscriber_plans', { tenant_id: acme }),
      GroupMember: members,
      BalanceChange: await events('balance.adjusted'),
      QuotaReceived: await events('quota.received'),
    };
    for (const [type, k] of Object.entries(keys)) expect([type, k.length]).toEqual([type, 2]);
  });
  afterAll(() => app.close());

  /** The table each statement sent while `run` runs reads first (its FROM), counted. */
  async function tablesRead(run: () => Promise<unknown>): Promise<Record<string, number>> {
    const counts: Record<string, number> = {};
    const onQuery = (q: { sql: string }) => {
      const m = /\bfrom\s+[`"]?(\w+)[`"]?/i.exec(q.sql);
      if (m && m[1] !== 'api_clients' && m[1] !== 'tenants') counts[m[1]] = (counts[m[1]] ?? 0) + 1;
    };
    app.tdb.db.on('query', onQuery);
    try {
      await run();
    } finally {
      app.tdb.db.off('query', onQuery);
    }
    return counts;
  }

  const NODES = 'query($ids: [ID!]!) { nodes(ids: $ids) { __typename id } }';

  it('reads two ids of each type (each asked twice) in as many statements as one id of each', async () => {
    const one = Object.entries(keys).map(([type, k]) => globalId(type, k[0]));
    const all = Object.entries(keys).flatMap(([type, k]) => [
      globalId(type, k[1]),
      globalId(type, k[0]),
      globalId(type, k[1]),
    ]);
    const single = await tablesRead(() => gql(NODES, { ids: one }));
    let answer: Awaited<ReturnType<typeof gql>> = {};
    const batched = await tablesRead(async () => (answer = await gql(NODES, { ids: all })));
    expect(answer.errors).toBeUndefined();
    expect((answer.data!.nodes as { id: string }[]).map((n) => n.id)).toEqual(all);
    expect(batched).toEqual(single);
    // One statement per type; plan definitions and offers, subscriber and portal plans, and the
    // two event types are two types on one table each; a group member reads its group, then the
    // group's members.
    expect(batched).toEqual({
      charges: 1,
      ratings: 1,
      cdrs: 1,
      allowances: 1,
      plan_definitions: 2,
      subscriber_plans: 2,
      sharing_groups: 1,
      group_members: 1,
      outbox_events: 2,
    });
  });

  it('answers each id as node(id:) does, in place; unknown and rival ids are null', async () => {
    const SELECTION = `__typename id
      ... on Charge { chargeAmount: amount kind }
      ... on Rating { retailPrice }
      ... on Cdr { type }
      ... on Allowance { allowanceAmount: amount recipientId }
      ... on PlanDefinition { name }
      ... on PlanOffer { price currency }
      ... on SubscriberPlan { planRemaining: remaining }
      ... on PortalPlan { portalRemaining: remaining }
      ... on GroupMember { memberId }
      ... on BalanceChange { balanceEvent: eventId }
      ... on QuotaReceived { quotaEvent: eventId }`;
    const last = Number((await app.tdb.db('charges').max({ id: 'id' }).first())!.id);
    const ids = [
      ...Object.entries(keys).flatMap(([type, k]) => [globalId(type, k[1]), globalId(type, k[0])]),
      globalId('Charge', last + 1000),
      globalId('PlanOffer', `${keys.PlanDefinition[0]}`),
      globalId('GroupMember', 'no-such-group:353870000001'),
      globalId('BalanceChange', '01J00000000000000000000000'),
    ];
    const many = await gql(`query($ids: [ID!]!) { nodes(ids: $ids) { ${SELECTION} } }`, { ids });
    expect(many.errors).toBeUndefined();
    const each = [];
    for (const id of ids) {
      const r = await gql(`query($id: ID!) { node(id: $id) { ${SELECTION} } }`, { id });
      expect(r.errors).toBeUndefined();
      each.push(r.data!.node);
    }
    expect(many.data!.nodes).toEqual(each);
    expect(each.slice(-4)).toEqual([null, null, null, null]);
    expect(each.slice(0, -4).every((n) => n !== null)).toBe(true);
    // Another tenant's client reads none of them.
    const rivalAnswer = (
      await app.request('POST', '/graphql', {
        auth: basic('rival-admin'),
        body: { query: 'query($ids: [ID!]!) { nodes(ids: $ids) { id } }', variables: { ids } },
      })
    ).json() as { data: { nodes: unknown[] } };
    expect(rivalAnswer.data.nodes).toEqual(ids.map(() => null));
  });
});
