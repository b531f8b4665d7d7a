import { Arg, Authorized, Ctx, Mutation, Resolver } from 'type-graphql';
import { Permission } from '../../auth/permissions';
import { GatewayContext, callerOf } from '../../graphql/context';
import { MAX_BULK_MEMBERS } from './group-member.service';
import { idempotencyKeyArg, view } from './sharing.resolver';
import { GroupMemberInputType, GroupUpdateInputType } from './sharing.inputs';
import { GroupMemberType, GroupType } from './sharing.types';

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
