import { Directive, Field, ID, InputType, Int, ObjectType, registerEnumType } from 'type-graphql';
import { DomainError } from '../../errors';
import { NodeInterface, globalId } from '../../graphql/node';
import { UserError, userErrorType } from '../../graphql/payload';
import { Connection, PageInfoType, connectionTypes, cursorCodec, integerCursor } from '../../graphql/relay';
import { DateTimeScalar, MsisdnScalar, SafeIntScalar } from '../../graphql/scalars';
import { SqsCode } from './error-codes';
import { QuotaType } from './sharing.enums';
import { GroupRow, MemberRow } from './sharing.rows';

/**
 * GraphQL types of groups and group members (CONTRACT §5; docs/graphql.md): both are entities
 * (`Node`); a group's global id is its 20-character service id, a member's a typed id of the
 * group id and its MSISDN.
 */

const iso = (ms: number) => new Date(ms).toISOString();

/** A group member. */
@ObjectType('GroupMember', {
  implements: NodeInterface,
  description: 'A group member and the quota it receives in a group donation.',
})
export class GroupMemberType {
  @Field(() => ID, { description: 'Opaque global id (pass it to `node(id:)`).' })
  id!: string;
  @Field(() => ID, { description: 'The group (its id).' })
  groupId!: string;
  @Field(() => MsisdnScalar, { description: "The member's MSISDN." })
  memberId!: string;
  @Field(() => SafeIntScalar, {
    description:
      "Quota in the group's quota type: `SHARE` 0-10000000 (percent x 100000) or an `AMOUNT` in the donor plan's unit (bytes, seconds or minor currency units).",
  })
  quota!: number;
  @Field(() => DateTimeScalar, { description: 'When it joined.' })
  joined!: string;
  /** The member's row number (joining order): the key of its cursor in `Group.members`. */
  seq?: number;
}

/** GraphQL view of a group (members resolved in batches). */
@Directive('@key(fields: "id")')
@ObjectType('Group', { implements: NodeInterface, description: 'A sharing group owned by a donor.' })
export class GroupType {
  @Field(() => ID, {
    description:
      'The group id: 20 characters assigned by the service, the same in the REST paths; also its global id for `node(id:)`.',
  })
  id!: string;
  @Field(() => MsisdnScalar, { description: "The owner's MSISDN." })
  ownerId!: string;
  @Field(() => String, { description: 'Name, unique per owner.' })
  name!: string;
  @Field(() => QuotaType, { description: 'How member quotas are read (`SHARE` unless created otherwise).' })
  quotaType!: QuotaType;
  @Field(() => DateTimeScalar, { description: 'Created.' })
  created!: string;
  @Field(() => DateTimeScalar, { description: 'Last change (members included).' })
  updated!: string;
}

/** Row → GraphQL view of a group. */
export function groupView(g: GroupRow): GroupType {
  return {
    id: g.id,
    ownerId: g.ownerMsisdn,
    name: g.name,
    quotaType: (g.quotaType ?? 'share') as QuotaType,
    created: iso(g.createdAt),
    updated: iso(g.updatedAt),
  };
}

/** The global id of a group member: the group id and the member's MSISDN. */
export const memberGlobalId = (groupId: string, msisdn: string): string =>
  globalId('GroupMember', `${groupId}:${msisdn}`);

/** Row → GraphQL view of a member. */
export function memberView(m: MemberRow): GroupMemberType {
  return {
    id: memberGlobalId(m.groupId, m.memberMsisdn),
    groupId: m.groupId,
    memberId: m.memberMsisdn,
    quota: m.quota,
    joined: iso(m.createdAt),
    seq: m.seq,
  };
}

/** Cursors of `Group.members`: the member's row number (joining order). */
export const memberCursor = integerCursor('GroupMember');

/** The key of a group in `groups` order: creation time (epoch ms), then id. */
export interface GroupKey {
  createdAt: number;
  id: string;
}

/** Cursors of `groups`: `<created ms>.<id>`. */
export const groupCursor = cursorCodec<GroupKey>(
  'Group',
  (k) => `${k.createdAt}.${k.id}`,
  (text) => {
    const m = /^(\d{1,15})\.([A-Za-z0-9_-]{1,64})$/.exec(text);
    return m ? { createdAt: Number(m[1]), id: m[2] } : undefined;
  },
);

