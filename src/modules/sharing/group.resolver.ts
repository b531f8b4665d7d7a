import {
  Arg,
  Args,
  ArgsType,
  Authorized,
  Ctx,
  Field,
  FieldResolver,
  ID,
  Int,
  Mutation,
  Query,
  Resolver,
  Root,
} from 'type-graphql';
import { Permission } from '../../auth/permissions';
import { BadUserInputError } from '../../errors';
import { GatewayContext, callerOf } from '../../graphql/context';
import { registerNode } from '../../graphql/node';
import { mutationPayload } from '../../graphql/payload';
import {
  ConnectionArgs,
  Connection,
  PAGE_SIZE_MAX,
  connectionFromArray,
  connectionFromRows,
  pageRequest,
} from '../../graphql/relay';
import { MsisdnScalar } from '../../graphql/scalars';
import { MAX_BULK_MEMBERS, MEMBER_PAGE_SIZE, checkPage } from './group-member.service';
import { GROUP_PAGE_SIZE } from './group.service';
import {
  AddGroupMembersPayload,
  CreateGroupPayload,
  DeleteGroupPayload,
  GroupConnection,
  GroupConnectionValue,
  GroupInputType,
  GroupMemberConnection,
  GroupMemberInputType,
  GroupMemberPayload,
  GroupMemberType,
  GroupType,
  GroupUpdateInputType,
  RemoveGroupMemberPayload,
  RemoveGroupMembersPayload,
  UpdateGroupPayload,
  groupCodeOf,
  groupCursor,
  groupView,
  memberCursor,
  memberGlobalId,
  memberView,
} from './group.types';
import { GroupRow } from './sharing.rows';
import { idempotencyKeyArg, loaders, nullIfNotFound } from './sharing.views';

/** How a typed group input's out-of-range fields are answered, for argument descriptions. */
const INPUT_DOC =
  "A malformed MSISDN or quota is refused before anything runs (BAD_USER_INPUT); a field out of range (a blank name, a quota outside the group's range) is a `userErrors` entry INVALID naming it.";

/** The error type of every group mutation. */
const ERROR_TYPE = 'GroupUserError';

/** The paging arguments given beside a deprecated `page`: none may be. */
function noCursorWithPage(args: ConnectionArgs): void {
  if (args.first != null || args.after != null || args.last != null || args.before != null)
    throw new BadUserInputError('page cannot be combined with first, after, last or before', [
      { field: 'page', description: 'cannot be combined with first, after, last or before' },
    ]);
}

/** Arguments of `groups`: the filter, the connection's paging and the deprecated page number. */
@ArgsType()
class GroupsArgs extends ConnectionArgs {
  @Field(() => MsisdnScalar, { nullable: true, description: 'Groups this MSISDN owns.' })
  ownerId?: string | null;
  @Field(() => MsisdnScalar, { nullable: true, description: 'Groups this MSISDN is a member of.' })
  memberId?: string | null;
  @Field(() => Int, {
    nullable: true,
    deprecationReason: 'use first/after',
    description: `Page number from 0, ${GROUP_PAGE_SIZE} groups a page (not with first/after/last/before).`,
  })
  page?: number | null;
}

/** Arguments of `Group.members`: the connection's paging and the deprecated page number. */
@ArgsType()
class MembersArgs extends ConnectionArgs {
  @Field(() => Int, {
    nullable: true,
    description: `Forward paging: how many members after \`after\` (1-${PAGE_SIZE_MAX}); absent with \`last\` absent too: every member.`,
  })
  declare first?: number | null;
  @Field(() => Int, {
    nullable: true,
    deprecationReason: 'use first/after',
    description: `Page number from 0, ${MEMBER_PAGE_SIZE} members a page (published \`GET /sqs/api/groups/<id>/members?page=\`; not with first/after/last/before).`,
  })
  page?: number | null;
}

const groupKey = (g: GroupRow) => ({ createdAt: g.createdAt, id: g.id });

/** Groups and single members (CONTRACT §5, §7); the rules live in GroupService. */
@Resolver(() => GroupType)
export class GroupResolver {
  @Authorized(Permission.SQS_GROUP_CREATE_UPDATE_PERMISSION)
  @Mutation(() => CreateGroupPayload, {
    description:
      'Creates a group. Refusals in `userErrors`: NAME_TAKEN (owner+name unique), SUBSCRIBER_NOT_FOUND (the owner), INVALID. Needs SQS_GROUP_CREATE_UPDATE_PERMISSION.',
  })
  createGroup(
    @Arg('input', () => GroupInputType, { description: `The group. ${INPUT_DOC}` }) input: GroupInputType,
    @idempotencyKeyArg() idempotencyKey: string | null | undefined,
    @Ctx() ctx: GatewayContext,
  ) {
    return mutationPayload(
      ctx,
      () => ctx.services.sharing.createGroup(callerOf(ctx), input, idempotencyKey),
      (g) => ({ group: groupView(g) }),
      ERROR_TYPE,
      (err) => groupCodeOf(err, true),
    );
  }

