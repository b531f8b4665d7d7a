import { TestApp, startTestApp } from '../helpers/app';
import { chargingDataset } from '../helpers/charging';
import { ClientName, basic } from '../helpers/fixtures';

/**
 * The charging graph's entities and lists (docs/graphql.md): `Subscriber`, `Charge` and
 * `Rating` implement `Node` (refetched by `node`/`nodes`, another tenant's id → null), and
 * `Subscriber.charges` and `ratings` are Relay connections paging both ways with validated cursors.
 */
/** A JSON value of a GraphQL answer (tests read it loosely). */
type Json = ReturnType<typeof JSON.parse>;
/** One edge of a connection answer. */
type Edge = { cursor: string; node: Record<string, string> };

describe('charging graph: Node ids and connections', () => {
  let app: TestApp;
  const POSTPAID = '353870000002';

  beforeAll(async () => {
    app = await startTestApp({ dataset: chargingDataset() });
    // Five ledger entries on one subscriber: +1, +2, ..., +5 (newest last).
    for (let i = 1; i <= 5; i++) {
      const r = await gql(
        'mutation($a: Decimal!) { adjustBalance(msisdn: "353870000002", amount: $a, reason: "test") { userErrors { code } } }',
        { a: `${i}.00` },
      );
      expect(r.data?.adjustBalance).toEqual({ userErrors: [] });
    }
  });
  afterAll(() => app.close());

  type Result = {
    data?: Record<string, Json> | null;
    errors?: { message: string; extensions: { code: string } }[];
  };
  async function gql(query: string, variables: Record<string, unknown> = {}, as: ClientName = 'admin') {
    const res = await app.request('POST', '/graphql', { auth: basic(as), body: { query, variables } });
    return res.json() as Result;
  }
  const crs = 'Basic ' + Buffer.from('crs:crs-password').toString('base64');

  const CHARGES = `query($m: MSISDN!, $first: Int, $after: String, $last: Int, $before: String) {
    subscriber(msisdn: $m) {
      charges(first: $first, after: $after, last: $last, before: $before) {
        totalCount
        edges { cursor node { id amount kind outcome msisdn } }
        pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
        nodes { id } endCursor hasNextPage
      }
    }
  }`;
  const charges = async (vars: Record<string, unknown>) => {
    const r = await gql(CHARGES, { m: POSTPAID, ...vars });
    expect(r.errors).toBeUndefined();
    return r.data!.subscriber.charges;
  };

  it('gives Subscriber, Charge and Rating an opaque id that node(id:) and nodes(ids:) resolve in your tenant', async () => {
    const r = await gql(`{
      subscriber(msisdn: "+353870000002") { id msisdn balance charges(first: 1) { edges { node { id operationId } } } }
      ratings(first: 1) { edges { node { id providerId retailPrice } } }
    }`);
    const sub = r.data!.subscriber;
    const charge = sub.charges.edges[0].node;
    const rating = r.data!.ratings.edges[0].node;
    expect(sub.msisdn).toBe(POSTPAID);
    for (const id of [sub.id, charge.id, rating.id]) expect(id).toMatch(/^[A-Za-z0-9_-]+$/);
    const again = await gql(
      `query($ids: [ID!]!) { nodes(ids: $ids) {
        __typename id
        ... on Subscriber { msisdn balance }
        ... on Charge { operationId }
        ... on Rating { providerId retailPrice }
      } }`,
      { ids: [sub.id, charge.id, rating.id] },
    );
    expect(again.data!.nodes).toEqual([
      { __typename: 'Subscriber', id: sub.id, msisdn: POSTPAID, balance: sub.balance },
      { __typename: 'Charge', id: charge.id, operationId: charge.operationId },
      { __typename: 'Rating', id: rating.id, ...rating },
    ]);
    const one = await gql('query($id: ID!) { node(id: $id) { id ... on Charge { operationId } } }', {
      id: charge.id,
    });
    expect(one.data!.node).toEqual({ id: charge.id, operationId: charge.operationId });
    // Another tenant's client: every one of these ids names nothing.
    const rival = await gql(
      'query($ids: [ID!]!) { nodes(ids: $ids) { id } }',
      { ids: [sub.id, charge.id, rating.id] },
      'rival-admin',
    );
    expect(rival.errors).toBeUndefined();
    expect(rival.data!.nodes).toEqual([null, null, null]);
    // And the rival tenant's own subscriber is not reachable from acme by its id.
    const theirs = await gql('{ subscriber(msisdn: "353879999999") { id } }', {}, 'rival-admin');
    const mine = await gql('query($id: ID!) { node(id: $id) { id } }', { id: theirs.data!.subscriber.id });
    expect(mine.data!.node).toBeNull();
  });

  it('reads all the subscribers of one nodes(ids:) in one statement, each answer in its place', async () => {
    const ACME = ['353871234567', '353870000001', '353870000002', '353870000003'];
    const ids: string[] = [];
    for (const m of ACME) ids.push((await gql(`{ subscriber(msisdn: "${m}") { id } }`)).data!.subscriber.id);
    const rival = (await gql('{ subscriber(msisdn: "353879999999") { id } }', {}, 'rival-admin')).data!
      .subscriber.id;
    const unknown = Buffer.from('Subscriber:353870000099').toString('base64url');
    const asked = [ids[3], rival, ids[0], unknown, ids[1], ids[3], ids[2]];
    const statements: string[] = [];
    const onQuery = (q: { sql: string }) => {
      if (/subscribers/.test(q.sql)) statements.push(q.sql);
    };
    app.tdb.db.on('query', onQuery);
    let r: Result;
    try {
      r = await gql('query($ids: [ID!]!) { nodes(ids: $ids) { id ... on Subscriber { msisdn } } }', {
        ids: asked,
      });
    } finally {
      app.tdb.db.off('query', onQuery);
    }
    expect(r.errors).toBeUndefined();
    const at = (i: number) => ({ id: ids[i], msisdn: ACME[i] });
    expect(r.data!.nodes).toEqual([at(3), null, at(0), null, at(1), at(3), at(2)]);
    expect(statements).toHaveLength(1);
  });

  it('node(id:) needs the permission of the entity query (CRS_RATING)', async () => {
    const sub = (await gql('{ subscriber(msisdn: "353871234567") { id } }')).data!.subscriber;
    const r = await gql('query($id: ID!) { node(id: $id) { id } }', { id: sub.id }, 'nogrant');
    expect(r.errors?.[0].extensions.code).toBe('FORBIDDEN');
    const ok = await app.request('POST', '/graphql', {
      auth: crs,
      body: { query: 'query($id: ID!) { node(id: $id) { id } }', variables: { id: sub.id } },
    });
    expect(ok.json()).toEqual({ data: { node: { id: sub.id } } });
  });

  it('pages the ledger forward, newest first, with Relay pageInfo and totalCount', async () => {
    const p1 = await charges({ first: 2 });
    expect(p1.totalCount).toBe(5);
    expect(p1.edges.map((e: Edge) => e.node.amount)).toEqual(['5.00', '4.00']);
    expect(p1.edges[0].node).toMatchObject({ kind: 'ADJUSTMENT', outcome: 'SUCCESS', msisdn: POSTPAID });
    expect(p1.pageInfo).toEqual({
      hasNextPage: true,
      hasPreviousPage: false,
      startCursor: p1.edges[0].cursor,
      endCursor: p1.edges[1].cursor,
    });
    const p2 = await charges({ first: 2, after: p1.pageInfo.endCursor });
    expect(p2.edges.map((e: Edge) => e.node.amount)).toEqual(['3.00', '2.00']);
    expect(p2.pageInfo.hasPreviousPage).toBe(true);
    // The last page: exactly the remaining item; endCursor is its cursor (not null) and no next page.
    const p3 = await charges({ first: 1, after: p2.pageInfo.endCursor });
    expect(p3.edges.map((e: Edge) => e.node.amount)).toEqual(['1.00']);
    expect(p3.pageInfo).toMatchObject({ hasNextPage: false, endCursor: p3.edges[0].cursor });
    // Past the end: an empty page has no cursors.
    const p4 = await charges({ first: 2, after: p3.pageInfo.endCursor });
    expect(p4.edges).toEqual([]);
    expect(p4.pageInfo).toEqual({
      hasNextPage: false,
      hasPreviousPage: true,
      startCursor: null,
      endCursor: null,
    });
    // The deprecated fields say the same as pageInfo.
    for (const p of [p1, p2, p3, p4]) {
      expect(p.nodes).toEqual(p.edges.map((e: Edge) => ({ id: e.node.id })));
      expect(p.endCursor).toBe(p.pageInfo.endCursor);
      expect(p.hasNextPage).toBe(p.pageInfo.hasNextPage);
    }
  });

  it('pages the ledger backward with last/before', async () => {
    const tail = await charges({ last: 2 });
    expect(tail.edges.map((e: Edge) => e.node.amount)).toEqual(['2.00', '1.00']);
    expect(tail.pageInfo).toMatchObject({ hasPreviousPage: true, hasNextPage: false });
    const before = await charges({ last: 2, before: tail.pageInfo.startCursor });
    expect(before.edges.map((e: Edge) => e.node.amount)).toEqual(['4.00', '3.00']);
    expect(before.pageInfo).toMatchObject({ hasPreviousPage: true, hasNextPage: true });
    const head = await charges({ last: 2, before: before.pageInfo.startCursor });
    expect(head.edges.map((e: Edge) => e.node.amount)).toEqual(['5.00']);
    expect(head.pageInfo.hasPreviousPage).toBe(false);
  });

  it('an empty ledger is an empty connection with null cursors', async () => {
    const r = await gql(
      '{ subscriber(msisdn: "353870000003") { charges { totalCount edges { cursor } pageInfo { hasNextPage startCursor endCursor } endCursor } } }',
    );
    expect(r.data!.subscriber.charges).toEqual({
      totalCount: 0,
      edges: [],
      pageInfo: { hasNextPage: false, startCursor: null, endCursor: null },
      endCursor: null,
    });
  });

  it('refuses a forged cursor, another list cursor and a page size out of range with BAD_USER_INPUT', async () => {
    const ratingCursor = (await gql('{ ratings(first: 1) { pageInfo { endCursor } } }')).data!.ratings
      .pageInfo.endCursor;
    const chargeCursor = (await charges({ first: 1 })).pageInfo.endCursor;
    for (const [query, vars] of [
      [CHARGES, { m: POSTPAID, after: 'bm90LWEtY3Vyc29y' }],
      [CHARGES, { m: POSTPAID, after: 'not base64!' }],
      [CHARGES, { m: POSTPAID, before: ratingCursor }],
      [CHARGES, { m: POSTPAID, first: 501 }],
      [CHARGES, { m: POSTPAID, first: 1, last: 1 }],
      ['query($a: String) { ratings(after: $a) { totalCount } }', { a: chargeCursor }],
      [
        'query($a: String) { ratings(after: $a) { totalCount } }',
        { a: Buffer.from('rating:0').toString('base64url') },
      ],
    ] as [string, Record<string, unknown>][]) {
      const r = await gql(query, vars);
      expect(r.errors?.[0].extensions.code).toBe('BAD_USER_INPUT');
    }
  });

  it('keeps accepting the charge cursors of release 0.1.0 (before the Relay connections)', async () => {
    const p1 = await charges({ first: 1 });
    const id = Buffer.from(p1.pageInfo.endCursor, 'base64url').toString('utf8');
    expect(id).toMatch(/^charge:\d+$/);
    const p2 = await charges({ first: 1, after: Buffer.from(id).toString('base64url') });
    expect(p2.edges[0].node.amount).toBe('4.00');
  });

  it('pages the rating catalogue both ways; another tenant sees an empty catalogue', async () => {
    const RATINGS = `query($first: Int, $after: String, $last: Int, $before: String) {
      ratings(first: $first, after: $after, last: $last, before: $before) {
        totalCount edges { cursor node { id providerId kind retailPrice tax } }
        pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
      }
    }`;
    const seen: string[] = [];
    let after: string | null = null;
    for (;;) {
      const r = await gql(RATINGS, { first: 4, after });
      const c = r.data!.ratings;
      expect(c.totalCount).toBe(6);
      seen.push(...c.edges.map((e: Edge) => e.node.id));
      if (!c.pageInfo.hasNextPage) break;
      after = c.pageInfo.endCursor;
    }
    expect(seen).toHaveLength(6);
    expect(new Set(seen).size).toBe(6);
    const first = (await gql(RATINGS, { first: 1 })).data!.ratings.edges[0].node;
    expect(first).toMatchObject({ providerId: '6010', kind: 'CONTENT', retailPrice: '0.10', tax: '0.02' });
    const back = (await gql(RATINGS, { last: 4 })).data!.ratings;
    expect(back.edges.map((e: Edge) => e.node.id)).toEqual(seen.slice(2));
    expect(back.pageInfo).toMatchObject({ hasPreviousPage: true, hasNextPage: false });
    const rival = (await gql(RATINGS, {}, 'rival-admin')).data!.ratings;
    expect(rival).toEqual({
      totalCount: 0,
      edges: [],
      pageInfo: { hasNextPage: false, hasPreviousPage: false, startCursor: null, endCursor: null },
    });
  });
});