const GroupMemberPage = connectionTypes(GroupMemberType, 'GroupMember', {
  description: "A page of a group's members, in joining order.",
  totalCount: 'Members of the group, all pages (at most MAX_GROUP_SIZE).',
});
/** `GroupMemberConnection`. */
export const GroupMemberConnection = GroupMemberPage.Connection;

/** One group of a page, with its cursor. */
@ObjectType('GroupEdge', { description: 'One Group of a page, with its cursor.' })
export class GroupEdge {
  @Field(() => String, { description: 'Opaque cursor of this item; pass it as `after` or `before`.' })
  cursor!: string;
  @Field(() => GroupType, { description: 'The Group.' })
  node!: GroupType;
}

/**
 * `GroupConnection`: a Relay connection, with the fields of the former `GroupPage` kept one minor
 * release, deprecated.
 */
@ObjectType('GroupConnection', { description: 'A page of groups, oldest first.' })
export class GroupConnection {
  @Field(() => [GroupEdge], { description: 'The items of this page, in list order.' })
  edges!: GroupEdge[];
  @Field(() => PageInfoType, { description: 'Where this page stands in the whole list.' })
  pageInfo!: PageInfoType;
  @Field(() => Int, { description: 'Groups matching, all pages.' })
  totalCount!: number;
  @Field(() => [GroupType], {
    deprecationReason: 'use edges { node }',
    description: 'The groups of this page.',
  })
  nodes!: GroupType[];
  @Field(() => Int, {
    deprecationReason: 'use first/after and pageInfo',
    description: 'The `page` asked for (from 0); 0 when paging by cursor.',
  })
  page!: number;
  @Field(() => Int, {
    deprecationReason: 'use first/after and pageInfo',
    description: 'Page size: 100 with `page`, else the page size asked for.',
  })
  size!: number;
  @Field(() => Int, { deprecationReason: 'use totalCount', description: 'Groups matching, all pages.' })
  totalElements!: number;
}

/** A page of groups as `groups` resolves it. */
export type GroupConnectionValue = Connection<GroupType> & {
  totalCount: number;
  nodes: GroupType[];
  page: number;
  size: number;
  totalElements: number;
};

const MSISDN_DOC = 'MSISDN, an optional + then 5-15 digits';

/** `POST /sqs/api/groups`. */
@InputType('GroupInput', { description: 'A group to create.' })
export class GroupInputType {
  @Field(() => MsisdnScalar, { description: `Owner ${MSISDN_DOC}, a subscriber of your tenant.` })
  ownerId!: string;
  @Field(() => String, { description: "Name, 1-128 characters, not blank, unique among the owner's groups." })
  name!: string;
  @Field(() => QuotaType, {
    nullable: true,
    description:
      'How member quotas are read: `SHARE` (absent: member quotas are shares of 10000000) or `AMOUNT` (in the plan unit).',
  })
  quotaType?: QuotaType | null;
}

/** `PUT /sqs/api/groups/<id>` (CONTRACT §5). */
@InputType('GroupUpdateInput', {
  description: 'A group to rename (published PUT body): only the name changes.',
})
export class GroupUpdateInputType {
  @Field(() => ID, { description: 'The group id; must be the id the group is addressed by.' })
  id!: string;
  @Field(() => MsisdnScalar, {
    description: `Owner ${MSISDN_DOC}; must be the group's owner, which cannot change.`,
  })
  ownerId!: string;
  @Field(() => String, {
    description: "The new name, 1-128 characters, not blank, unique among the owner's groups.",
  })
  name!: string;
}

/** A member and its quota (`POST`/`PUT` members, bulk add). */
@InputType('GroupMemberInput', { description: 'A group member and its quota.' })
export class GroupMemberInputType {
  @Field(() => MsisdnScalar, { description: `Member ${MSISDN_DOC}, a subscriber other than the owner.` })
  memberId!: string;
  @Field(() => SafeIntScalar, {
    description:
      "Quota in the group's quota type: `SHARE` 0-10000000 (percent x 100000; all members together at most 10000000), or `AMOUNT` > 0 in the donor plan's unit (bytes, seconds or minor currency units).",
  })
  quota!: number;
}

