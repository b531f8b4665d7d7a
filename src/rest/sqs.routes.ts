import { Permission } from '../auth/permissions';
import { requireMsisdn } from '../lib/msisdn';
import { invalidField } from '../errors';
import { GROUP_PAGE_SIZE } from '../modules/sharing/group.service';

import { RestRoute, defineRoute, optionalQueryString } from './route';
import * as S from './sqs.schemas';
import { SQS_GROUP_ROUTES } from './sqs-groups.routes';
import { donationVariablesOf, groupVariablesOf, memberIdParamOf, memberVariablesOf } from './sqs-input';
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
  sqsDoc,
  ID_PARAM,
  VALIDATION,
} from './sqs.shared';

/**
 * Quota-sharing rows (CONTRACT §5). Every row needs the `tenant` header,
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
 * POST /sqs/api/donations (CONTRACT §5): 200, or 207 when any recipient failed. Explicit form
 * `{id, errorCode, recipients[all]}`; group form `{errorCode, recipients[succeeded]}`.
 */
const donate = defineRoute<{ shareQuota: { donation: DonationData } }>({
  ...sqs,
  method: 'POST',
  path: '/sqs/api/donations',
  doc: sqsDoc('SQS_DONATION_PERMISSION', {
    operationId: 'shareQuota',
    summary: 'Donate quota to recipients, or to the members of a group',
    description:
      "The body is told apart by its fields: `recipients` (explicit form, the response lists every recipient) or `groupId` (the group owner donates each member's quota; the response lists only the recipients that succeeded). The donor's `remaining` never goes below zero.",
    request: { schema: S.DONATION_REQUEST, example: S.DONATION_EXAMPLE },
    responses: {
      200: {
        description: 'every recipient received its quota',
        schema: S.DONATION_RESULT,
        example: {
          id: 'ZG9uYXRpb24taWQtZXhh',
          errorCode: 0,
          recipients: [{ recipientId: '353879876543', errorCode: 0 }],
        },
      },
      207: {
        description: 'at least one recipient failed (its errorCode says why)',
        schema: S.DONATION_RESULT,
        example: {
          id: 'ZG9uYXRpb24taWQtZXhh',
          errorCode: 15,
          recipients: [{ recipientId: '353879876543', errorCode: 15 }],
        },
      },
      404: { description: "donor (7), plan or plan not the donor's (8), or group (5) not found" },
      412: VALIDATION,
      422: {
        description:
          'plan not shareable (16), too many recipients in the period (13), the single recipient holds MAX_PLANS_PER_SUBSCRIBER plans (1)',
      },
    },
  }),
  permissionHeader: Permission.SQS_DONATION_PERMISSION,
  idempotent: true,
  document: `mutation ShareQuota($input: DonationInput!, $idempotencyKey: String) {
    shareQuota(input: $input, idempotencyKey: $idempotencyKey) {
      donation { id errorCode groupId recipients { recipientId errorCode } }
    }
  }`,
  variables: ({ body }) => ({ input: donationVariablesOf(body, false) }),
  // Under a REST row a refusal is an error (legacy status and body), so a result has the donation.
  result: ({ shareQuota: { donation: d } }) => {
    const status = d.recipients.some((r) => r.errorCode !== 0) ? 207 : 200;
    const recipients = d.recipients.map((r) => ({ recipientId: r.recipientId, errorCode: r.errorCode }));
    return d.groupId !== null
      ? { status, body: { errorCode: d.errorCode, recipients: recipients.filter((r) => r.errorCode === 0) } }
      : { status, body: { id: d.id, errorCode: d.errorCode, recipients } };
  },
});