  @Authorized(Permission.SQS_GROUP_READ_PERMISSION)
  @Query(() => GroupType, {
    nullable: true,
    description: 'A group by id, or null. Needs SQS_GROUP_READ_PERMISSION.',
  })
  async group(@Arg('id', () => ID, { description: 'The group id.' }) id: string, @Ctx() ctx: GatewayContext) {
    const g = await nullIfNotFound(ctx.services.sharing.group(callerOf(ctx), id));
    return g ? groupView(g) : null;
  }

  @Authorized(Permission.SQS_GROUP_READ_PERMISSION)
  @Query(() => GroupConnection, {
    description: `Groups owned by ownerId and/or having memberId as member (give at least one: BAD_USER_INPUT otherwise), oldest first; page with first/after (or last/before), 1-${PAGE_SIZE_MAX} a page. Needs SQS_GROUP_READ_PERMISSION.`,
  })
  async groups(@Args() args: GroupsArgs, @Ctx() ctx: GatewayContext): Promise<GroupConnectionValue> {
    const caller = callerOf(ctx);
    const by = { ownerId: args.ownerId ?? null, memberId: args.memberId ?? null };
    if (args.page != null) {
      noCursorWithPage(args);
      const r = await ctx.services.sharing.groups(caller, by, args.page);
      const edges = r.rows.map((g) => ({ cursor: groupCursor.encode(groupKey(g)), node: groupView(g) }));
      return {
        edges,
        pageInfo: {
          hasNextPage: (r.page + 1) * r.size < r.total,
          hasPreviousPage: r.page > 0,
          startCursor: edges[0]?.cursor ?? null,
          endCursor: edges.at(-1)?.cursor ?? null,
        },
        totalCount: r.total,
        nodes: edges.map((e) => e.node),
        page: r.page,
        size: r.size,
        totalElements: r.total,
      };
    }
    const req = pageRequest(args, groupCursor);
    const r = await ctx.services.sharing.groupService.groupsByKey(caller, by, req);
    const page = connectionFromRows(r.rows, req, groupCursor, groupKey);
    const edges = page.edges.map((e) => ({ cursor: e.cursor, node: groupView(e.node) }));
    return {
      edges,
      pageInfo: page.pageInfo,
      totalCount: r.total,
      nodes: edges.map((e) => e.node),
      page: 0,
      size: req.limit,
      totalElements: r.total,
    };
  }

  @FieldResolver(() => GroupMemberConnection, {
    description: `Members in joining order (batched). A group is a bounded list (at most MAX_GROUP_SIZE members): without \`first\` or \`last\` the page holds every member; with them 1-${PAGE_SIZE_MAX} a page.`,
  })
  async members(
    @Root() group: GroupType,
    @Args() args: MembersArgs,
    @Ctx() ctx: GatewayContext,
  ): Promise<Connection<GroupMemberType>> {
    const all = (await loaders(ctx).members.load(group.id)).map(memberView);
    if (args.page != null) {
      noCursorWithPage(args);
      checkPage(args.page);
      const start = Math.min(args.page * MEMBER_PAGE_SIZE, all.length);
      const items = all.slice(start, start + MEMBER_PAGE_SIZE);
      const edges = items.map((node) => ({ cursor: memberCursor.encode(node.seq!), node }));
      return {
        edges,
        pageInfo: {
          hasNextPage: start + items.length < all.length,
          hasPreviousPage: start > 0,
          startCursor: edges[0]?.cursor ?? null,
          endCursor: edges.at(-1)?.cursor ?? null,
        },
        totalCount: all.length,
      };
    }
    const req = pageRequest(args, memberCursor);
    // A bounded list: with no page size asked for, the page is the whole group (as `members` was).
    if (args.first == null && args.last == null) req.limit = all.length;
    return connectionFromArray(
      all,
      req,
      memberCursor,
      (m) => m.seq!,
      (a, b) => a - b,
    );
  }

  @FieldResolver(() => Int, { description: 'How many members the group has (batched).' })
  async memberCount(@Root() group: GroupType, @Ctx() ctx: GatewayContext) {
    return (await loaders(ctx).members.load(group.id)).length;
  }

  @Authorized(Permission.SQS_GROUP_DELETE_PERMISSION)
  @Mutation(() => DeleteGroupPayload, {
    description:
      'Deletes a group and cancels its recurring donation; quota already shared stays. Refusals in `userErrors`: GROUP_NOT_FOUND. Needs SQS_GROUP_DELETE_PERMISSION.',
  })
  deleteGroup(@Arg('id', () => ID, { description: 'The group id.' }) id: string, @Ctx() ctx: GatewayContext) {
    return mutationPayload(
      ctx,
      () => ctx.services.sharing.deleteGroup(callerOf(ctx), id),
      () => ({ deletedGroupId: id }),
      ERROR_TYPE,
      (err) => groupCodeOf(err),
      null,
    );
  }

