import { Permission } from '../auth/permissions';
import { RestRoute, defineRoute, optionalQueryString } from './route';
import { SQS_GROUP_ROUTES } from './sqs-groups.routes';
import { donationInputOf, groupInputOf, memberInputOf } from './sqs-input';
import { SQS_RECURRING_ROUTES } from './sqs-recurring.routes';
import {
  GROUP_SELECTION,
  GroupData,
  RECURRING_SELECTION,
  RecurringData,
  groupBody,
  groupHref,
  halPage,
  notFound,
  pageOf,
  recurringBody,
  sqs,
} from './sqs.shared';

/**
 * Quota-sharing rows (CONTRACT §5, spec 4.4, 4.5, 4.8). Every row needs the `tenant` header,
 * renders errors in the `sqs` style, and requires the `permissions` header naming its published
 * permission (and the client holding it). Every POST (and PUT) row is `idempotent`: it takes the
 * `Idempotency-Key` header (CONTRACT §5). The rows of the wider published API are in
 * `sqs-groups.routes.ts` and `sqs-recurring.routes.ts`; shared shapes in `sqs.shared.ts`.
 */

interface DonationData {
  id: string;
  errorCode: number;
  groupId: string | null;
  recipients: { recipientId: string; errorCode: number }[];
}

/**
 * POST /sqs/api/donations (spec 4.4/4.5): 200, or 207 when any recipient failed. Explicit form
 * `{id, errorCode, recipients[all]}`; group form `{errorCode, recipients[succeeded]}` (spec 2.7).
 */
const donate = defineRoute<{ shareQuota: DonationData }>({
  ...sqs,
  method: 'POST',
  path: '/sqs/api/donations',
  permissionHeader: Permission.SQS_DONATION_PERMISSION,
  idempotent: true,
  document: `mutation ShareQuota($input: DonationInput!, $idempotencyKey: String) {
    shareQuota(input: $input, idempotencyKey: $idempotencyKey) {
      id errorCode groupId recipients { recipientId errorCode }
    }
  }`,
  variables: ({ body }) => ({ input: donationInputOf(body, 'invalid donation') }),
  result: ({ shareQuota: d }) => {
    const status = d.recipients.some((r) => r.errorCode !== 0) ? 207 : 200;
    const recipients = d.recipients.map((r) => ({ recipientId: r.recipientId, errorCode: r.errorCode }));
    return d.groupId !== null
      ? { status, body: { errorCode: d.errorCode, recipients: recipients.filter((r) => r.errorCode === 0) } }
      : { status, body: { id: d.id, errorCode: d.errorCode, recipients } };
  },
});

/** POST /sqs/api/groups: 201 `{id, ownerId, name, created, updated}`; owner+name taken 409/2. */
const createGroup = defineRoute<{ createGroup: GroupData }>({
  ...sqs,
  method: 'POST',
  path: '/sqs/api/groups',
  permissionHeader: Permission.SQS_GROUP_CREATE_UPDATE_PERMISSION,
  idempotent: true,
  document: `mutation CreateGroup($input: GroupInput!, $idempotencyKey: String) {
    createGroup(input: $input, idempotencyKey: $idempotencyKey) { ${GROUP_SELECTION} }
  }`,
  variables: ({ body }) => ({ input: groupInputOf(body) }),
  result: ({ createGroup: g }) => ({ status: 201, body: groupBody(g) }),
});

/** GET /sqs/api/groups/<id>: the group with `quotaType` and `members[{memberId, quota}]`; 404/5. */
const getGroup = defineRoute<{
  group: (GroupData & { members: { memberId: string; quota: number }[] }) | null;
}>({
  ...sqs,
  method: 'GET',
  path: '/sqs/api/groups/:id',
  permissionHeader: Permission.SQS_GROUP_READ_PERMISSION,
  document: `query Group($id: String!) { group(id: $id) { ${GROUP_SELECTION} members { memberId quota } } }`,
  variables: ({ params }) => ({ id: params.id }),
  result: ({ group: g }, { params }) =>
    g
      ? { status: 200, body: { ...groupBody(g), quotaType: g.quotaType, members: g.members } }
      : notFound(`group ${params.id} not found`, 5),
});

/**
 * GET /sqs/api/groups?ownerId=|memberId=[&page=]: HAL, `_embedded.groups` 100 per page (from 0),
 * `_links` self/next/prev, `page {size, totalElements, totalPages, number}`.
 */
const listGroups = defineRoute<{
  groups: { nodes: GroupData[]; page: number; size: number; totalElements: number };
}>({
  ...sqs,
  method: 'GET',
  path: '/sqs/api/groups',
  permissionHeader: Permission.SQS_GROUP_READ_PERMISSION,
  document: `query Groups($ownerId: String, $memberId: String, $page: Int!) {
    groups(ownerId: $ownerId, memberId: $memberId, page: $page) { nodes { ${GROUP_SELECTION} } page size totalElements }
  }`,
  variables: ({ query }) => ({
    ownerId: optionalQueryString(query, 'ownerId'),
    memberId: optionalQueryString(query, 'memberId'),
    page: pageOf(query),
  }),
  result: ({ groups: g }, { query, baseUrl }) => ({
    status: 200,
    body: halPage(
      { baseUrl, path: '/sqs/api/groups', query, filters: ['ownerId', 'memberId'] },
      g,
      'groups',
      g.nodes.map((x) => ({ ...groupBody(x), _links: { self: { href: groupHref(baseUrl, x.id) } } })),
    ),
  }),
});