/** POST /sqs/api/groups: 201 `{id, ownerId, name, created, updated}`; owner+name taken 409/2. */
const createGroup = defineRoute<{ createGroup: { group: GroupData } }>({
  ...sqs,
  method: 'POST',
  path: '/sqs/api/groups',
  doc: sqsDoc('SQS_GROUP_CREATE_UPDATE_PERMISSION', {
    operationId: 'createGroup',
    summary: 'Create a group',
    request: { schema: S.GROUP_REQUEST, example: { ownerId: '353871234567', name: 'family' } },
    responses: {
      201: { description: 'created', schema: S.GROUP, example: S.GROUP_EXAMPLE },
      409: { description: 'the owner has a group of that name (2)' },
      412: VALIDATION,
      422: { description: 'the owner is not an active subscriber (14)' },
    },
  }),
  permissionHeader: Permission.SQS_GROUP_CREATE_UPDATE_PERMISSION,
  idempotent: true,
  document: `mutation CreateGroup($input: GroupInput!, $idempotencyKey: String) {
    createGroup(input: $input, idempotencyKey: $idempotencyKey) { group { ${GROUP_SELECTION} } }
  }`,
  variables: ({ body }) => ({ input: groupVariablesOf(body) }),
  result: ({ createGroup: { group } }) => ({ status: 201, body: groupBody(group) }),
});

/** GET /sqs/api/groups/<id>: the group with `quotaType` and `members[{memberId, quota}]`; 404/5. */
const getGroup = defineRoute<{
  group: (GroupData & { members: { edges: { node: { memberId: string; quota: number } }[] } }) | null;
}>({
  ...sqs,
  method: 'GET',
  path: '/sqs/api/groups/:id',
  doc: sqsDoc('SQS_GROUP_READ_PERMISSION', {
    operationId: 'getGroup',
    summary: 'A group with its members',
    params: ID_PARAM,
    responses: {
      200: {
        description: 'the group',
        schema: S.GROUP_WITH_MEMBERS,
        example: {
          ...S.GROUP_EXAMPLE,
          quotaType: 'share',
          members: [{ memberId: '353879876543', quota: 2500000 }],
        },
      },
      404: { description: 'group not found (5)' },
    },
  }),
  permissionHeader: Permission.SQS_GROUP_READ_PERMISSION,
  document: `query Group($id: ID!) {
    group(id: $id) { ${GROUP_SELECTION} members { edges { node { memberId quota } } } }
  }`,
  variables: ({ params }) => ({ id: params.id }),
  result: ({ group: g }, { params }) =>
    g
      ? {
          status: 200,
          body: {
            ...groupBody(g),
            quotaType: g.quotaType.toLowerCase(),
            members: g.members.edges.map((e) => e.node),
          },
        }
      : notFound(`group ${params.id} not found`, 5),
});

/**
 * GET /sqs/api/groups?ownerId=|memberId=[&page=]: HAL, `_embedded.groups` 100 per page (from 0),
 * `_links` self/next/prev, `page {size, totalElements, totalPages, number}`.
 */
const listGroups = defineRoute<{
  groups: { totalCount: number; edges: { node: GroupData }[] };
}>({
  ...sqs,
  method: 'GET',
  path: '/sqs/api/groups',
  doc: sqsDoc('SQS_GROUP_READ_PERMISSION', {
    operationId: 'listGroups',
    summary: 'The groups an owner owns or a member belongs to (HAL page)',
    query: {
      ownerId: { description: 'groups this MSISDN owns', schema: { type: 'string' } },
      memberId: { description: 'groups this MSISDN belongs to', schema: { type: 'string' } },
      page: { description: 'page number from 0, 100 groups a page', schema: { type: 'integer', minimum: 0 } },
    },
    responses: {
      200: { description: 'one page', schema: S.GROUP_PAGE },
      412: { description: '`page` is not an integer from 0' },
    },
  }),
  permissionHeader: Permission.SQS_GROUP_READ_PERMISSION,
  document: `query Groups($ownerId: MSISDN, $memberId: MSISDN, $page: Int!) {
    groups(ownerId: $ownerId, memberId: $memberId, page: $page) { totalCount edges { node { ${GROUP_SELECTION} } } }
  }`,
  variables: ({ query }) => {
    const ownerId = optionalQueryString(query, 'ownerId');
    const memberId = optionalQueryString(query, 'memberId');
    const page = pageOf(query);
    if (ownerId === null && memberId === null) throw invalidField('ownerId', 'give ownerId or memberId');
    return {
      ownerId: ownerId === null ? null : requireMsisdn(ownerId, 'ownerId'),
      memberId: memberId === null ? null : requireMsisdn(memberId, 'memberId'),
      page,
    };
  },
  result: ({ groups: g }, { query, baseUrl }) => ({
    status: 200,
    body: halPage(
      { baseUrl, path: '/sqs/api/groups', query, filters: ['ownerId', 'memberId'] },
      { page: pageOf(query), size: GROUP_PAGE_SIZE, totalElements: g.totalCount },
      'groups',
      g.edges.map(({ node: x }) => ({
        ...groupBody(x),
        _links: { self: { href: groupHref(baseUrl, x.id) } },
      })),
    ),
  }),
});

