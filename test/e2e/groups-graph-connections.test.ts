import { DONOR, R, useSharingApp } from '../helpers/sharing';

/** A value of a GraphQL result, read by path (results of many shapes). */
type Data = ReturnType<typeof JSON.parse>;

/** Groups, group members, plan definitions and subscriber plans are Relay connections. */
describe('group and plan connections', () => {
  const t = useSharingApp();
  type Result = { data?: Record<string, Data> | null; errors?: { extensions: Record<string, unknown> }[] };
  const gql = async (query: string, variables?: Record<string, unknown>) =>
    (await t.app.request('POST', '/graphql', { as: 'admin', body: { query, variables } })).json() as Result;
  type Page = {
    totalCount: number;
    edges: { cursor: string; node: Record<string, unknown> }[];
    pageInfo: {
      hasNextPage: boolean;
      hasPreviousPage: boolean;
      startCursor: string | null;
      endCursor: string | null;
    };
  };
  const PAGE =
    'totalCount edges { cursor node { %s } } pageInfo { hasNextPage hasPreviousPage startCursor endCursor }';

  async function groups(n: number): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < n; i++) {
      const r = await gql(
        `mutation { createGroup(input: { ownerId: "${DONOR}", name: "g${i}" }) { group { id } } }`,
      );
      ids.push(r.data!.createGroup.group.id);
      t.app.clock.advanceSeconds(1);
    }
    return ids;
  }

  /** Every page of a connection, forward with `first` or backward with `last`. */
  async function walk(
    field: (args: string) => string,
    pick: (data: Record<string, Data>) => Page,
    size: number,
    backward = false,
  ): Promise<{ pages: Page[]; keys: unknown[] }> {
    const pages: Page[] = [];
    let cursor: string | null = null;
    for (;;) {
      const args: string = backward
        ? `last: ${size}${cursor ? `, before: "${cursor}"` : ''}`
        : `first: ${size}${cursor ? `, after: "${cursor}"` : ''}`;
      const r = await gql(`{ ${field(args)} }`);
      expect(r.errors).toBeUndefined();
      const page = pick(r.data!);
      pages.push(page);
      const more = backward ? page.pageInfo.hasPreviousPage : page.pageInfo.hasNextPage;
      if (!more) break;
      cursor = backward ? page.pageInfo.startCursor : page.pageInfo.endCursor;
      expect(pages.length).toBeLessThan(20);
    }
    const ordered = backward ? [...pages].reverse() : pages;
    return { pages, keys: ordered.flatMap((p) => p.edges.map((e) => Object.values(e.node)[0])) };
  }

  it('groups: forward and backward pages, cursors, totalCount; the deprecated page view still answers', async () => {
    const ids = await groups(5);
    const field = (args: string) => `groups(ownerId: "${DONOR}", ${args}) { ${PAGE.replace('%s', 'id')} }`;
    const fwd = await walk(field, (d) => d.groups, 2);
    expect(fwd.pages.map((p) => p.edges.length)).toEqual([2, 2, 1]);
    expect(fwd.keys).toEqual(ids);
    expect(fwd.pages.map((p) => p.totalCount)).toEqual([5, 5, 5]);
    expect(fwd.pages[0].pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: false });
    expect(fwd.pages[2].pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: true });
    expect(fwd.pages[2].pageInfo.endCursor).toBe(fwd.pages[2].edges[0].cursor);
    const back = await walk(field, (d) => d.groups, 2, true);
    expect(back.pages.map((p) => p.edges.length)).toEqual([2, 2, 1]);
    expect(back.keys).toEqual(ids);
    // by member too
    await gql(
      `mutation { addGroupMember(groupId: "${ids[3]}", input: { memberId: "${R(1)}", quota: 1 }) { groupMember { id } } }`,
    );
    const byMember = await gql(`{ groups(memberId: "${R(1)}") { totalCount edges { node { id } } } }`);
    expect(byMember.data!.groups).toEqual({ totalCount: 1, edges: [{ node: { id: ids[3] } }] });
    const legacy = await gql(
      `{ groups(ownerId: "${DONOR}", page: 0) { nodes { id } page size totalElements totalCount pageInfo { hasNextPage } } }`,
    );
    expect(legacy.data!.groups).toEqual({
      nodes: ids.map((id) => ({ id })),
      page: 0,
      size: 100,
      totalElements: 5,
      totalCount: 5,
      pageInfo: { hasNextPage: false },
    });
  });

  it('a forged cursor, another list’s cursor and page with first are BAD_USER_INPUT', async () => {
    const ids = await groups(2);
    await gql(
      `mutation { addGroupMember(groupId: "${ids[0]}", input: { memberId: "${R(0)}", quota: 1 }) { groupMember { id } } }`,
    );
    const members = await gql(`{ group(id: "${ids[0]}") { members { edges { cursor } } } }`);
    const memberCursor = members.data!.group.members.edges[0].cursor as string;
    const plans = await gql(`{ planDefinitions(first: 1) { edges { cursor } } }`);
    const planCursor = plans.data!.planDefinitions.edges[0].cursor as string;
    const groupsPage = await gql(`{ groups(ownerId: "${DONOR}", first: 1) { pageInfo { endCursor } } }`);
    const groupCursor = groupsPage.data!.groups.pageInfo.endCursor as string;
    const bad = [
      `{ groups(ownerId: "${DONOR}", after: "garbage!") { totalCount } }`,
      `{ groups(ownerId: "${DONOR}", after: "${memberCursor}") { totalCount } }`,
      `{ groups(ownerId: "${DONOR}", page: 0, first: 2) { totalCount } }`,
      `{ group(id: "${ids[0]}") { members(after: "${groupCursor}") { totalCount } } }`,
      `{ planDefinitions(after: "${memberCursor}") { totalCount } }`,
      `{ subscriberPlans(msisdn: "${DONOR}", before: "${planCursor}") { totalCount } }`,
      `{ planDefinitions(first: 501) { totalCount } }`,
      `{ groups(ownerId: "${DONOR}", first: 0) { totalCount } }`,
    ];
    for (const q of bad)
      expect([q, (await gql(q)).errors?.[0].extensions.code]).toEqual([q, 'BAD_USER_INPUT']);
  });

  it('Group.members: the whole group without a page size, pages with first/after and last/before, the deprecated page', async () => {
    const [id] = await groups(1);
    const members = [R(0), R(1), R(2), R(3), R(4)];
    await gql(
      `mutation($g: ID!, $m: [GroupMemberInput!]!) { addGroupMembers(groupId: $g, members: $m) { userErrors { code } } }`,
      { g: id, m: members.map((memberId) => ({ memberId, quota: 1000 })) },
    );
    const all = await gql(
      `{ group(id: "${id}") { memberCount members { totalCount edges { node { memberId } } pageInfo { hasNextPage } } } }`,
    );
    expect(all.data!.group).toEqual({
      memberCount: 5,
      members: {
        totalCount: 5,
        edges: members.map((memberId) => ({ node: { memberId } })),
        pageInfo: { hasNextPage: false },
      },
    });
    const field = (args: string) =>
      `group(id: "${id}") { members(${args}) { ${PAGE.replace('%s', 'memberId')} } }`;
    const fwd = await walk(field, (d) => d.group.members, 2);
    expect(fwd.keys).toEqual(members);
    expect(fwd.pages.map((p) => p.edges.length)).toEqual([2, 2, 1]);
    const back = await walk(field, (d) => d.group.members, 3, true);
    expect(back.keys).toEqual(members);
    expect(back.pages.map((p) => p.edges.length)).toEqual([3, 2]);
    const legacy = await gql(`{ group(id: "${id}") { members(page: 0) { edges { node { memberId } } } } }`);
    expect(legacy.data!.group.members.edges).toHaveLength(5);
    const empty = await gql(
      `{ group(id: "${id}") { members(page: 1) { edges { node { memberId } } pageInfo { hasPreviousPage endCursor } } } }`,
    );
    expect(empty.data!.group.members).toEqual({
      edges: [],
      pageInfo: { hasPreviousPage: true, endCursor: null },
    });
  });

  it('planDefinitions and subscriberPlans page forward and backward', async () => {
    const defField = (args: string) => `planDefinitions(${args}) { ${PAGE.replace('%s', 'name')} }`;
    const defs = await walk(defField, (d) => d.planDefinitions, 3);
    expect(defs.keys).toEqual(['Share 10GB', 'Gift 1000', 'Voice', 'Credit']);
    expect(defs.pages.map((p) => p.totalCount)).toEqual([4, 4]);
    expect((await walk(defField, (d) => d.planDefinitions, 3, true)).keys).toEqual(defs.keys);
    const planField = (args: string) =>
      `subscriberPlans(msisdn: "+${DONOR}", ${args}) { ${PAGE.replace('%s', 'planId')} }`;
    const plans = await walk(planField, (d) => d.subscriberPlans, 3);
    expect(plans.keys).toEqual([100, 101, 102, 104]);
    expect(plans.pages[0].totalCount).toBe(4);
    expect((await walk(planField, (d) => d.subscriberPlans, 1, true)).keys).toEqual([100, 101, 102, 104]);
  });
});
