import { DONOR, INACTIVE, OTHER_DONOR, PLAN, R, useSharingApp } from '../helpers/sharing';

const UNKNOWN = '353870000999';

/** A value of a GraphQL result, read by path (results of many shapes). */
type Data = ReturnType<typeof JSON.parse>;

/** Typed inputs refused before any change, payloads with typed userErrors. */
describe('group and plan mutation payloads', () => {
  const t = useSharingApp({ MAX_GROUP_SIZE: '3' });
  type Result = { data?: Record<string, Data> | null; errors?: { extensions: Record<string, unknown> }[] };
  const gql = async (query: string, variables?: Record<string, unknown>, as = 'admin') =>
    (await t.app.request('POST', '/graphql', { as, body: { query, variables } })).json() as Result;
  const db = () => t.app.tdb.db;
  const ERRORS = 'userErrors { __typename code field message }';

  async function group(name = 'Family', quotaType = 'SHARE'): Promise<string> {
    const r = await gql(
      `mutation($n: String!, $q: QuotaType) { createGroup(input: { ownerId: "${DONOR}", name: $n, quotaType: $q }) { group { id quotaType } ${ERRORS} } }`,
      { n: name, q: quotaType },
    );
    expect(r.data!.createGroup.userErrors).toEqual([]);
    expect(r.data!.createGroup.group.quotaType).toBe(quotaType);
    return r.data!.createGroup.group.id;
  }
  const add = (g: string, memberId: string, quota: number) =>
    gql(
      `mutation($g: ID!, $m: MSISDN!, $q: SafeInt!) { addGroupMember(groupId: $g, input: { memberId: $m, quota: $q }) { groupMember { memberId quota } ${ERRORS} } }`,
      { g, m: memberId, q: quota },
    ).then((r) => r.data!.addGroupMember);
  const codes = (p: { userErrors: { code: string }[] }) => p.userErrors.map((e) => e.code);

  it('createGroup: the group, or NAME_TAKEN / SUBSCRIBER_NOT_FOUND / INVALID naming the field', async () => {
    await group();
    const create = (ownerId: string, name: string) =>
      gql(
        `mutation($o: MSISDN!, $n: String!) { createGroup(input: { ownerId: $o, name: $n }) { group { id } ${ERRORS} } }`,
        { o: ownerId, n: name },
      ).then((r) => r.data!.createGroup);
    expect(await create('+' + DONOR, 'Family')).toEqual({
      group: null,
      userErrors: [
        { __typename: 'GroupUserError', code: 'NAME_TAKEN', field: null, message: expect.any(String) },
      ],
    });
    expect(codes(await create(UNKNOWN, 'Family'))).toEqual(['SUBSCRIBER_NOT_FOUND']);
    const blank = await create(DONOR, '   ');
    expect(blank.userErrors).toEqual([
      {
        __typename: 'GroupUserError',
        code: 'INVALID',
        field: ['input', 'name'],
        message: expect.any(String),
      },
    ]);
    expect(await db()('sharing_groups').count({ n: '*' }).first()).toMatchObject({ n: 1 });
  });

  it('scalars and enums refuse malformed input before any change', async () => {
    const before = await db()('sharing_groups').count({ n: '*' }).first();
    const bad = [
      [
        'mutation($o: MSISDN!) { createGroup(input: { ownerId: $o, name: "x" }) { group { id } } }',
        { o: '12ab' },
      ],
      [
        'mutation($q: QuotaType) { createGroup(input: { ownerId: "1234567", name: "x", quotaType: $q }) { group { id } } }',
        { q: 'share' },
      ],
    ] as const;
    for (const [q, v] of bad) expect((await gql(q, v)).errors?.[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(await db()('sharing_groups').count({ n: '*' }).first()).toEqual(before);
    const g = await group();
    for (const quota of [1.5, 2 ** 53, '7']) {
      const r = await gql(
        `mutation($g: ID!, $q: SafeInt!) { addGroupMember(groupId: $g, input: { memberId: "${R(0)}", quota: $q }) { groupMember { quota } } }`,
        { g, q: quota },
      );
      expect(r.errors?.[0].extensions.code).toBe('BAD_USER_INPUT');
    }
    const literal = await gql(
      `mutation { removeGroupMembers(groupId: "${g}", memberIds: ["${R(0)}", "x"]) { deletedGroupMemberIds } }`,
    );
    expect(literal.errors?.[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
    expect(await db()('group_members').count({ n: '*' }).first()).toMatchObject({ n: 0 });
  });

  it('member writes: each refusal its code, nothing changed', async () => {
    const g = await group();
    expect(await add(g, R(0), 6_000_000)).toEqual({
      groupMember: { memberId: R(0), quota: 6_000_000 },
      userErrors: [],
    });
    expect(codes(await add('AAAAAAAAAAAAAAAAAAAA', R(1), 1))).toEqual(['GROUP_NOT_FOUND']);
    expect(codes(await add(g, R(0), 1))).toEqual(['ALREADY_MEMBER']);
    expect(codes(await add(g, DONOR, 1))).toEqual(['MEMBER_IS_OWNER']);
    expect(codes(await add(g, UNKNOWN, 1))).toEqual(['SUBSCRIBER_NOT_FOUND']);
    expect(codes(await add(g, R(1), 5_000_000))).toEqual(['SHARE_OVER_TOTAL']);
    const range = await add(g, R(1), 10_000_001);
    expect(range.userErrors).toEqual([
      {
        __typename: 'GroupUserError',
        code: 'INVALID',
        field: ['input', 'quota'],
        message: expect.any(String),
      },
    ]);
    const upsert = await gql(
      `mutation($g: ID!) { upsertGroupMember(groupId: $g, memberId: "${INACTIVE}", input: { memberId: "${INACTIVE}", quota: 1 }) { groupMember { memberId } ${ERRORS} } }`,
      { g },
    );
    expect(codes(upsert.data!.upsertGroupMember)).toEqual(['SUBSCRIBER_NOT_ACTIVE']);
    await add(g, R(1), 1);
    await add(g, R(2), 1);
    expect(codes(await add(g, R(3), 1))).toEqual(['GROUP_FULL']);
    const bulk = await gql(
      `mutation($g: ID!, $m: [GroupMemberInput!]!) { addGroupMembers(groupId: $g, members: $m) { groupMembers { memberId } ${ERRORS} } }`,
      { g, m: [] },
    );
    expect(bulk.data!.addGroupMembers).toEqual({
      groupMembers: null,
      userErrors: [
        { __typename: 'GroupUserError', code: 'INVALID', field: ['members'], message: expect.any(String) },
      ],
    });
    const members = await db()('group_members').where({ group_id: g }).orderBy('id').select('member_msisdn');
    expect(members.map((m) => m.member_msisdn)).toEqual([R(0), R(1), R(2)]);
  });

  it('removals and deletes return the deleted ids; a repeat is NOT_A_MEMBER / GROUP_NOT_FOUND', async () => {
    const g = await group('Amounts', 'AMOUNT');
    const added = await gql(
      `mutation($g: ID!, $m: [GroupMemberInput!]!) { addGroupMembers(groupId: $g, members: $m) { groupMembers { id memberId } } }`,
      { g, m: [R(0), R(1), R(2)].map((memberId) => ({ memberId, quota: 5 })) },
    );
    const ids = added.data!.addGroupMembers.groupMembers.map((m: { id: string }) => m.id);
    const remove = () =>
      gql(
        `mutation($g: ID!) { removeGroupMember(groupId: $g, memberId: "+${R(0)}") { deletedGroupMemberId ${ERRORS} } }`,
        {
          g,
        },
      ).then((r) => r.data!.removeGroupMember);
    expect(await remove()).toEqual({ deletedGroupMemberId: ids[0], userErrors: [] });
    expect(await remove()).toMatchObject({
      deletedGroupMemberId: null,
      userErrors: [{ code: 'NOT_A_MEMBER', field: null }],
    });
    const bulk = await gql(
      `mutation($g: ID!) { removeGroupMembers(groupId: $g, memberIds: ["${R(1)}", "${R(9)}"]) { deletedGroupMemberIds ${ERRORS} } }`,
      { g },
    );
    expect(bulk.data!.removeGroupMembers).toEqual({ deletedGroupMemberIds: [ids[1]], userErrors: [] });
    const del = () =>
      gql(`mutation($g: ID!) { deleteGroup(id: $g) { deletedGroupId ${ERRORS} } }`, { g }).then(
        (r) => r.data!.deleteGroup,
      );
    expect(await del()).toEqual({ deletedGroupId: g, userErrors: [] });
    expect(await del()).toMatchObject({ deletedGroupId: null, userErrors: [{ code: 'GROUP_NOT_FOUND' }] });
  });

  it('updateGroup: NAME_TAKEN, INVALID on the owner; an idempotency key reused for other input', async () => {
    const g = await group('A');
    await group('B');
    const rename = (name: string, ownerId = DONOR, key?: string) =>
      gql(
        `mutation($g: ID!, $o: MSISDN!, $n: String!, $k: String) { updateGroup(id: $g, input: { id: $g, ownerId: $o, name: $n }, idempotencyKey: $k) { group { name } ${ERRORS} } }`,
        { g, o: ownerId, n: name, k: key },
      ).then((r) => r.data!.updateGroup);
    expect(codes(await rename('B'))).toEqual(['NAME_TAKEN']);
    expect((await rename('C', OTHER_DONOR)).userErrors[0]).toMatchObject({
      code: 'INVALID',
      field: ['input', 'ownerId'],
    });
    expect(await rename('C', DONOR, 'key-1')).toEqual({ group: { name: 'C' }, userErrors: [] });
    expect(codes(await rename('D', DONOR, 'key-1'))).toEqual(['IDEMPOTENCY_KEY_REUSED']);
  });

  it('plan mutations: payloads with PlanUserError codes naming the field', async () => {
    const def = await gql(
      `mutation($i: PlanDefinitionInput!) { upsertPlanDefinition(input: $i) { planDefinition { id name unitMeteringType shareQuotaType } userErrors { code field } } }`,
      {
        i: {
          name: 'Zero',
          unitMeteringType: 'TIME',
          unitAmount: 60,
          shareable: true,
          recurring: false,
          shareQuotaType: 'AMOUNT',
          maxRecipients: 0,
        },
      },
    );
    expect(def.data!.upsertPlanDefinition).toEqual({
      planDefinition: null,
      userErrors: [{ code: 'INVALID', field: ['input', 'maxRecipients'] }],
    });
    const plan = (input: Record<string, unknown>) =>
      gql(
        `mutation($i: SubscriberPlanInput!) { upsertSubscriberPlan(input: $i) { subscriberPlan { planId remaining } userErrors { code field } } }`,
        { i: { id: 900, msisdn: R(0), planDefinition: 'Voice', remaining: 5, ...input } },
      ).then((r) => r.data!.upsertSubscriberPlan);
    expect(await plan({ planDefinition: 'Nope' })).toEqual({
      subscriberPlan: null,
      userErrors: [{ code: 'PLAN_DEFINITION_NOT_FOUND', field: ['input', 'planDefinition'] }],
    });
    expect((await plan({ msisdn: UNKNOWN })).userErrors).toEqual([
      { code: 'SUBSCRIBER_NOT_FOUND', field: ['input', 'msisdn'] },
    ]);
    expect((await plan({ id: PLAN.rival })).userErrors).toEqual([
      { code: 'PLAN_ID_TAKEN', field: ['input', 'id'] },
    ]);
    expect(await plan({})).toEqual({ subscriberPlan: { planId: 900, remaining: 5 }, userErrors: [] });
    const renew = (id: number) =>
      gql(
        `mutation { renewSubscriberPlan(id: ${id}) { subscriberPlan { planId period remaining } plan { period } donation { id } userErrors { code } } }`,
      ).then((r) => r.data!.renewSubscriberPlan);
    expect(await renew(PLAN.voice)).toEqual({
      subscriberPlan: { planId: PLAN.voice, period: 2, remaining: 30_000 },
      plan: { period: 2 },
      donation: null,
      userErrors: [],
    });
    expect(codes(await renew(PLAN.rival))).toEqual(['PLAN_NOT_FOUND']);
    expect(codes(await renew(99_999))).toEqual(['PLAN_NOT_FOUND']);
  });
});