/** What a group write was refused for (`GroupUserError.code`; legacy errorCodes in brackets). */
export enum GroupErrorCode {
  INVALID = 'INVALID',
  GROUP_NOT_FOUND = 'GROUP_NOT_FOUND',
  NAME_TAKEN = 'NAME_TAKEN',
  MEMBER_IS_OWNER = 'MEMBER_IS_OWNER',
  SHARE_OVER_TOTAL = 'SHARE_OVER_TOTAL',
  GROUP_FULL = 'GROUP_FULL',
  SUBSCRIBER_NOT_FOUND = 'SUBSCRIBER_NOT_FOUND',
  SUBSCRIBER_NOT_ACTIVE = 'SUBSCRIBER_NOT_ACTIVE',
  ALREADY_MEMBER = 'ALREADY_MEMBER',
  NOT_A_MEMBER = 'NOT_A_MEMBER',
  IDEMPOTENCY_KEY_REUSED = 'IDEMPOTENCY_KEY_REUSED',
  IDEMPOTENCY_KEY_IN_USE = 'IDEMPOTENCY_KEY_IN_USE',
}

registerEnumType(GroupErrorCode, {
  name: 'GroupErrorCode',
  description: 'Why a group or member write was refused (the legacy errorCode in brackets).',
  valuesConfig: {
    INVALID: {
      description:
        'An input field is out of range (a blank or long name, a quota outside its range, a memberId listed twice, an id or owner that does not match); `field` names it.',
    },
    GROUP_NOT_FOUND: { description: 'No group of your tenant has that id (5).' },
    NAME_TAKEN: { description: 'The owner already has a group with that name (2).' },
    MEMBER_IS_OWNER: { description: 'The group owner cannot be a member (3).' },
    SHARE_OVER_TOTAL: { description: "The members' share quotas would exceed 10000000 in total (4)." },
    GROUP_FULL: { description: 'The group would have more than MAX_GROUP_SIZE members (6).' },
    SUBSCRIBER_NOT_FOUND: {
      description: 'The member (12) or owner (14) is not a subscriber of your tenant.',
    },
    SUBSCRIBER_NOT_ACTIVE: { description: 'The member is not an active subscriber (14).' },
    ALREADY_MEMBER: { description: 'The subscriber is already a member of the group (1).' },
    NOT_A_MEMBER: { description: 'The subscriber is not a member of the group (14).' },
    IDEMPOTENCY_KEY_REUSED: {
      description: 'The idempotency key was used in the last 24 h for another operation or arguments (1).',
    },
    IDEMPOTENCY_KEY_IN_USE: {
      description: 'A request with this idempotency key is still running; retry later (1).',
    },
  },
});

/** `GroupUserError`: the user error of every group and member mutation. */
export const GroupUserError = userErrorType<GroupErrorCode>(
  'GroupUserError',
  GroupErrorCode,
  'Why a group or member write was refused.',
);

/** One `GroupUserError` value. */
export type GroupUserErrorValue = UserError<GroupErrorCode>;

/**
 * The {@link GroupErrorCode} of a refusal of the group services. `ownerWrite`: the refusal of
 * `createGroup`, where errorCode 14 is an unknown owner (elsewhere an inactive member).
 */
