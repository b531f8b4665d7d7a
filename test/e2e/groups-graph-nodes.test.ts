import { DONOR, PLAN, R, RIVAL_SUB, useSharingApp } from '../helpers/sharing';

/** A value of a GraphQL result, read by path (results of many shapes). */
type Data = ReturnType<typeof JSON.parse>;

/** Groups, members, plan definitions and subscriber plans are Nodes. */
describe('groups and plans as Nodes', () => {
  const t = useSharingApp();
  type Result = { data?: Record<string, Data> | null; errors?: { extensions: Record<string, unknown> }[] };
  const gql = async (as: string, query: string, variables?: Record<string, unknown>) =>
    (await t.app.request('POST', '/graphql', { as, body: { query, variables } })).json() as Result;

  /** A group of DONOR with R(0) as member, created over GraphQL; its id and its member's id. */
  async function groupWithMember(): Promise<{ groupId: string; memberNodeId: string }> {
    const created = await gql(
      'admin',
      `mutation { createGroup(input: { ownerId: "+${DONOR}", name: "Nodes" }) { group { id } userErrors { code } } }`,
    );
    const groupId = created.data!.createGroup.group.id as string;
    const added = await gql(
      'admin',
      `mutation($g: ID!) { addGroupMember(groupId: $g, input: { memberId: "${R(0)}", quota: 10 }) { groupMember { id } } }`,
      { g: groupId },
    );
    return { groupId, memberNodeId: added.data!.addGroupMember.groupMember.id as string };
  }

  it('a group is a Node by its service id; a member by its own global id; another tenant gets null', async () => {
    const { groupId, memberNodeId } = await groupWithMember();
    expect(groupId).toMatch(/^[A-Za-z0-9_-]{20}$/);
    const q = `query($ids: [ID!]!) { nodes(ids: $ids) { __typename id
      ... on Group { name ownerId }
      ... on GroupMember { groupId memberId quota } } }`;
    const mine = await gql('admin', q, { ids: [groupId, memberNodeId] });
    expect(mine).toEqual({
      data: {
        nodes: [
          { __typename: 'Group', id: groupId, name: 'Nodes', ownerId: DONOR },
          { __typename: 'GroupMember', id: memberNodeId, groupId, memberId: R(0), quota: 10 },
        ],
      },
    });
    // The member's id is the one the group's members connection gives.
    const listed = await gql(
      'admin',
      `query($g: ID!) { group(id: $g) { members { edges { node { id } } } } }`,
      {
        g: groupId,
      },
    );
    expect(listed.data!.group.members.edges[0].node.id).toBe(memberNodeId);
    expect(await gql('rival-admin', q, { ids: [groupId, memberNodeId] })).toEqual({
      data: { nodes: [null, null] },
    });
  });

  it('a removed member and a forged member key resolve to null', async () => {
    const { groupId, memberNodeId } = await groupWithMember();
    const forged = Buffer.from(`GroupMember:${groupId}:${R(5)}`).toString('base64url');
    const noKey = Buffer.from('GroupMember:nonsense').toString('base64url');
    const q = 'query($id: ID!) { node(id: $id) { id } }';
    expect((await gql('admin', q, { id: forged })).data).toEqual({ node: null });
    expect((await gql('admin', q, { id: noKey })).data).toEqual({ node: null });
    await gql(
      'admin',
      `mutation($g: ID!) { removeGroupMember(groupId: $g, memberId: "${R(0)}") { deletedGroupMemberId } }`,
      {
        g: groupId,
      },
    );
    expect((await gql('admin', q, { id: memberNodeId })).data).toEqual({ node: null });
  });

  it('plan definitions and subscriber plans are Nodes; their numbers are planDefinitionId and planId', async () => {
    const defs = await gql(
      'admin',
      '{ planDefinitions(first: 10) { edges { node { id planDefinitionId name } } } }',
    );
    const share = defs.data!.planDefinitions.edges.find(
      (e: { node: { name: string } }) => e.node.name === 'Share 10GB',
    ).node;
    expect(share.planDefinitionId).toEqual(expect.any(Number));
    expect(share.id).not.toBe(String(share.planDefinitionId));
    const plan = await gql(
      'admin',
      `{ subscriberPlan(id: ${PLAN.share}) { id planId msisdn definition { id } } }`,
    );
    const p = plan.data!.subscriberPlan;
    expect(p).toMatchObject({ planId: PLAN.share, msisdn: DONOR, definition: { id: share.id } });
    const q = `query($ids: [ID!]!) { nodes(ids: $ids) { __typename id
      ... on PlanDefinition { name planDefinitionId }
      ... on SubscriberPlan { planId remaining } } }`;
    expect(await gql('admin', q, { ids: [share.id, p.id] })).toEqual({
      data: {
        nodes: [
          {
            __typename: 'PlanDefinition',
            id: share.id,
            name: 'Share 10GB',
            planDefinitionId: share.planDefinitionId,
          },
          { __typename: 'SubscriberPlan', id: p.id, planId: PLAN.share, remaining: 10_000_000_000 },
        ],
      },
    });
    // Another tenant's ids name nothing: acme's for rival, rival's plan for acme.
    expect(await gql('rival-admin', q, { ids: [share.id, p.id] })).toEqual({ data: { nodes: [null, null] } });
    const rivalPlan = await gql(
      'rival-admin',
      `{ subscriberPlans(msisdn: "${RIVAL_SUB}") { edges { node { id } } } }`,
    );
    const rivalId = rivalPlan.data!.subscriberPlans.edges[0].node.id as string;
    expect((await gql('rival-admin', q, { ids: [rivalId] })).data).toEqual({
      nodes: [{ __typename: 'SubscriberPlan', id: rivalId, planId: PLAN.rival, remaining: 1000 }],
    });
    expect((await gql('admin', q, { ids: [rivalId] })).data).toEqual({ nodes: [null] });
  });

  it('node(id:) needs the permission the entity’s own query needs', async () => {
    const { groupId } = await groupWithMember();
    // The sqs-reader client holds SQS_GROUP_READ_PERMISSION only.
    const reader = async (id: string) =>
      (
        await t.app.request('POST', '/graphql', {
          auth: `Basic ${Buffer.from('sqs-reader:sqs-reader-password').toString('base64')}`,
          body: { query: 'query($id: ID!) { node(id: $id) { id } }', variables: { id } },
        })
      ).json() as Result;
    expect((await reader(groupId)).data).toEqual({ node: { id: groupId } });
    const plan = await gql('admin', `{ subscriberPlan(id: ${PLAN.share}) { id } }`);
    const denied = await reader(plan.data!.subscriberPlan.id);
    expect(denied.errors?.[0].extensions.code).toBe('FORBIDDEN');
  });
});
