import { Permission } from '../auth/permissions';
import { MEMBER_PAGE_SIZE } from '../modules/sharing/group-member.service';
import { RestRoute, defineRoute } from './route';
import {
  bulkMemberVariablesOf,
  bulkMsisdnVariablesOf,
  groupUpdateVariablesOf,
  memberIdParamOf,
  memberVariablesOf,
} from './sqs-input';
import * as S from './sqs.schemas';
import {
  GROUP_SELECTION,
  GroupData,
  ID_PARAM,
  VALIDATION,
  groupBody,
  notFound,
  pageObject,
  pageOf,
  sqs,
  sqsDoc,
} from './sqs.shared';

/**
 * The group rows of the source product's wider SQS API (CONTRACT §5; paths, bodies and codes are
 * binding). Each maps the legacy JSON body onto the typed GraphQL input of its operation
 * (`sqs-input.ts`: a field of the wrong JSON type is 400, CONTRACT §1); presence, ranges, MSISDNs
 * and the business rules are the service's (412/404/409/422, CONTRACT §5).
 */

type Member = { memberId: string; quota: number };

/**
 * PUT /sqs/api/groups/<id> `{id, ownerId, name}` (all required): 200 `{created, updated, id,
 * ownerId, name}` with `updated` advanced; 412 on `id` (not the path's) or `ownerId` (not the
 * owner: it cannot change); 409/2 the owner's other group with that name; 404/5.
 */
const updateGroup = defineRoute<{ updateGroup: { group: GroupData } }>({
  ...sqs,
  method: 'PUT',
  path: '/sqs/api/groups/:id',
  doc: sqsDoc('SQS_GROUP_CREATE_UPDATE_PERMISSION', {
    operationId: 'updateGroup',
    summary: 'Rename a group (the owner cannot change)',
    params: ID_PARAM,
    request: {
      schema: S.GROUP_UPDATE_REQUEST,
      example: { id: S.GROUP_EXAMPLE.id, ownerId: '353871234567', name: 'family and friends' },
    },
    responses: {
      200: {
        description: 'updated; `updated` advanced',
        schema: S.GROUP_UPDATED,
        example: { ...S.GROUP_EXAMPLE, name: 'family and friends' },
      },
      404: { description: 'group not found (5)' },
      409: { description: "the owner's other group has that name (2)" },
      412: {
        description: "a field is missing, `id` is not the path's, or `ownerId` is not the group's owner",
      },
    },
  }),
  permissionHeader: Permission.SQS_GROUP_CREATE_UPDATE_PERMISSION,
  idempotent: true,
  document: `mutation UpdateGroup($id: ID!, $input: GroupUpdateInput!, $idempotencyKey: String) {
    updateGroup(id: $id, input: $input, idempotencyKey: $idempotencyKey) { group { ${GROUP_SELECTION} } }
  }`,
  variables: ({ params, body }) => ({ id: params.id, input: groupUpdateVariablesOf(body) }),
  result: ({ updateGroup: { group: g } }) => {
    const { created, updated, id, ownerId, name } = groupBody(g);
    return { status: 200, body: { created, updated, id, ownerId, name } };
  },
});

/**
 * GET /sqs/api/groups/<id>/members[?page=]: 200 `{_embedded: {members: [{memberId, quota}]},
 * page: {size: 100, totalElements, totalPages, number}}`, members in joining order; 404/5.
 */
const listMembers = defineRoute<{
  group: { memberCount: number; members: { edges: { node: Member }[] } } | null;
}>({
  ...sqs,
  method: 'GET',
  path: '/sqs/api/groups/:id/members',
  doc: sqsDoc('SQS_GROUP_READ_PERMISSION', {
    operationId: 'listGroupMembers',
    summary: "A group's members in joining order (100 a page)",
    params: ID_PARAM,
    query: {
      page: {
        description: 'page number from 0, 100 members a page',
        schema: { type: 'integer', minimum: 0 },
      },
    },
    responses: {
      200: {
        description: 'one page',
        schema: S.MEMBER_PAGE,
        example: {
          _embedded: { members: [{ memberId: '353879876543', quota: 2500000 }] },
          page: { size: 100, totalElements: 1, totalPages: 1, number: 0 },
        },
      },
      404: { description: 'group not found (5)' },
      412: { description: '`page` is not an integer from 0' },
    },
  }),
  permissionHeader: Permission.SQS_GROUP_READ_PERMISSION,
  document: `query GroupMembers($id: ID!, $page: Int!) {
    group(id: $id) { memberCount members(page: $page) { edges { node { memberId quota } } } }
  }`,
  variables: ({ params, query }) => ({ id: params.id, page: pageOf(query) }),
  result: ({ group: g }, { params, query }) =>
    g
      ? {
          status: 200,
          body: {
            _embedded: { members: g.members.edges.map((e) => e.node) },
            page: pageObject({ page: pageOf(query), size: MEMBER_PAGE_SIZE, totalElements: g.memberCount }),
          },
        }
      : notFound(`group ${params.id} not found`, 5),
});

/**
 * PUT /sqs/api/groups/<id>/members/<memberId> `{memberId, quota}`: adds the member or sets its
 * quota; 201 `{memberId, quota}`; `memberId` not the path's 412; the rules of POST members (3,
 * 4, 6, 12, 14; 404/5).
 */