/** DELETE /sqs/api/groups/<id>: 204; cancels the group's recurring donation; 404/5. */
const deleteGroup = defineRoute<{ deleteGroup: { deletedGroupId: string } }>({
  ...sqs,
  method: 'DELETE',
  path: '/sqs/api/groups/:id',
  doc: sqsDoc('SQS_GROUP_DELETE_PERMISSION', {
    operationId: 'deleteGroup',
    summary: 'Delete a group (its recurring donation is cancelled; shared quota stays)',
    params: ID_PARAM,
    responses: { 204: { description: 'deleted' }, 404: { description: 'group not found (5)' } },
  }),
  permissionHeader: Permission.SQS_GROUP_DELETE_PERMISSION,
  document: 'mutation DeleteGroup($id: ID!) { deleteGroup(id: $id) { deletedGroupId } }',
  variables: ({ params }) => ({ id: params.id }),
  result: () => ({ status: 204, body: null }),
});

/** POST /sqs/api/groups/<id>/members: 201 `{groupId, memberId, quota}`; 409, 422 (3, 4, 6, 12), 404/5. */
const addMember = defineRoute<{ addGroupMember: { groupMember: { memberId: string; quota: number } } }>({
  ...sqs,
  method: 'POST',
  path: '/sqs/api/groups/:id/members',
  doc: sqsDoc('SQS_GROUP_CREATE_UPDATE_PERMISSION', {
    operationId: 'addGroupMember',
    summary: 'Add a member with its quota',
    params: ID_PARAM,
    request: { schema: S.MEMBER_REQUEST, example: { memberId: '353879876543', quota: 2500000 } },
    responses: {
      201: {
        description: 'added',
        schema: S.MEMBER,
        example: { groupId: S.GROUP_EXAMPLE.id, memberId: '353879876543', quota: 2500000 },
      },
      404: { description: 'group not found (5)' },
      409: { description: 'already a member (1)' },
      412: VALIDATION,
      422: {
        description:
          'the owner as member (3), share quotas over 10000000 (4), more than MAX_GROUP_SIZE members (6), not a subscriber (12), not active (14)',
      },
    },
  }),
  permissionHeader: Permission.SQS_GROUP_CREATE_UPDATE_PERMISSION,
  idempotent: true,
  document: `mutation AddGroupMember($groupId: ID!, $input: GroupMemberInput!, $idempotencyKey: String) {
    addGroupMember(groupId: $groupId, input: $input, idempotencyKey: $idempotencyKey) { groupMember { memberId quota } }
  }`,
  variables: ({ params, body }) => ({ groupId: params.id, input: memberVariablesOf(body) }),
  result: ({ addGroupMember: { groupMember: m } }, { params }) => ({
    status: 201,
    body: { groupId: params.id, memberId: m.memberId, quota: m.quota },
  }),
});

/** DELETE /sqs/api/groups/<id>/members/<memberId>: 204; group 404/5, not a member 404/14. */
const removeMember = defineRoute<{ removeGroupMember: { deletedGroupMemberId: string } }>({
  ...sqs,
  method: 'DELETE',
  path: '/sqs/api/groups/:id/members/:memberId',
  doc: sqsDoc('SQS_GROUP_DELETE_PERMISSION', {
    operationId: 'removeGroupMember',
    summary: 'Remove a member',
    params: { ...ID_PARAM, memberId: 'member MSISDN' },
    responses: {
      204: { description: 'removed' },
      404: { description: 'group not found (5), not a member (14)' },
      412: { description: '`memberId` is not an MSISDN' },
    },
  }),
  permissionHeader: Permission.SQS_GROUP_DELETE_PERMISSION,
  document:
    'mutation RemoveGroupMember($groupId: ID!, $memberId: MSISDN!) { removeGroupMember(groupId: $groupId, memberId: $memberId) { deletedGroupMemberId } }',
  variables: ({ params }) => ({ groupId: params.id, memberId: memberIdParamOf(params.memberId) }),
  result: () => ({ status: 204, body: null }),
});