export function groupCodeOf(err: DomainError, ownerWrite = false): GroupErrorCode {
  const code = err.extensions.errorCode;
  switch (err.code) {
    case 'NOT_FOUND':
      return code === SqsCode.GROUP_NOT_FOUND ? GroupErrorCode.GROUP_NOT_FOUND : GroupErrorCode.NOT_A_MEMBER;
    case 'CONFLICT':
      if (code === SqsCode.GROUP_NOT_UNIQUE) return GroupErrorCode.NAME_TAKEN;
      return err.extensions.retryAfterSeconds !== undefined
        ? GroupErrorCode.IDEMPOTENCY_KEY_IN_USE
        : GroupErrorCode.ALREADY_MEMBER;
    case 'UNPROCESSABLE':
      switch (code) {
        case SqsCode.OWNER_AS_MEMBER:
          return GroupErrorCode.MEMBER_IS_OWNER;
        case SqsCode.GROUP_QUOTA_EXCEEDED:
          return GroupErrorCode.SHARE_OVER_TOTAL;
        case SqsCode.GROUP_SIZE_EXCEEDED:
          return GroupErrorCode.GROUP_FULL;
        case SqsCode.RECIPIENT_NOT_FOUND:
          return GroupErrorCode.SUBSCRIBER_NOT_FOUND;
        case SqsCode.SUBSCRIBER_NOT_FOUND:
          return ownerWrite ? GroupErrorCode.SUBSCRIBER_NOT_FOUND : GroupErrorCode.SUBSCRIBER_NOT_ACTIVE;
        default:
          return GroupErrorCode.IDEMPOTENCY_KEY_REUSED;
      }
    default:
      return GroupErrorCode.INVALID;
  }
}

const ERRORS = 'Why the write was refused; empty on success.';

/** `createGroup`'s payload. */
@ObjectType('CreateGroupPayload', { description: 'The group created, or why not.' })
export class CreateGroupPayload {
  @Field(() => GroupType, { nullable: true, description: 'The group; null when refused.' })
  group?: GroupType | null;
  @Field(() => [GroupUserError], { description: ERRORS })
  userErrors!: GroupUserErrorValue[];
}

/** `updateGroup`'s payload. */
@ObjectType('UpdateGroupPayload', { description: 'The group renamed, or why not.' })
export class UpdateGroupPayload {
  @Field(() => GroupType, { nullable: true, description: 'The group with its new name; null when refused.' })
  group?: GroupType | null;
  @Field(() => [GroupUserError], { description: ERRORS })
  userErrors!: GroupUserErrorValue[];
}

/** `deleteGroup`'s payload. */
@ObjectType('DeleteGroupPayload', { description: 'The id of the group deleted, or why not.' })
export class DeleteGroupPayload {
  @Field(() => ID, { nullable: true, description: 'The id of the deleted group; null when refused.' })
  deletedGroupId?: string | null;
  @Field(() => [GroupUserError], { description: ERRORS })
  userErrors!: GroupUserErrorValue[];
}

/** `addGroupMember`'s and `upsertGroupMember`'s payload. */
@ObjectType('GroupMemberPayload', { description: 'The member added or updated, or why not.' })
export class GroupMemberPayload {
  @Field(() => GroupMemberType, { nullable: true, description: 'The member as stored; null when refused.' })
  groupMember?: GroupMemberType | null;
  @Field(() => [GroupUserError], { description: ERRORS })
  userErrors!: GroupUserErrorValue[];
}

/** `addGroupMembers`' payload. */
@ObjectType('AddGroupMembersPayload', { description: 'The members added or updated, or why none was.' })
export class AddGroupMembersPayload {
  @Field(() => [GroupMemberType], {
    nullable: true,
    description: 'The members written, in request order; null when refused (then nothing changed).',
  })
  groupMembers?: GroupMemberType[] | null;
  @Field(() => [GroupUserError], { description: ERRORS })
  userErrors!: GroupUserErrorValue[];
}

/** `removeGroupMember`'s payload. */
@ObjectType('RemoveGroupMemberPayload', { description: 'The id of the member removed, or why not.' })
export class RemoveGroupMemberPayload {
  @Field(() => ID, { nullable: true, description: 'The id of the removed member; null when refused.' })
  deletedGroupMemberId?: string | null;
  @Field(() => [GroupUserError], { description: ERRORS })
  userErrors!: GroupUserErrorValue[];
}

/** `removeGroupMembers`' payload. */
@ObjectType('RemoveGroupMembersPayload', { description: 'The ids of the members removed, or why not.' })
export class RemoveGroupMembersPayload {
  @Field(() => [ID], {
    nullable: true,
    description: 'The ids of the members removed (those listed that were members); null when refused.',
  })
  deletedGroupMemberIds?: string[] | null;
  @Field(() => [GroupUserError], { description: ERRORS })
  userErrors!: GroupUserErrorValue[];
}
