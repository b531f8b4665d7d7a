import { Arg, Authorized, Ctx, FieldResolver, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import { Permission } from '../../auth/permissions';
import { domainErrorOf } from '../../errors';
import { GatewayContext, callerOf, perRequest } from '../../graphql/context';
import { sqsCodeName } from './error-codes';
import {
  DonationInputType,
  GroupInputType,
  GroupMemberInputType,
  RecurringDonationInputType,
} from './sharing.inputs';
import { MEMBER_PAGE_SIZE, checkPage } from './group-member.service';
import { SharingLoaders } from './sharing.service';
import {
  AllowanceRow,
  DonationRow,
  GroupRow,
  MemberRow,
  PlanDefinitionRow,
  RecurringRow,
  SubscriberPlanRow,
} from './sharing.rows';
import {
  AllowanceType,
  DonationType,
  GroupMemberType,
  GroupPageType,
  GroupType,
  PlanDefinitionInputType,
  PlanDefinitionType,
  PlanRenewalType,
  RecurringDonationPageType,
  RecurringDonationType,
  SubscriberPlanInputType,
  SubscriberPlanType,
} from './sharing.types';

const iso = (ms: number) => new Date(ms).toISOString();

/** Row → GraphQL views (times as ISO-8601 UTC, MSISDNs as the public ids). */
export const view = {
  definition: (d: PlanDefinitionRow): PlanDefinitionType => ({ ...d }),
  plan: (p: SubscriberPlanRow): SubscriberPlanType => ({
    id: p.id,
    msisdn: p.msisdn,
    remaining: p.remaining,
    period: p.period,
    renewed: iso(p.renewedAt),
    definition: { ...p.definition },
  }),
  donation: (d: DonationRow): DonationType => ({
    id: d.id,
    donorId: d.donorMsisdn,
    donorPlanId: d.donorPlanId,
    quotaType: d.quotaType,
    groupId: d.groupId,
    recurringDonationId: d.recurringDonationId,
    period: d.period,
    errorCode: d.errorCode,
    created: iso(d.createdAt),
    recipients: d.recipients.map((r) => ({ ...r, errorName: sqsCodeName(r.errorCode) })),
  }),
  allowance: (a: AllowanceRow): AllowanceType => ({
    recipientId: a.recipientMsisdn,
    donorPlanId: a.donorPlanId,
    donationId: a.donationId,
    unitMeteringType: a.unitMeteringType,
    amount: a.amount,
    period: a.period,
    created: iso(a.createdAt),
  }),
  group: (g: GroupRow): GroupType => ({
    id: g.id,
    ownerId: g.ownerMsisdn,
    name: g.name,
    quotaType: g.quotaType ?? 'share',
    created: iso(g.createdAt),
    updated: iso(g.updatedAt),
  }),
  member: (m: MemberRow): GroupMemberType => ({
    memberId: m.memberMsisdn,
    quota: m.quota,
    joined: iso(m.createdAt),
  }),
  recurring: (r: RecurringRow): RecurringDonationType => ({
    id: r.id,
    donorId: r.donorMsisdn,
    donorPlanId: r.donorPlanId,
    quotaType: r.quotaType,
    groupId: r.groupId,
    recipients: r.recipients,
    planName: r.planName ?? null,
    created: iso(r.createdAt),
    updated: iso(r.createdAt),
  }),
};

/** Resolves to null where the service reports NOT_FOUND; other failures propagate. */
function nullIfNotFound<T>(p: Promise<T>): Promise<T | null> {
  return p.catch((err: unknown) => {
    if (domainErrorOf(err)?.code === 'NOT_FOUND') return null;
    throw err;
  });
}

function loaders(ctx: GatewayContext): SharingLoaders {
  const caller = callerOf(ctx);
  return perRequest(ctx, 'sharing', () => ctx.services.sharing.loaders(caller));
}

const IDEMPOTENCY_KEY_DOC =
  'Idempotency key (IETF draft-ietf-httpapi-idempotency-key-header; over REST the Idempotency-Key header), 1-255 visible ASCII characters, per tenant. The same key with the same arguments within 24 h returns the first result without doing anything again; with other arguments (or another operation) UNPROCESSABLE, errorCode 1; while the first request is still running CONFLICT, errorCode 1. Only committed results are remembered: after a refusal or a failure the key is free again.';

/** The optional `idempotencyKey` argument of the quota-sharing writes. */
export const idempotencyKeyArg = () =>
  Arg('idempotencyKey', () => String, { nullable: true, description: IDEMPOTENCY_KEY_DOC });

const INPUT_DOC =
  'Missing or out-of-range fields are refused naming each (BAD_USER_INPUT with `fields`; over REST 412), as the legacy path does.';

/** Quota-sharing operations and reads (CONTRACT §5, §7); the rules live in SharingService. */
@Resolver(() => GroupType)
export class SharingResolver {
  @Authorized(Permission.SQS_DONATION_PERMISSION)
  @Mutation(() => DonationType, {
    description:
      "Shares quota of a donor plan with explicit recipients or with a group's members (spec 4.4/4.5). Per-recipient outcomes are data (errorCode); refusals of the whole request are errors with extensions.errorCode. Needs SQS_DONATION_PERMISSION.",
  })
  async shareQuota(
    @Arg('input', () => DonationInputType, { description: `The donation. ${INPUT_DOC}` })
    input: DonationInputType,
    @idempotencyKeyArg() idempotencyKey: string | null | undefined,
    @Ctx() ctx: GatewayContext,
  ) {
    return view.donation(await ctx.services.sharing.donate(callerOf(ctx), input, idempotencyKey));
  }

  @Authorized(Permission.SQS_DONATION_PERMISSION)
  @Query(() => DonationType, {
    nullable: true,
    description: 'A donation by id, or null. Needs SQS_DONATION_PERMISSION.',
  })
  async donation(
    @Arg('id', () => String, { description: 'Donation id.' }) id: string,
    @Ctx() ctx: GatewayContext,
  ) {
    const d = await ctx.services.sharing.donation(callerOf(ctx), id);
    return d ? view.donation(d) : null;
  }

  @Authorized(Permission.SQS_DONATION_PERMISSION)
  @Query(() => [DonationType], {
    description: "A donor's donations, newest first. Needs SQS_DONATION_PERMISSION.",
  })
  async donations(
    @Arg('donorId', () => String, { description: 'Donor MSISDN.' }) donorId: string,
    @Arg('first', () => Int, { defaultValue: 20, description: 'How many, 1-500.' }) first: number,
    @Ctx() ctx: GatewayContext,
  ) {
    return (await ctx.services.sharing.donations(callerOf(ctx), donorId, first)).map(view.donation);
  }

  @Authorized(Permission.SQS_DONATION_PERMISSION)
  @Query(() => [AllowanceType], {
    description:
      'What a subscriber received from donations, newest first (at most 500). Needs SQS_DONATION_PERMISSION.',
  })
  async allowances(
    @Arg('msisdn', () => String, { description: 'Recipient MSISDN.' }) msisdn: string,
    @Ctx() ctx: GatewayContext,
  ) {
    return (await ctx.services.sharing.allowances(callerOf(ctx), msisdn)).map(view.allowance);
  }

  @Authorized(Permission.SQS_DONATION_PERMISSION)
  @Query(() => [PlanDefinitionType], {
    description: "Your tenant's plan definitions. Needs SQS_DONATION_PERMISSION.",
  })
  async planDefinitions(@Ctx() ctx: GatewayContext) {
    return (await ctx.services.sharing.planDefinitions(callerOf(ctx))).map(view.definition);
  }

  @Authorized(Permission.SQS_DONATION_PERMISSION)
  @Query(() => [SubscriberPlanType], { description: "A subscriber's plans. Needs SQS_DONATION_PERMISSION." })
  async subscriberPlans(
    @Arg('msisdn', () => String, { description: 'Owner MSISDN.' }) msisdn: string,
    @Ctx() ctx: GatewayContext,
  ) {
    return (await ctx.services.sharing.subscriberPlans(callerOf(ctx), msisdn)).map(view.plan);
  }

  @Authorized(Permission.SQS_DONATION_PERMISSION)
  @Query(() => SubscriberPlanType, {
    nullable: true,
    description: 'A subscriber plan by id (donorPlanId), or null. Needs SQS_DONATION_PERMISSION.',
  })
  async subscriberPlan(
    @Arg('id', () => Int, { description: 'Plan id.' }) id: number,
    @Ctx() ctx: GatewayContext,
  ) {
    const p = await ctx.services.sharing.subscriberPlan(callerOf(ctx), id);
    return p ? view.plan(p) : null;
  }

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

  @Authorized(Permission.SQS_RECURRING_DONATION_CREATE_UPDATE_PERMISSION)
  @Mutation(() => RecurringDonationType, {
    description:
      'Sets up the donation a plan executes at every renewal (plan not recurring 9, one per plan 11). Needs SQS_RECURRING_DONATION_CREATE_UPDATE_PERMISSION.',
  })
  async createRecurringDonation(
    @Arg('input', () => RecurringDonationInputType, { description: `The recurring donation. ${INPUT_DOC}` })
    input: RecurringDonationInputType,
    @idempotencyKeyArg() idempotencyKey: string | null | undefined,
    @Ctx() ctx: GatewayContext,
  ) {
    return view.recurring(await ctx.services.sharing.createRecurring(callerOf(ctx), input, idempotencyKey));
  }

  @Authorized(Permission.SQS_RECURRING_DONATION_READ_PERMISSION)
  @Query(() => RecurringDonationType, {
    nullable: true,
    description: 'A recurring donation by id, or null. Needs SQS_RECURRING_DONATION_READ_PERMISSION.',
  })
  async recurringDonation(
    @Arg('id', () => String, { description: 'Recurring donation id.' }) id: string,
    @Ctx() ctx: GatewayContext,
  ) {
    const r = await nullIfNotFound(ctx.services.sharing.recurring(callerOf(ctx), id));
    return r ? view.recurring(r) : null;
  }

  @Authorized(Permission.SQS_RECURRING_DONATION_READ_PERMISSION)
  @Query(() => RecurringDonationPageType, {
    description:
      "A donor's and/or a group's recurring donations, oldest first, 100 per page (published `GET /sqs/api/recurringDonations`). Give donorId, groupId or both. Needs SQS_RECURRING_DONATION_READ_PERMISSION.",
  })
  async recurringDonations(
    @Arg('donorId', () => String, { nullable: true, description: 'Donor MSISDN.' })
    donorId: string | null | undefined,
    @Arg('groupId', () => String, { nullable: true, description: 'Group id.' })
    groupId: string | null | undefined,
    @Arg('page', () => Int, { defaultValue: 0, description: 'Page number, from 0.' }) page: number,
    @Ctx() ctx: GatewayContext,
  ): Promise<RecurringDonationPageType> {
    const r = await ctx.services.sharing.recurringDonations(
      callerOf(ctx),
      { donorId: donorId ?? null, groupId: groupId ?? null },
      page,
    );
    return { nodes: r.rows.map(view.recurring), page: r.page, size: r.size, totalElements: r.total };
  }

  @Authorized(Permission.SQS_RECURRING_DONATION_DELETE_PERMISSION)
  @Mutation(() => Boolean, {
    description: 'Cancels a recurring donation. Needs SQS_RECURRING_DONATION_DELETE_PERMISSION.',
  })
  async deleteRecurringDonation(
    @Arg('id', () => String, { description: 'Recurring donation id.' }) id: string,
    @Ctx() ctx: GatewayContext,
  ) {
    await ctx.services.sharing.deleteRecurring(callerOf(ctx), id);
    return true;
  }

  @Authorized(Permission.ADMIN)
  @Mutation(() => PlanRenewalType, {
    description:
      "Starts a plan's new period: remaining back to unitAmount, then its recurring donation runs with the quotas in force now. Needs ADMIN.",
  })
  async renewSubscriberPlan(
    @Arg('id', () => Int, { description: 'Plan id.' }) id: number,
    @Ctx() ctx: GatewayContext,
  ) {
    const r = await ctx.services.sharing.renewPlan(callerOf(ctx), id);
    return { plan: view.plan(r.plan), donation: r.donation ? view.donation(r.donation) : null };
  }

  @Authorized(Permission.ADMIN)
  @Mutation(() => PlanDefinitionType, {
    description: 'Creates or updates a plan definition by name. Needs ADMIN.',
  })
  async upsertPlanDefinition(
    @Arg('input', () => PlanDefinitionInputType, { description: 'The definition.' })
    input: PlanDefinitionInputType,
    @Ctx() ctx: GatewayContext,
  ) {
    return view.definition(await ctx.services.sharing.upsertPlanDefinition(callerOf(ctx), input));
  }

  @Authorized(Permission.ADMIN)
  @Mutation(() => SubscriberPlanType, {
    description: 'Creates or updates a subscriber plan by id. Needs ADMIN.',
  })
  async upsertSubscriberPlan(
    @Arg('input', () => SubscriberPlanInputType, { description: 'The plan.' }) input: SubscriberPlanInputType,
    @Ctx() ctx: GatewayContext,
  ) {
    return view.plan(await ctx.services.sharing.upsertSubscriberPlan(callerOf(ctx), input));
  }
}

/** Batched field of subscriber plans: the plan's recurring donation. */
@Resolver(() => SubscriberPlanType)
export class SubscriberPlanResolver {
  @FieldResolver(() => RecurringDonationType, {
    nullable: true,
    description: "The plan's recurring donation, if any (batched).",
  })
  async recurringDonation(@Root() plan: SubscriberPlanType, @Ctx() ctx: GatewayContext) {
    const r = await loaders(ctx).recurringByPlan.load(plan.id);
    return r ? view.recurring(r) : null;
  }
}
