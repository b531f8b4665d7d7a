import { TestApp, startTestApp } from '../helpers/app';
import { DONOR, PLAN, R, sharingDataset, sqsClient } from '../helpers/sharing';

/**
 * `cdrs` is a Relay connection (edges/pageInfo, forward and backward, validated cursors,
 * Relay-correct endCursor; the earlier nodes/endCursor/hasNextPage kept, deprecated), `Cdr`
 * implements Node by its row id, and the closed sets of a CDR are enums beside their numbers.
 */

let app: TestApp;
let sqs: ReturnType<typeof sqsClient>;

beforeAll(async () => {
  app = await startTestApp({ dataset: sharingDataset() });
  sqs = sqsClient(app);
  for (const name of ['A', 'B', 'C', 'D', 'E'])
    expect((await sqs.createGroup({ ownerId: DONOR, name, quotaType: 'share' })).status).toBe(201);
});
afterAll(() => app.close());

interface Page {
  edges: { cursor: string; node: { id: string; group: { groupName: string } } }[];
  pageInfo: {
    hasNextPage: boolean;
    hasPreviousPage: boolean;
    startCursor: string | null;
    endCursor: string | null;
  };
  nodes: { id: string }[];
  endCursor: string | null;
  hasNextPage: boolean;
}

const gql = async (as: string, query: string, variables: Record<string, unknown> = {}) =>
  (await app.request('POST', '/graphql', { as, body: { query, variables } })).json() as {
    data?: Record<string, unknown>;
    errors?: { message: string; extensions: { code: string } }[];
  };

const PAGE = `query($first:Int,$after:String,$last:Int,$before:String){
  cdrs(type:GROUP,from:"2026-01-01",to:"2027-01-01",first:$first,after:$after,last:$last,before:$before){
    edges { cursor node { id group { groupName } } }
    pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
    nodes { id } endCursor hasNextPage } }`;

async function page(args: Record<string, unknown>, as = 'admin'): Promise<Page> {
  const body = await gql(as, PAGE, args);
  expect(body.errors).toBeUndefined();
  return body.data!.cdrs as Page;
}
const names = (p: Page) => p.edges.map((e) => e.node.group.groupName);

