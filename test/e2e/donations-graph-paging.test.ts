import { DONOR, PLAN, R, SQS_AUTH, useSharingApp } from '../helpers/sharing';

/**
 * `donations`, `allowances` and `recurringDonations` as Relay connections:
 * forward and backward paging reach every item once in list order, cursors are opaque and
 * checked (forged or another list's: BAD_USER_INPUT), and the deprecated `page` still works.
 */
describe('donations on the graph: connections', () => {
  const t = useSharingApp();
  type Page = {
    edges: { cursor: string; node: { id: string } }[];
    pageInfo: {
      hasNextPage: boolean;
      hasPreviousPage: boolean;
      startCursor: string | null;
      endCursor: string | null;
    };
    totalCount?: number;
  };
  const gql = async (query: string, variables: Record<string, unknown> = {}) => {
    const res = await t.app.request('POST', '/graphql', { auth: SQS_AUTH, body: { query, variables } });
    return res.json() as { data?: Record<string, Page>; errors?: { extensions: Record<string, unknown> }[] };
  };
  const PAGE = 'edges { cursor node { id } } pageInfo { hasNextPage hasPreviousPage startCursor endCursor }';
  const DONATIONS = `query($first: Int, $after: String, $last: Int, $before: String) {
    donations(donorId: "+${DONOR}", first: $first, after: $after, last: $last, before: $before) { ${PAGE} }
  }`;
  const ALLOWANCES = `query($first: Int, $after: String, $last: Int, $before: String) {
    allowances(msisdn: "${R(0)}", first: $first, after: $after, last: $last, before: $before) { ${PAGE} }
  }`;

  /** `n` donations of 1 byte to R(0), one second apart but every fifth at the same instant as the one before. */
  async function donate(n: number) {
    for (let i = 0; i < n; i++) {
      if (i % 5 !== 4) t.app.clock.advanceSeconds(1);
      const res = await t.sqs.donate({
        donorId: DONOR,
        donorPlanId: PLAN.amount,
        quotaType: 'amount',
        recipients: [{ recipientId: R(0), quota: 1 }],
      });
      expect(res.status).toBe(200);
    }
  }

  /** Walks a connection with pages of `size`, forward or backward; returns the ids and the pages. */
  async function walk(query: string, field: string, size: number, backward = false) {
    const ids: string[] = [];
    const pages: Page[] = [];
    let cursor: string | null = null;
    for (let i = 0; i < 100; i++) {
      const vars = backward ? { last: size, before: cursor } : { first: size, after: cursor };
      const res = await gql(query, vars);
      expect(res.errors).toBeUndefined();
      const page = res.data![field];
      pages.push(page);
      const items = page.edges.map((e) => e.node.id);
      if (backward) ids.unshift(...items);
      else ids.push(...items);
      const more = backward ? page.pageInfo.hasPreviousPage : page.pageInfo.hasNextPage;
      if (!more) return { ids, pages };
      cursor = backward ? page.pageInfo.startCursor : page.pageInfo.endCursor;
    }
    throw new Error('paging did not end');
  }

  it('donations: every donation once, newest first (ties by id), forward and backward', async () => {
    await donate(23);
    const expected = (
      await t.app.tdb
        .db('donations')
        .select('id', 'created_at')
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
    ).map((r) => String(r.id));
    expect(expected).toHaveLength(23);
    const forward = await walk(DONATIONS, 'donations', 5);
    expect(forward.ids).toEqual(expected);
    expect(forward.pages).toHaveLength(5);
    expect(forward.pages[0].pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: false });
    expect(forward.pages[4].pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: true });
    const last = forward.pages[4];
    expect(last.pageInfo.endCursor).toBe(last.edges.at(-1)!.cursor);
    expect(last.pageInfo.startCursor).toBe(last.edges[0].cursor);
    expect((await walk(DONATIONS, 'donations', 4, true)).ids).toEqual(expected);
    // A window between two cursors.
    const a = forward.pages[0].edges[2].cursor;
    const b = forward.pages[1].edges[3].cursor;
    const window = await gql(DONATIONS, { first: 50, after: a, before: b });
    expect(window.data!.donations.edges.map((e) => e.node.id)).toEqual(expected.slice(3, 8));
  });

  it('allowances: every allowance once, newest first, forward and backward', async () => {
    await donate(12);
    const expected = (await t.app.tdb.db('allowances').select('id').orderBy('id', 'desc')).map((r) =>
      Number(r.id),
    );
    const idOf = (key: number) => Buffer.from(`Allowance:${key}`).toString('base64url');
    expect((await walk(ALLOWANCES, 'allowances', 5)).ids).toEqual(expected.map(idOf));
    expect((await walk(ALLOWANCES, 'allowances', 5, true)).ids).toEqual(expected.map(idOf));
    const empty = await gql(`{ allowances(msisdn: "${R(9)}") { ${PAGE} } }`);
    expect(empty.data!.allowances).toEqual({
      edges: [],
      pageInfo: { hasNextPage: false, hasPreviousPage: false, startCursor: null, endCursor: null },
    });
  });

  it('recurringDonations: a connection with totalCount; the deprecated page keeps the published numbering', async () => {
    const first = await t.sqs.createRecurring({
      donorId: DONOR,
      donorPlanId: PLAN.share,
      quotaType: 'share',
      recipients: [{ recipientId: R(0), quota: 100 }],
    });
    t.app.clock.advanceSeconds(1);
    const second = await t.sqs.createRecurring({
      donorId: DONOR,
      donorPlanId: PLAN.credit,
      quotaType: 'amount',
      recipients: [{ recipientId: R(1), quota: 5 }],
    });
    const ids = [first.json().id, second.json().id];
    const Q = `query($first: Int, $after: String, $last: Int, $before: String) {
      recurringDonations(donorId: "${DONOR}", first: $first, after: $after, last: $last, before: $before) { totalCount ${PAGE} }
    }`;
    const p1 = await gql(Q, { first: 1 });
    expect(p1.data!.recurringDonations).toMatchObject({
      totalCount: 2,
      edges: [{ node: { id: ids[0] } }],
      pageInfo: { hasNextPage: true, hasPreviousPage: false },
    });
    const p2 = await gql(Q, { first: 1, after: p1.data!.recurringDonations.pageInfo.endCursor });
    expect(p2.data!.recurringDonations).toMatchObject({
      edges: [{ node: { id: ids[1] } }],
      pageInfo: { hasNextPage: false, hasPreviousPage: true },
    });
    const back = await gql(Q, { last: 1, before: p2.data!.recurringDonations.pageInfo.startCursor });
    expect(back.data!.recurringDonations.edges.map((e) => e.node.id)).toEqual([ids[0]]);
    const numbered = await gql(
      `{ recurringDonations(donorId: "${DONOR}", page: 0) { nodes { id } page size totalElements totalCount } }`,
    );
    expect(numbered.data!.recurringDonations).toEqual({
      nodes: [{ id: ids[0] }, { id: ids[1] }],
      page: 0,
      size: 100,
      totalElements: 2,
      totalCount: 2,
    });
    const both = await gql(`{ recurringDonations(donorId: "${DONOR}", page: 0, first: 1) { totalCount } }`);
    expect(both.errors?.[0].extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      fields: [{ field: 'page' }],
    });
    const neither = await gql('{ recurringDonations(first: 1) { totalCount } }');
    expect(neither.errors?.[0].extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      fields: [{ field: 'donorId' }],
    });
  });

  it("a forged cursor or another list's cursor is BAD_USER_INPUT, never a page", async () => {
    await donate(3);
    const allowanceCursor = (await gql(ALLOWANCES, { first: 1 })).data!.allowances.pageInfo.endCursor;
    const donationCursor = (await gql(DONATIONS, { first: 1 })).data!.donations.pageInfo.endCursor;
    const forged = Buffer.from('donation:1:short').toString('base64url');
    const cases: [string, Record<string, unknown>, string][] = [
      [DONATIONS, { first: 1, after: allowanceCursor }, 'after'],
      [DONATIONS, { last: 1, before: forged }, 'before'],
      [DONATIONS, { first: 1, after: 'not a cursor!' }, 'after'],
      [ALLOWANCES, { first: 1, after: donationCursor }, 'after'],
      [
        `query($c: String) { recurringDonations(donorId: "${DONOR}", after: $c) { totalCount } }`,
        { c: donationCursor },
        'after',
      ],
      [DONATIONS, { first: 1, last: 1 }, 'last'],
      [DONATIONS, { first: 0 }, 'first'],
    ];
    for (const [query, variables, field] of cases) {
      const res = await gql(query, variables);
      expect(res.data?.donations ?? res.data?.allowances ?? res.data?.recurringDonations ?? null).toBeNull();
      expect(res.errors?.[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', fields: [{ field }] });
    }
  });
});