  @Authorized(Permission.SQS_GROUP_CREATE_UPDATE_PERMISSION)
  @Mutation(() => GroupMemberPayload, {
    description:
      'Adds a member. Refusals in `userErrors`: GROUP_NOT_FOUND, ALREADY_MEMBER, MEMBER_IS_OWNER, GROUP_FULL, SHARE_OVER_TOTAL, SUBSCRIBER_NOT_FOUND, INVALID (the quota out of range for the group). Needs SQS_GROUP_CREATE_UPDATE_PERMISSION.',
  })
  addGroupMember(
    @Arg('groupId', () => ID, { description: 'The group id.' }) groupId: string,
    @Arg('input', () => GroupMemberInputType, { description: `The member. ${INPUT_DOC}` })
    input: GroupMemberInputType,
    @idempotencyKeyArg() idempotencyKey: string | null | undefined,
    @Ctx() ctx: GatewayContext,
  ) {
    return mutationPayload(
      ctx,
      () => ctx.services.sharing.addMember(callerOf(ctx), groupId, input, idempotencyKey),
      (m) => ({ groupMember: memberView(m) }),
      ERROR_TYPE,
      (err) => groupCodeOf(err),
    );
  }

  @Authorized(Permission.SQS_GROUP_DELETE_PERMISSION)
  @Mutation(() => RemoveGroupMemberPayload, {
    description:
      'Removes a member. Refusals in `userErrors`: GROUP_NOT_FOUND, NOT_A_MEMBER. Needs SQS_GROUP_DELETE_PERMISSION.',
  })
  removeGroupMember(
    @Arg('groupId', () => ID, { description: 'The group id.' }) groupId: string,
    @Arg('memberId', () => MsisdnScalar, { description: "The member's MSISDN." }) memberId: string,
    @Ctx() ctx: GatewayContext,
  ) {
    return mutationPayload(
      ctx,
      () => ctx.services.sharing.removeMember(callerOf(ctx), groupId, memberId),
      (m) => ({ deletedGroupMemberId: memberGlobalId(groupId, m.memberMsisdn) }),
      ERROR_TYPE,
      (err) => groupCodeOf(err),
      null,
    );
  }
}

const CODES =
  'Refusals in `userErrors`: GROUP_NOT_FOUND; INVALID naming the field (a quota out of range for the group, a memberId listed twice); MEMBER_IS_OWNER, SUBSCRIBER_NOT_FOUND, SUBSCRIBER_NOT_ACTIVE, GROUP_FULL (more than MAX_GROUP_SIZE members), SHARE_OVER_TOTAL (share quotas over 10000000 in total).';

/**
 * The group writes of the source product's wider SQS API (CONTRACT §5) with typed inputs; the rules
 * live in {@link GroupService}. Each is the same operation as its REST row.
 */
@Resolver(() => GroupType)
export class GroupWriteResolver {
  @Authorized(Permission.SQS_GROUP_CREATE_UPDATE_PERMISSION)
  @Mutation(() => UpdateGroupPayload, {
    description:
      "Renames a group (published `PUT /sqs/api/groups/<id>`): input.id must be `id`, input.ownerId the group's owner (INVALID otherwise). Refusals in `userErrors`: NAME_TAKEN (the owner's other group has the name), GROUP_NOT_FOUND, INVALID. Needs SQS_GROUP_CREATE_UPDATE_PERMISSION.",
  })
  updateGroup(
    @Arg('id', () => ID, { description: 'The group id.' }) id: string,
    @Arg('input', () => GroupUpdateInputType, { description: 'The group with its new name.' })
    input: GroupUpdateInputType,
    @idempotencyKeyArg() idempotencyKey: string | null | undefined,
    @Ctx() ctx: GatewayContext,
  ) {
    return mutationPayload(
      ctx,
      () => ctx.services.sharing.memberService.updateGroup(callerOf(ctx), id, input, idempotencyKey),
      (g) => ({ group: groupView(g) }),
      ERROR_TYPE,
      (err) => groupCodeOf(err),
    );
  }