describe('GraphQL cdrs connection', () => {
  it('pages forward with first/after: endCursor is the last edge cursor, null on an empty page', async () => {
    const p1 = await page({ first: 2 });
    expect(names(p1)).toEqual(['A', 'B']);
    expect(p1.pageInfo).toEqual({
      hasNextPage: true,
      hasPreviousPage: false,
      startCursor: p1.edges[0].cursor,
      endCursor: p1.edges[1].cursor,
    });
    const p2 = await page({ first: 2, after: p1.pageInfo.endCursor });
    expect(names(p2)).toEqual(['C', 'D']);
    expect(p2.pageInfo.hasPreviousPage).toBe(true);
    const p3 = await page({ first: 2, after: p2.pageInfo.endCursor });
    expect(names(p3)).toEqual(['E']);
    expect(p3.pageInfo).toMatchObject({ hasNextPage: false, endCursor: p3.edges[0].cursor });
    const empty = await page({ first: 2, after: p3.pageInfo.endCursor });
    expect(empty.edges).toEqual([]);
    expect(empty.pageInfo).toMatchObject({ hasNextPage: false, startCursor: null, endCursor: null });
    // The deprecated fields of the earlier shape say the same.
    for (const p of [p1, p2, p3, empty]) {
      expect(p.nodes).toEqual(p.edges.map((e) => ({ id: e.node.id })));
      expect([p.endCursor, p.hasNextPage]).toEqual([p.pageInfo.endCursor, p.pageInfo.hasNextPage]);
    }
  });

  it('pages backward with last/before', async () => {
    const last = await page({ last: 2 });
    expect(names(last)).toEqual(['D', 'E']);
    expect(last.pageInfo).toMatchObject({ hasPreviousPage: true, hasNextPage: false });
    const before = await page({ last: 2, before: last.pageInfo.startCursor });
    expect(names(before)).toEqual(['B', 'C']);
    const first = await page({ last: 2, before: before.pageInfo.startCursor });
    expect(names(first)).toEqual(['A']);
    expect(first.pageInfo).toMatchObject({ hasPreviousPage: false, hasNextPage: true });
    // Between two cursors.
    const all = await page({ first: 5 });
    const between = await page({ first: 5, after: all.edges[0].cursor, before: all.edges[4].cursor });
    expect(names(between)).toEqual(['B', 'C', 'D']);
  });

  it("a forged cursor, another list's cursor or a page size out of bounds is BAD_USER_INPUT", async () => {
    const { id: groupRowCdr } = (await page({ first: 1 })).edges[0].node;
    for (const args of [
      { after: 'nope' },
      { after: Buffer.from('location:1').toString('base64url') },
      { before: Buffer.from('charge:1').toString('base64url') },
      { after: Buffer.from('cdr:x').toString('base64url') },
      { after: groupRowCdr },
      { first: 0 },
      { first: 501 },
      { last: 501 },
      { first: 1, last: 1 },
    ]) {
      const body = await gql('admin', PAGE, args);
      expect(body.errors?.[0].extensions.code).toBe('BAD_USER_INPUT');
      expect(body.data ?? null).toBeNull();
    }
  });

  it('Cdr is a Node: node(id:) refetches it for ADMIN of its tenant; null for another tenant; FORBIDDEN without ADMIN', async () => {
    const [edge] = (await page({ first: 1 })).edges;
    const NODE = 'query($id:ID!){ node(id:$id){ __typename id ... on Cdr { group { groupName } } } }';
    expect((await gql('admin', NODE, { id: edge.node.id })).data).toEqual({
      node: { __typename: 'Cdr', id: edge.node.id, group: { groupName: 'A' } },
    });
    expect((await gql('rival-admin', NODE, { id: edge.node.id })).data).toEqual({ node: null });
    for (const id of [
      Buffer.from('Cdr:999999').toString('base64url'),
      Buffer.from('Cdr:x').toString('base64url'),
    ])
      expect((await gql('admin', NODE, { id })).data).toEqual({ node: null });
    expect((await gql('portal', NODE, { id: edge.node.id })).errors?.[0].extensions.code).toBe('FORBIDDEN');
    // Another tenant's CDRs are not in its list either.
    expect((await page({ first: 5 }, 'rival-admin')).edges).toEqual([]);
  });

  it('closed sets are enums beside their numbers; MSISDNs, quotas and times are typed', async () => {
    const g = await sqs.createGroup({ ownerId: DONOR, name: 'Typed', quotaType: 'share' });
    const groupId = g.json().id as string;
    expect((await sqs.addMember(groupId, { memberId: R(3), quota: 1_000_000 })).status).toBe(201);
    await sqs.donate({
      donorId: `+${DONOR}`,
      donorPlanId: PLAN.amount,
      quotaType: 'amount',
      recipients: [{ recipientId: R(0), quota: 100 }],
    });
    const body = await gql(
      'admin',
      `{ groups: cdrs(type:GROUP,from:"2026-01-01",to:"2027-01-01",last:2){ edges { node {
           transactionType generated generatedAt
           group { transaction groupQuotaType quotaType groupOwnerId groupMemberId groupMemberQuota } } } }
         donations: cdrs(type:DONATION,from:"2026-01-01",to:"2027-01-01",first:10){ edges { node {
           transactionType donation { transaction donationType recurring donorId recipientId
             deductQuotaType deductedAmount addQuotaType addedAmount } } } } }`,
    );
    expect(body.errors).toBeUndefined();
    const groups = (body.data!.groups as { edges: { node: Record<string, unknown> }[] }).edges.map(
      (e) => e.node,
    );
    expect(groups.map((n) => [n.transactionType, (n.group as Record<string, unknown>).transaction])).toEqual([
      [0, 'CREATED'],
      [3, 'MEMBER_ADDED'],
    ]);
    expect(groups[1].group).toEqual({
      transaction: 'MEMBER_ADDED',
      groupQuotaType: 0,
      quotaType: 'SHARE',
      groupOwnerId: DONOR,
      groupMemberId: R(3),
      groupMemberQuota: 1_000_000,
    });
    expect(new Date(groups[0].generatedAt as string).toISOString()).toBe(groups[0].generated);
    const donation = (body.data!.donations as { edges: { node: Record<string, unknown> }[] }).edges.map(
      (e) => e.node.donation as Record<string, unknown>,
    );
    expect(donation.map((d) => d.transaction)).toEqual([
      'START',
      'GET_DONOR_PLAN',
      'DEDUCT_QUOTA',
      'ADD_QUOTA',
      'END',
    ]);
    expect(donation[2]).toMatchObject({
      donorId: DONOR,
      recipientId: R(0),
      deductQuotaType: 'VOLUME',
      deductedAmount: 100,
    });
    expect(donation[3]).toMatchObject({
      addQuotaType: 'VOLUME',
      addedAmount: 100,
      recurring: false,
      donationType: 0,
    });
  });
});