/** DELETE /sqs/api/groups/<id>: 204; cancels the group's recurring donation; 404/5. */
const deleteGroup = defineRoute<{ deleteGroup: boolean }>({
  ...sqs,
  method: 'DELETE',
  path: '/sqs/api/groups/:id',
  permissionHeader: Permission.SQS_GROUP_DELETE_PERMISSION,
  document: 'mutation DeleteGroup($id: String!) { deleteGroup(id: $id) }',
  variables: ({ params }) => ({ id: params.id }),
  result: () => ({ status: 204, body: null }),
});

/** POST /sqs/api/groups/<id>/members: 201 `{groupId, memberId, quota}`; 409, 422 (3, 4, 6, 12), 404/5. */
const addMember = defineRoute<{ addGroupMember: { memberId: string; quota: number } }>({
  ...sqs,
  method: 'POST',
  path: '/sqs/api/groups/:id/members',
  permissionHeader: Permission.SQS_GROUP_CREATE_UPDATE_PERMISSION,
  idempotent: true,
  document: `mutation AddGroupMember($groupId: String!, $input: GroupMemberInput!, $idempotencyKey: String) {
    addGroupMember(groupId: $groupId, input: $input, idempotencyKey: $idempotencyKey) { memberId quota }
  }`,
  variables: ({ params, body }) => ({ groupId: params.id, input: memberInputOf(body) }),
  result: ({ addGroupMember: m }, { params }) => ({
    status: 201,
    body: { groupId: params.id, memberId: m.memberId, quota: m.quota },
  }),
});

/** DELETE /sqs/api/groups/<id>/members/<memberId>: 204; group 404/5, not a member 404/14. */
const removeMember = defineRoute<{ removeGroupMember: boolean }>({
  ...sqs,
  method: 'DELETE',
  path: '/sqs/api/groups/:id/members/:memberId',
  permissionHeader: Permission.SQS_GROUP_DELETE_PERMISSION,
  document:
    'mutation RemoveGroupMember($groupId: String!, $memberId: String!) { removeGroupMember(groupId: $groupId, memberId: $memberId) }',
  variables: ({ params }) => ({ groupId: params.id, memberId: params.memberId }),
  result: () => ({ status: 204, body: null }),
});

/**
 * POST /sqs/api/recurringDonations `{donorId, donorPlanId, quotaType, recipients[] | groupId}` or
 * the published `{donorPlanId, groupId}` (the donor is the group owner): 201 with the recurring
 * donation; 404 (7, 8, 5), 409/11, 422 (9, 13, 16).
 */
const createRecurring = defineRoute<{ createRecurringDonation: RecurringData }>({
  ...sqs,
  method: 'POST',
  path: '/sqs/api/recurringDonations',
  permissionHeader: Permission.SQS_RECURRING_DONATION_CREATE_UPDATE_PERMISSION,
  idempotent: true,
  document: `mutation CreateRecurringDonation($input: RecurringDonationInput!, $idempotencyKey: String) {
    createRecurringDonation(input: $input, idempotencyKey: $idempotencyKey) { ${RECURRING_SELECTION} }
  }`,
  variables: ({ body }) => ({ input: donationInputOf(body, 'invalid recurring donation') }),
  result: ({ createRecurringDonation: r }, { baseUrl }) => ({ status: 201, body: recurringBody(r, baseUrl) }),
});

/** GET /sqs/api/recurringDonations/<id>: 200, or 404 with errorCode 1. */
const getRecurring = defineRoute<{ recurringDonation: RecurringData | null }>({
  ...sqs,
  method: 'GET',
  path: '/sqs/api/recurringDonations/:id',
  permissionHeader: Permission.SQS_RECURRING_DONATION_READ_PERMISSION,
  document: `query RecurringDonation($id: String!) { recurringDonation(id: $id) { ${RECURRING_SELECTION} } }`,
  variables: ({ params }) => ({ id: params.id }),
  result: ({ recurringDonation: r }, { params, baseUrl }) =>
    r
      ? { status: 200, body: recurringBody(r, baseUrl) }
      : notFound(`recurring donation ${params.id} not found`, 1),
});

/** DELETE /sqs/api/recurringDonations/<id>: 204, or 404 with errorCode 1. */
const deleteRecurring = defineRoute<{ deleteRecurringDonation: boolean }>({
  ...sqs,
  method: 'DELETE',
  path: '/sqs/api/recurringDonations/:id',
  permissionHeader: Permission.SQS_RECURRING_DONATION_DELETE_PERMISSION,
  document: 'mutation DeleteRecurringDonation($id: String!) { deleteRecurringDonation(id: $id) }',
  variables: ({ params }) => ({ id: params.id }),
  result: () => ({ status: 204, body: null }),
});

/** The quota-sharing rows (CONTRACT §5). */
export const SQS_ROUTES = [
  donate,
  createGroup,
  getGroup,
  listGroups,
  deleteGroup,
  addMember,
  removeMember,
  createRecurring,
  getRecurring,
  deleteRecurring,
  ...SQS_GROUP_ROUTES,
  ...SQS_RECURRING_ROUTES,
] as ReadonlyArray<RestRoute<never>>;
