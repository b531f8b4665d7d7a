import { Arg, Authorized, Ctx, FieldResolver, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import { Permission } from '../../auth/permissions';
import { GatewayContext, callerOf } from '../../graphql/context';
import { MAX_BULK_MEMBERS, MEMBER_PAGE_SIZE, checkPage } from './group-member.service';
import { GroupInputType, GroupMemberInputType, GroupUpdateInputType } from './sharing.inputs';
import { GroupMemberType, GroupPageType, GroupType } from './sharing.types';
import { INPUT_DOC, idempotencyKeyArg, loaders, nullIfNotFound, view } from './sharing.views';

/** Groups and single members (CONTRACT §5, §7); the rules live in GroupService. */
@Resolver(() => GroupType)
export class GroupResolver {
  @Authorized(Permission.SQS_GROUP_CREATE_UPDATE_PERMISSION)
  @Mutation(() => GroupType, {
    description:
      'Creates a group (owner+name unique: CONFLICT, errorCode 2). Needs SQS_GROUP_CREATE_UPDATE_PERMISSION.',
  })
  async createGroup(
    @Arg('input', () => GroupInputType, { description: `The group. ${INPUT_DOC}` }) input: GroupInputType,
    @idempotencyKeyArg() idempotencyKey: string | null | undefined,
    @Ctx() ctx: GatewayContext,
  ) {
    return view.group(await ctx.services.sharing.createGroup(callerOf(ctx), input, idempotencyKey));
  }

  @Authorized(Permission.SQS_GROUP_READ_PERMISSION)
  @Query(() => GroupType, {
    nullable: true,
    description: 'A group by id, or null. Needs SQS_GROUP_READ_PERMISSION.',
  })
  async group(@Arg('id', () => String, { description: 'Group id.' }) id: string, @Ctx() ctx: GatewayContext) {
    const g = await nullIfNotFound(ctx.services.sharing.group(callerOf(ctx), id));
    return g ? view.group(g) : null;
  }

  @Authorized(Permission.SQS_GROUP_READ_PERMISSION)
  @Query(() => GroupPageType, {
    description:
      'Groups owned by ownerId and/or having memberId as member, oldest first, 100 per page. Needs SQS_GROUP_READ_PERMISSION.',
  })
  async groups(
    @Arg('ownerId', () => String, { nullable: true, description: 'Owner MSISDN.' })
    ownerId: string | null | undefined,
    @Arg('memberId', () => String, { nullable: true, description: 'Member MSISDN.' })
    memberId: string | null | undefined,
    @Arg('page', () => Int, { defaultValue: 0, description: 'Page number, from 0.' }) page: number,
    @Ctx() ctx: GatewayContext,
  ): Promise<GroupPageType> {
    const r = await ctx.services.sharing.groups(
      callerOf(ctx),
      { ownerId: ownerId ?? null, memberId: memberId ?? null },
      page,
    );
    return { nodes: r.rows.map(view.group), page: r.page, size: r.size, totalElements: r.total };
  }

  @FieldResolver(() => [GroupMemberType], {
    description:
      'Members in joining order (batched): all of them, or with `page` that page of 100 (published `GET /sqs/api/groups/<id>/members?page=`).',
  })
  async members(
    @Root() group: GroupType,
    @Arg('page', () => Int, { nullable: true, description: 'Page number, from 0; absent: every member.' })
    page: number | null | undefined,
    @Ctx() ctx: GatewayContext,
  ) {
    const all = await loaders(ctx).members.load(group.id);
    if (page === null || page === undefined) return all.map(view.member);
    checkPage(page);
    return all.slice(page * MEMBER_PAGE_SIZE, (page + 1) * MEMBER_PAGE_SIZE).map(view.member);
  }

  @FieldResolver(() => Int, { description: 'How many members the group has (batched).' })
  async memberCount(@Root() group: GroupType, @Ctx() ctx: GatewayContext) {
    return (await loaders(ctx).members.load(group.id)).length;
  }

  @Authorized(Permission.SQS_GROUP_DELETE_PERMISSION)
  @Mutation(() => Boolean, {
    description:
      'Deletes a group and cancels its recurring donation; quota already shared stays. Needs SQS_GROUP_DELETE_PERMISSION.',
  })
  async deleteGroup(
    @Arg('id', () => String, { description: 'Group id.' }) id: string,
    @Ctx() ctx: GatewayContext,
  ) {
    await ctx.services.sharing.deleteGroup(callerOf(ctx), id);
    return true;
  }

  @Authorized(Permission.SQS_GROUP_CREATE_UPDATE_PERMISSION)
  @Mutation(() => GroupMemberType, {
    description:
      'Adds a member (already there: CONFLICT; owner 3, group full 6, share quotas over 10000000 in total 4, unknown subscriber 12: UNPROCESSABLE). Needs SQS_GROUP_CREATE_UPDATE_PERMISSION.',
  })
  async addGroupMember(
    @Arg('groupId', () => String, { description: 'Group id.' }) groupId: string,
    @Arg('input', () => GroupMemberInputType, { description: `The member. ${INPUT_DOC}` })
    input: GroupMemberInputType,
    @idempotencyKeyArg() idempotencyKey: string | null | undefined,
    @Ctx() ctx: GatewayContext,
  ) {
    return view.member(await ctx.services.sharing.addMember(callerOf(ctx), groupId, input, idempotencyKey));
  }

  @Authorized(Permission.SQS_GROUP_DELETE_PERMISSION)
  @Mutation(() => Boolean, { description: 'Removes a member. Needs SQS_GROUP_DELETE_PERMISSION.' })
  async removeGroupMember(
    @Arg('groupId', () => String, { description: 'Group id.' }) groupId: string,
    @Arg('memberId', () => String, { description: 'Member MSISDN.' }) memberId: string,
    @Ctx() ctx: GatewayContext,
  ) {
    await ctx.services.sharing.removeMember(callerOf(ctx), groupId, memberId);
    return true;
  }
}

const CODES =
  'Refusals are errors with extensions.errorCode: group unknown NOT_FOUND 5; a field out of range BAD_USER_INPUT naming it; the owner 3, not a subscriber 12, not active 14, more than MAX_GROUP_SIZE members 6, share quotas over 10000000 in total 4: UNPROCESSABLE.';

/**
 * The group writes of the source product's wider SQS API (issue 11) with typed inputs; the rules
 * live in {@link GroupService}. Each is the same operation as its REST row.
 */
@Resolver(() => GroupType)
export class GroupWriteResolver {
  @Authorized(Permission.SQS_GROUP_CREATE_UPDATE_PERMISSION)
  @Mutation(() => GroupType, {
    description:
      "Renames a group (published `PUT /sqs/api/groups/<id>`): input.id must be `id`, input.ownerId the group's owner (BAD_USER_INPUT otherwise); the owner's other group with that name CONFLICT, errorCode 2; unknown group NOT_FOUND 5. Needs SQS_GROUP_CREATE_UPDATE_PERMISSION.",
  })
  async updateGroup(
    @Arg('id', () => String, { description: 'Group id.' }) id: string,
    @Arg('input', () => GroupUpdateInputType, { description: 'The group with its new name.' })
    input: GroupUpdateInputType,
    @idempotencyKeyArg() idempotencyKey: string | null | undefined,
    @Ctx() ctx: GatewayContext,
  ) {
    return view.group(
      await ctx.services.sharing.memberService.updateGroup(callerOf(ctx), id, input, idempotencyKey),
    );
  }

  @Authorized(Permission.SQS_GROUP_CREATE_UPDATE_PERMISSION)
  @Mutation(() => GroupMemberType, {
    description: `Adds a member or sets its quota (published \`PUT /sqs/api/groups/<id>/members/<memberId>\`); input.memberId must be memberId. ${CODES} Needs SQS_GROUP_CREATE_UPDATE_PERMISSION.`,
  })
  async upsertGroupMember(
    @Arg('groupId', () => String, { description: 'Group id.' }) groupId: string,
    @Arg('memberId', () => String, { description: 'Member MSISDN.' }) memberId: string,
    @Arg('input', () => GroupMemberInputType, { description: 'The member and its quota.' })
    input: GroupMemberInputType,
    @idempotencyKeyArg() idempotencyKey: string | null | undefined,
    @Ctx() ctx: GatewayContext,
  ) {
    const m = await ctx.services.sharing.memberService.putMember(
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
    );
    return view.member(m);
  }

  @Authorized(Permission.SQS_GROUP_CREATE_UPDATE_PERMISSION)
  @Mutation(() => [GroupMemberType], {
    description: `Adds members or sets their quotas, all or nothing (published \`PUT /sqs/api/groups/<id>/members/_bulk/add\`): 1-${MAX_BULK_MEMBERS} entries, no memberId twice; the first failing entry answers, its fields named members[i].memberId / members[i].quota; the limits are judged on the group as it would be after the whole request. ${CODES} Returns the members in request order. Needs SQS_GROUP_CREATE_UPDATE_PERMISSION.`,
  })
  async addGroupMembers(
    @Arg('groupId', () => String, { description: 'Group id.' }) groupId: string,
    @Arg('members', () => [GroupMemberInputType], {
      nullable: true,
      description: `Required: 1-${MAX_BULK_MEMBERS} members, each memberId once.`,
    })
    members: GroupMemberInputType[] | null | undefined,
    @idempotencyKeyArg() idempotencyKey: string | null | undefined,
    @Ctx() ctx: GatewayContext,
  ) {
    const rows = await ctx.services.sharing.memberService.addMembers(
      callerOf(ctx),
      groupId,
      members,
      idempotencyKey,
    );
    return rows.map(view.member);
  }

  @Authorized(Permission.SQS_GROUP_DELETE_PERMISSION)
  @Mutation(() => Boolean, {
    description: `Removes members, all at once (published \`PUT /sqs/api/groups/<id>/members/_bulk/delete\`): 1-${MAX_BULK_MEMBERS} MSISDNs; those that are not members are ignored. Unknown group NOT_FOUND 5. Needs SQS_GROUP_DELETE_PERMISSION.`,
  })
  async removeGroupMembers(
    @Arg('groupId', () => String, { description: 'Group id.' }) groupId: string,
    @Arg('memberIds', () => [String], {
      nullable: true,
      description: `Required: 1-${MAX_BULK_MEMBERS} member MSISDNs.`,
    })
    memberIds: string[] | null | undefined,
    @idempotencyKeyArg() idempotencyKey: string | null | undefined,
    @Ctx() ctx: GatewayContext,
  ) {
    await ctx.services.sharing.memberService.removeMembers(callerOf(ctx), groupId, memberIds, idempotencyKey);
    return true;
  }
}