const upsertMember = defineRoute<{ upsertGroupMember: { groupMember: Member } }>({
  ...sqs,
  method: 'PUT',
  path: '/sqs/api/groups/:id/members/:memberId',
  doc: sqsDoc('SQS_GROUP_CREATE_UPDATE_PERMISSION', {
    operationId: 'upsertGroupMember',
    summary: 'Add a member or set its quota',
    params: { ...ID_PARAM, memberId: 'member MSISDN' },
    request: { schema: S.MEMBER_REQUEST, example: { memberId: '353879876543', quota: 2500000 } },
    responses: {
      201: {
        description: 'added or updated',
        schema: S.MEMBER_QUOTA,
        example: { memberId: '353879876543', quota: 2500000 },
      },
      404: { description: 'group not found (5)' },
      412: { description: "a field fails validation, or `memberId` is not the path's" },
      422: {
        description:
          'the owner as member (3), share quotas over 10000000 (4), more than MAX_GROUP_SIZE members (6), not a subscriber (12), not active (14)',
      },
    },
  }),
  permissionHeader: Permission.SQS_GROUP_CREATE_UPDATE_PERMISSION,
  idempotent: true,
  document: `mutation UpsertGroupMember($groupId: ID!, $memberId: MSISDN!, $input: GroupMemberInput!, $idempotencyKey: String) {
    upsertGroupMember(groupId: $groupId, memberId: $memberId, input: $input, idempotencyKey: $idempotencyKey) {
      groupMember { memberId quota }
    }
  }`,
  variables: ({ params, body }) => {
    // The body first, then the path's memberId: the order the service checked them in.
    const input = memberVariablesOf(body);
    return { groupId: params.id, memberId: memberIdParamOf(params.memberId), input };
  },
  result: ({ upsertGroupMember: { groupMember: m } }) => ({
    status: 201,
    body: { memberId: m.memberId, quota: m.quota },
  }),
});

/**
 * PUT /sqs/api/groups/<id>/members/_bulk/add `{members: [{memberId, quota}]}` (1-100, no
 * memberId twice): all added or updated, or nothing changes and the first failing entry's status
 * and body answer (412 fields `members[i].…`); limits (6, 4) judged on the group after the
 * whole request; 200 `{members: [...]}` in request order.
 */
const bulkAdd = defineRoute<{ addGroupMembers: { groupMembers: Member[] } }>({
  ...sqs,
  method: 'PUT',
  path: '/sqs/api/groups/:id/members/_bulk/add',
  doc: sqsDoc('SQS_GROUP_CREATE_UPDATE_PERMISSION', {
    operationId: 'addGroupMembers',
    summary: 'Add or update up to 100 members at once, atomically',
    description:
      "All entries are added or updated, or nothing changes and the first failing entry's status and body answer (412 fields name `members[i]`); the size and share limits are judged on the group as it would be after the whole request.",
    params: ID_PARAM,
    request: {
      schema: S.BULK_ADD_REQUEST,
      example: { members: [{ memberId: '353879876543', quota: 2500000 }] },
    },
    responses: {
      200: {
        description: 'every entry added or updated, in request order',
        schema: S.BULK_ADD_RESULT,
        example: { members: [{ memberId: '353879876543', quota: 2500000 }] },
      },
      404: { description: 'group not found (5)' },
      412: VALIDATION,
      422: {
        description:
          'an entry is the owner (3), not a subscriber (12) or not active (14); share quotas over 10000000 (4); more than MAX_GROUP_SIZE members (6)',
      },
    },
  }),
  permissionHeader: Permission.SQS_GROUP_CREATE_UPDATE_PERMISSION,
  idempotent: true,
  document: `mutation AddGroupMembers($groupId: ID!, $members: [GroupMemberInput!]!, $idempotencyKey: String) {
    addGroupMembers(groupId: $groupId, members: $members, idempotencyKey: $idempotencyKey) {
      groupMembers { memberId quota }
    }
  }`,
  variables: ({ params, body }) => ({ groupId: params.id, members: bulkMemberVariablesOf(body) }),
  result: ({ addGroupMembers: { groupMembers: ms } }) => ({
    status: 200,
    body: { members: ms.map((m) => ({ memberId: m.memberId, quota: m.quota })) },
  }),
});

/**
 * PUT /sqs/api/groups/<id>/members/_bulk/delete `{members: ["<msisdn>", ...]}` (1-100): removes
 * those that are members, all at once; others are ignored; 204; 404/5.
 */
const bulkDelete = defineRoute<{ removeGroupMembers: { deletedGroupMemberIds: string[] } }>({
  ...sqs,
  method: 'PUT',
  path: '/sqs/api/groups/:id/members/_bulk/delete',
  doc: sqsDoc('SQS_GROUP_DELETE_PERMISSION', {
    operationId: 'removeGroupMembers',
    summary: 'Remove up to 100 members at once, atomically (non-members are ignored)',
    params: ID_PARAM,
    request: { schema: S.BULK_DELETE_REQUEST, example: { members: ['353879876543'] } },
    responses: {
      204: { description: 'removed' },
      404: { description: 'group not found (5)' },
      412: VALIDATION,
    },
  }),
  permissionHeader: Permission.SQS_GROUP_DELETE_PERMISSION,
  idempotent: true,
  document: `mutation RemoveGroupMembers($groupId: ID!, $memberIds: [MSISDN!]!, $idempotencyKey: String) {
    removeGroupMembers(groupId: $groupId, memberIds: $memberIds, idempotencyKey: $idempotencyKey) {
      deletedGroupMemberIds
    }
  }`,
  variables: ({ params, body }) => ({ groupId: params.id, memberIds: bulkMsisdnVariablesOf(body) }),
  result: () => ({ status: 204, body: null }),
});

/** The group rows of the wider SQS API. */
export const SQS_GROUP_ROUTES = [
  updateGroup,
  listMembers,
  upsertMember,
  bulkAdd,
  bulkDelete,
] as ReadonlyArray<RestRoute<never>>;
