import { Arg, Authorized, Ctx, FieldResolver, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import { Permission } from '../../auth/permissions';
import { GatewayContext, callerOf } from '../../graphql/context';
import {
  PlanDefinitionInputType,
  PlanDefinitionType,
  PlanRenewalType,
  RecurringDonationType,
  SubscriberPlanInputType,
  SubscriberPlanType,
} from './sharing.types';
import { loaders, view } from './sharing.views';

/** Plan definitions, subscriber plans and renewal (CONTRACT §5, §9); the rules live in PlanService and PlanRenewalService. */
@Resolver(() => SubscriberPlanType)
export class PlanResolver {
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
