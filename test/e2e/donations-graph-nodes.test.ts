import { basic } from '../helpers/fixtures';
import { DONOR, PLAN, R, RIVAL_SUB, SQS_AUTH, useSharingApp } from '../helpers/sharing';

/**
 * Node ids of the donation types: Donation and RecurringDonation keep their
 * 20-character service id as `id`, Allowance gets a global id; `node(id:)` and `nodes(ids:)` give
 * back the same object, and another tenant's id is null.
 */
describe('donations on the graph: Node ids and node(id:)', () => {
  const t = useSharingApp();
  const RIVAL = basic('rival-admin');
  const gql = async (query: string, variables: Record<string, unknown> = {}, auth = SQS_AUTH) => {
    const res = await t.app.request('POST', '/graphql', { auth, body: { query, variables } });
    return res.json() as { data?: Record<string, never>; errors?: { extensions: { code: string } }[] };
  };

  // Aliased: the two `recipients` fields differ in type, so one selection cannot hold both.
  const DONATION = 'id donorId quotaType results: recipients { recipientId outcome errorCode }';
  const RECURRING = 'id donorId donorPlanId quotaType recipients { recipientId quota }';
  const ALLOWANCE = 'id recipientId donationId amount unitMeteringType';

  /** A donation to R(0) (granted) and an unknown subscriber, a recurring donation, and R(0)'s allowance. */
  async function seed() {
    const donation = (
      await t.sqs.donate({
        donorId: DONOR,
        donorPlanId: PLAN.amount,
        quotaType: 'amount',
        recipients: [
          { recipientId: R(0), quota: 10 },
          { recipientId: '353870000999', quota: 1 },
        ],
      })
    ).json().id as string;
    const recurring = (
      await t.sqs.createRecurring({
        donorId: DONOR,
        donorPlanId: PLAN.credit,
        quotaType: 'amount',
        recipients: [{ recipientId: R(1), quota: 5 }],
      })
    ).json().id as string;
    const read = await gql(
      `query($d: ID!, $r: ID!, $m: MSISDN!) {
        donation(id: $d) { ${DONATION} }
        recurringDonation(id: $r) { ${RECURRING} }
        allowances(msisdn: $m) { edges { node { ${ALLOWANCE} } } }
      }`,
      { d: donation, r: recurring, m: R(0) },
    );
    expect(read.errors).toBeUndefined();
    const data = read.data as unknown as {
      donation: { id: string };
      recurringDonation: { id: string };
      allowances: { edges: { node: { id: string } }[] };
    };
    return {
      donation: data.donation,
      recurring: data.recurringDonation,
      allowance: data.allowances.edges[0].node,
    };
  }

  it('each type has an id that node(id:) resolves to the same object, typed', async () => {
    const s = await seed();
    expect(s.donation).toEqual({
      id: expect.stringMatching(/^[A-Za-z0-9_-]{20}$/),
      donorId: DONOR,
      quotaType: 'AMOUNT',
      results: [
        { recipientId: R(0), outcome: 'RECEIVED', errorCode: 0 },
        { recipientId: '353870000999', outcome: 'RECIPIENT_NOT_FOUND', errorCode: 12 },
      ],
    });
    expect(s.allowance).toEqual({
      id: expect.any(String),
      recipientId: R(0),
      donationId: s.donation.id,
      amount: 10,
      unitMeteringType: 'VOLUME',
    });
    const res = await gql(
      `query($ids: [ID!]!) {
        nodes(ids: $ids) {
          __typename id
          ... on Donation { ${DONATION} }
          ... on RecurringDonation { ${RECURRING} }
          ... on Allowance { ${ALLOWANCE} }
        }
      }`,
      { ids: [s.donation.id, s.recurring.id, s.allowance.id] },
    );
    expect(res).toEqual({
      data: {
        nodes: [
          { __typename: 'Donation', ...s.donation },
          { __typename: 'RecurringDonation', ...s.recurring },
          { __typename: 'Allowance', ...s.allowance },
        ],
      },
    });
    const one = await gql('query($id: ID!) { node(id: $id) { id ... on Allowance { amount } } }', {
      id: s.allowance.id,
    });
    expect(one).toEqual({ data: { node: { id: s.allowance.id, amount: 10 } } });
  });

  it('reads the donations of one nodes(ids:) in two statements, each with its own recipients, in place; other service ids one statement per type', async () => {
    const ids: string[] = [];
    for (let k = 1; k <= 3; k++)
      ids.push(
        (
          await t.sqs.donate({
            donorId: DONOR,
            donorPlanId: PLAN.amount,
            quotaType: 'amount',
            recipients: Array.from({ length: k }, (_, i) => ({ recipientId: R(10 * k + i), quota: 1 })),
          })
        ).json().id as string,
      );
    const reads: string[] = [];
    const onQuery = (q: { sql: string }) => {
      const table =
        /from [`"]?(donations|donation_recipients|sharing_groups|recurring_donations)[`"]?\s/i.exec(q.sql);
      if (table) reads.push(table[1]);
    };
    t.app.tdb.db.on('query', onQuery);
    let res: Awaited<ReturnType<typeof gql>>;
    try {
      res = await gql(
        'query($ids: [ID!]!) { nodes(ids: $ids) { id ... on Donation { results: recipients { recipientId } } } }',
        { ids: [ids[2], 'A'.repeat(20), ids[0], ids[1], ids[2]] },
      );
    } finally {
      t.app.tdb.db.off('query', onQuery);
    }
    const donation = (k: number) => ({
      id: ids[k - 1],
      results: Array.from({ length: k }, (_, i) => ({ recipientId: R(10 * k + i) })),
    });
    expect(res).toEqual({ data: { nodes: [donation(3), null, donation(1), donation(2), donation(3)] } });
    // The donations, then their recipients' results: two reads for all five ids; the unknown id
    // is then looked for among groups and recurring donations, one read each.
    expect(reads.sort()).toEqual([
      'donation_recipients',
      'donations',
      'recurring_donations',
      'sharing_groups',
    ]);
  });

  it("another tenant's ids, unknown ids and forged ids resolve to null", async () => {
    const s = await seed();
    const NODE = 'query($id: ID!) { node(id: $id) { id } }';
    for (const id of [s.donation.id, s.recurring.id, s.allowance.id])
      expect(await gql(NODE, { id }, RIVAL)).toEqual({ data: { node: null } });
    // Same shapes, naming nothing.
    const allowanceOf = (key: string) => Buffer.from(`Allowance:${key}`).toString('base64url');
    for (const id of ['A'.repeat(20), allowanceOf('999999'), allowanceOf('x'), allowanceOf('0')])
      expect(await gql(NODE, { id })).toEqual({ data: { node: null } });
    // The rival's own donation is its own, and not acme's.
    const rival = await t.app.request('POST', '/sqs/api/donations', {
      auth: RIVAL,
      json: true,
      headers: { tenant: 'rival', permissions: 'SQS_DONATION_PERMISSION' },
      body: {
        donorId: RIVAL_SUB,
        donorPlanId: PLAN.rival,
        quotaType: 'amount',
        recipients: [{ recipientId: '353879999998', quota: 1 }],
      },
    });
    const rivalId = rival.json().id as string;
    expect(await gql(NODE, { id: rivalId }, RIVAL)).toEqual({ data: { node: { id: rivalId } } });
    expect(await gql(NODE, { id: rivalId })).toEqual({ data: { node: null } });
  });

  it('node(id:) needs the permission the object’s own query needs', async () => {
    const s = await seed();
    const reader = basic('sqs-reader', 'sqs-reader-password');
    const res = await gql('query($id: ID!) { node(id: $id) { id } }', { id: s.allowance.id }, reader);
    expect(res.errors?.[0].extensions.code).toBe('FORBIDDEN');
    // A service id the reader may not read is null (it may name a type the reader may read).
    expect(await gql('query($id: ID!) { node(id: $id) { id } }', { id: s.donation.id }, reader)).toEqual({
      data: { node: null },
    });
  });
});