/**
 * POST /sqs/api/recurringDonations `{donorId, donorPlanId, quotaType, recipients[] | groupId}` or
 * the published `{donorPlanId, groupId}` (the donor is the group owner): 201 with the recurring
 * donation; 404 (7, 8, 5), 409/11, 422 (9, 13, 16).
 */
const createRecurring = defineRoute<{ createRecurringDonation: { recurringDonation: RecurringData } }>({
  ...sqs,
  method: 'POST',
  path: '/sqs/api/recurringDonations',
  doc: sqsDoc('SQS_RECURRING_DONATION_CREATE_UPDATE_PERMISSION', {
    operationId: 'createRecurringDonation',
    summary: "Create a plan's recurring donation, executed at each renewal",
    request: {
      schema: S.RECURRING_REQUEST,
      example: { ...S.DONATION_EXAMPLE },
    },
    responses: {
      201: { description: 'created', schema: S.RECURRING_DONATION, example: S.RECURRING_EXAMPLE },
      404: { description: 'donor (7), plan (8) or group (5) not found' },
      409: { description: 'the plan has a recurring donation (11)' },
      412: VALIDATION,
      422: { description: 'plan not recurring (9), too many recipients (13), not shareable (16)' },
    },
  }),
  permissionHeader: Permission.SQS_RECURRING_DONATION_CREATE_UPDATE_PERMISSION,
  idempotent: true,
  document: `mutation CreateRecurringDonation($input: RecurringDonationInput!, $idempotencyKey: String) {
    createRecurringDonation(input: $input, idempotencyKey: $idempotencyKey) {
      recurringDonation { ${RECURRING_SELECTION} }
    }
  }`,
  variables: ({ body }) => ({ input: donationVariablesOf(body, true) }),
  result: ({ createRecurringDonation: { recurringDonation: r } }, { baseUrl }) => ({
    status: 201,
    body: recurringBody(r, baseUrl),
  }),
});

/** GET /sqs/api/recurringDonations/<id>: 200, or 404 with errorCode 1. */
const getRecurring = defineRoute<{ recurringDonation: RecurringData | null }>({
  ...sqs,
  method: 'GET',
  path: '/sqs/api/recurringDonations/:id',
  doc: sqsDoc('SQS_RECURRING_DONATION_READ_PERMISSION', {
    operationId: 'getRecurringDonation',
    summary: 'A recurring donation',
    params: { id: 'recurring donation id' },
    responses: {
      200: {
        description: 'the recurring donation',
        schema: S.RECURRING_DONATION,
        example: S.RECURRING_EXAMPLE,
      },
      404: { description: 'not found (1)' },
    },
  }),
  permissionHeader: Permission.SQS_RECURRING_DONATION_READ_PERMISSION,
  document: `query RecurringDonation($id: ID!) { recurringDonation(id: $id) { ${RECURRING_SELECTION} } }`,
  variables: ({ params }) => ({ id: params.id }),
  result: ({ recurringDonation: r }, { params, baseUrl }) =>
    r
      ? { status: 200, body: recurringBody(r, baseUrl) }
      : notFound(`recurring donation ${params.id} not found`, 1),
});

/** DELETE /sqs/api/recurringDonations/<id>: 204, or 404 with errorCode 1. */
const deleteRecurring = defineRoute<{ deleteRecurringDonation: { deletedRecurringDonationId: string } }>({
  ...sqs,
  method: 'DELETE',
  path: '/sqs/api/recurringDonations/:id',
  doc: sqsDoc('SQS_RECURRING_DONATION_DELETE_PERMISSION', {
    operationId: 'deleteRecurringDonation',
    summary: 'Cancel a recurring donation',
    params: { id: 'recurring donation id' },
    responses: { 204: { description: 'cancelled' }, 404: { description: 'not found (1)' } },
  }),
  permissionHeader: Permission.SQS_RECURRING_DONATION_DELETE_PERMISSION,
  document:
    'mutation DeleteRecurringDonation($id: ID!) { deleteRecurringDonation(id: $id) { deletedRecurringDonationId } }',
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