  @Authorized(Permission.SQS_GROUP_CREATE_UPDATE_PERMISSION)
  @Mutation(() => GroupMemberPayload, {
    description: `Adds a member or sets its quota (published \`PUT /sqs/api/groups/<id>/members/<memberId>\`); input.memberId must be memberId. ${CODES} Needs SQS_GROUP_CREATE_UPDATE_PERMISSION.`,
  })
  upsertGroupMember(
    @Arg('groupId', () => ID, { description: 'The group id.' }) groupId: string,
    @Arg('memberId', () => MsisdnScalar, { description: "The member's MSISDN." }) memberId: string,
    @Arg('input', () => GroupMemberInputType, { description: 'The member and its quota.' })
    input: GroupMemberInputType,
    @idempotencyKeyArg() idempotencyKey: string | null | undefined,
    @Ctx() ctx: GatewayContext,
  ) {
    return mutationPayload(
      ctx,
      () =>
        ctx.services.sharing.memberService.putMember(
          callerOf(ctx),
          groupId,
          input,
          {
            mode: 'upsert',
            pathMemberId: memberId,
            operation: 'upsertGroupMember',
            request: { groupId, memberId, input },
          },
          idempotencyKey,
        ),
      (m) => ({ groupMember: memberView(m) }),
      ERROR_TYPE,
      (err) => groupCodeOf(err),
    );
  }

  @Authorized(Permission.SQS_GROUP_CREATE_UPDATE_PERMISSION)
  @Mutation(() => AddGroupMembersPayload, {
    description: `Adds members or sets their quotas, all or nothing (published \`PUT /sqs/api/groups/<id>/members/_bulk/add\`): 1-${MAX_BULK_MEMBERS} entries, no memberId twice; the first failing entry answers, its field named members[i].memberId / members[i].quota; the limits are judged on the group as it would be after the whole request. ${CODES} Needs SQS_GROUP_CREATE_UPDATE_PERMISSION.`,
  })
  addGroupMembers(
    @Arg('groupId', () => ID, { description: 'The group id.' }) groupId: string,
    @Arg('members', () => [GroupMemberInputType], {
      description: `1-${MAX_BULK_MEMBERS} members, each memberId once.`,
    })
    members: GroupMemberInputType[],
    @idempotencyKeyArg() idempotencyKey: string | null | undefined,
    @Ctx() ctx: GatewayContext,
  ) {
    return mutationPayload(
      ctx,
      () => ctx.services.sharing.memberService.addMembers(callerOf(ctx), groupId, members, idempotencyKey),
      (rows) => ({ groupMembers: rows.map(memberView) }),
      ERROR_TYPE,
      (err) => groupCodeOf(err),
      null,
    );
  }

  @Authorized(Permission.SQS_GROUP_DELETE_PERMISSION)
  @Mutation(() => RemoveGroupMembersPayload, {
    description: `Removes members, all at once (published \`PUT /sqs/api/groups/<id>/members/_bulk/delete\`): 1-${MAX_BULK_MEMBERS} MSISDNs; those that are not members are ignored. Refusals in \`userErrors\`: GROUP_NOT_FOUND, INVALID (an empty or too long list). Needs SQS_GROUP_DELETE_PERMISSION.`,
  })
  async removeGroupMembers(
    @Arg('groupId', () => ID, { description: 'The group id.' }) groupId: string,
    @Arg('memberIds', () => [MsisdnScalar], { description: `1-${MAX_BULK_MEMBERS} member MSISDNs.` })
    memberIds: string[],
    @idempotencyKeyArg() idempotencyKey: string | null | undefined,
    @Ctx() ctx: GatewayContext,
  ) {
    const payload = await mutationPayload(
      ctx,
      () =>
        ctx.services.sharing.memberService.removeMembers(callerOf(ctx), groupId, memberIds, idempotencyKey),
      (rows) => ({ deletedGroupMemberIds: rows.map((m) => memberGlobalId(groupId, m.memberMsisdn)) }),
      ERROR_TYPE,
      (err) => groupCodeOf(err),
      null,
    );
    // The service names the list `members` (its REST body); here it is the `memberIds` argument.
    for (const e of payload.userErrors) if (e.field?.[0] === 'members') e.field[0] = 'memberIds';
    return payload;
  }
}

registerNode('Group', {
  permissions: [Permission.SQS_GROUP_READ_PERMISSION],
  serviceIds: true,
  async resolve(ctx, key) {
    const g = await loaders(ctx).groups.load(key);
    return g ? groupView(g) : null;
  },
});

registerNode('GroupMember', {
  permissions: [Permission.SQS_GROUP_READ_PERMISSION],
  // Key `<group id>:<member MSISDN>`: the group in the caller's tenant, then its members, each
  // through the request's loaders (one statement per tick for all the ids of a `nodes(ids:)`).
  async resolve(ctx, key) {
    const colon = key.lastIndexOf(':');
    if (colon < 1) return null;
    const groupId = key.slice(0, colon);
    const msisdn = key.slice(colon + 1);
    const { groups, members } = loaders(ctx);
    if (!(await groups.load(groupId))) return null;
    const m = (await members.load(groupId)).find((row) => row.memberMsisdn === msisdn);
    return m ? memberView(m) : null;
  },
});
