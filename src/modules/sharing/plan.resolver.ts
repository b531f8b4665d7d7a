import {
  Arg,
  Args,
  Authorized,
  Ctx,
  FieldResolver,
  Int,
  Mutation,
  Query,
  Resolver,
  Root,
} from 'type-graphql';
import { Permission } from '../../auth/permissions';
import { NotFoundError } from '../../errors';
import { GatewayContext, callerOf } from '../../graphql/context';
import { registerRowNode, rowIdKey } from '../../graphql/node';
import { mutationPayload } from '../../graphql/payload';
import {
  ConnectionArgs,
  PAGE_SIZE_MAX,
  connectionFromArray,
  connectionFromRows,
  integerCursor,
  pageRequest,
} from '../../graphql/relay';
import { MsisdnScalar } from '../../graphql/scalars';
import { SubscriberPlanField } from './plan.service';
import {
  PlanDefinitionInputType,
  PlanDefinitionPage,
  RenewSubscriberPlanPayload,
  SubscriberPlanInputType,
  SubscriberPlanPage,
  SubscriberPlanType,
  UpsertPlanDefinitionPayload,
  UpsertSubscriberPlanPayload,
  planCodeOf,
  planDefinitionView,
  subscriberPlanView,
} from './plan.types';
import { RecurringDonationType } from './sharing.types';
import { loaders, view } from './sharing.views';

/** The error type of every plan mutation. */
const ERROR_TYPE = 'PlanUserError';

/** Cursors of `planDefinitions`: the definition's numeric id. */
const definitionCursor = integerCursor('PlanDefinition');
/** Cursors of `subscriberPlans`: the plan id. */
const planCursor = integerCursor('SubscriberPlan');

/** Plan definitions, subscriber plans and renewal (CONTRACT §5, §9); the rules live in PlanService and PlanRenewalService. */
@Resolver(() => SubscriberPlanType)
export class PlanResolver {
  @Authorized(Permission.SQS_DONATION_PERMISSION)
  @Query(() => PlanDefinitionPage.Connection, {
    description: `Your tenant's plan definitions in creation order; page with first/after (or last/before), 1-${PAGE_SIZE_MAX} a page. Needs SQS_DONATION_PERMISSION.`,
  })
  async planDefinitions(@Args() paging: ConnectionArgs, @Ctx() ctx: GatewayContext) {
    const req = pageRequest(paging, definitionCursor);
    const r = await ctx.services.sharing.planService.planDefinitionsByKey(callerOf(ctx), req);
    const page = connectionFromRows(r.rows, req, definitionCursor, (d) => d.id, r.total);
    return {
      ...page,
      edges: page.edges.map((e) => ({ cursor: e.cursor, node: planDefinitionView(e.node) })),
    };
  }

  @Authorized(Permission.SQS_DONATION_PERMISSION)
  @Query(() => SubscriberPlanPage.Connection, {
    description: `A subscriber's plans by planId (at most MAX_PLANS_PER_SUBSCRIBER); page with first/after (or last/before), 1-${PAGE_SIZE_MAX} a page. Needs SQS_DONATION_PERMISSION.`,
  })
  async subscriberPlans(
    @Arg('msisdn', () => MsisdnScalar, { description: "The owner's MSISDN." }) msisdn: string,
    @Args() paging: ConnectionArgs,
    @Ctx() ctx: GatewayContext,
  ) {
    const req = pageRequest(paging, planCursor);
    const plans = (await ctx.services.sharing.subscriberPlans(callerOf(ctx), msisdn)).map(subscriberPlanView);
    return connectionFromArray(
      plans,
      req,
      planCursor,
      (p) => p.planId,
      (a, b) => a - b,
    );
  }

  @Authorized(Permission.SQS_DONATION_PERMISSION)
  @Query(() => SubscriberPlanType, {
    nullable: true,
    description: 'A subscriber plan by its plan id (donorPlanId), or null. Needs SQS_DONATION_PERMISSION.',
  })
  async subscriberPlan(
    @Arg('id', () => Int, { description: 'The plan id (`planId`, the donorPlanId).' }) id: number,
    @Ctx() ctx: GatewayContext,
  ) {
    const p = await ctx.services.sharing.subscriberPlan(callerOf(ctx), id);
    return p ? subscriberPlanView(p) : null;
  }

  @Authorized(Permission.ADMIN)
  @Mutation(() => RenewSubscriberPlanPayload, {
    description:
      "Starts a plan's new period: remaining back to unitAmount, then its recurring donation runs with the quotas in force now. Refusals in `userErrors`: PLAN_NOT_FOUND, INVALID. Needs ADMIN.",
  })
  renewSubscriberPlan(
    @Arg('id', () => Int, { description: 'The plan id (`planId`, the donorPlanId).' }) id: number,
    @Ctx() ctx: GatewayContext,
  ) {
    return mutationPayload(
      ctx,
      () => ctx.services.sharing.renewPlan(callerOf(ctx), id),
      (r) => {
        const plan = subscriberPlanView(r.plan);
        return { subscriberPlan: plan, plan, donation: r.donation ? view.donation(r.donation) : null };
      },
      ERROR_TYPE,
      planCodeOf,
      null,
    );
  }

  @Authorized(Permission.ADMIN)
  @Mutation(() => UpsertPlanDefinitionPayload, {
    description:
      'Creates or updates a plan definition by name. Refusals in `userErrors`: INVALID naming each field. Needs ADMIN.',
  })
  upsertPlanDefinition(
    @Arg('input', () => PlanDefinitionInputType, { description: 'The definition.' })
    input: PlanDefinitionInputType,
    @Ctx() ctx: GatewayContext,
  ) {
    return mutationPayload(
      ctx,
      () => ctx.services.sharing.upsertPlanDefinition(callerOf(ctx), input),
      (d) => ({ planDefinition: planDefinitionView(d) }),
      ERROR_TYPE,
      planCodeOf,
    );
  }

  @Authorized(Permission.ADMIN)
  @Mutation(() => UpsertSubscriberPlanPayload, {
    description:
      "Creates or updates a subscriber plan by its plan id. Refusals in `userErrors`: SUBSCRIBER_NOT_FOUND, PLAN_DEFINITION_NOT_FOUND, PLAN_ID_TAKEN (another tenant's plan), INVALID. Needs ADMIN.",
  })
  upsertSubscriberPlan(
    @Arg('input', () => SubscriberPlanInputType, { description: 'The plan.' }) input: SubscriberPlanInputType,
    @Ctx() ctx: GatewayContext,
  ) {
    // Each refusal names the input field it is about.
    const refuse = (field: SubscriberPlanField, error: Error) => {
      const e = error as NotFoundError;
      return new (e.constructor as typeof NotFoundError)(e.message, {
        fields: [{ field, description: e.message }],
      });
    };
    return mutationPayload(
      ctx,
      () => ctx.services.sharing.planService.upsertSubscriberPlan(callerOf(ctx), input, { refuse }),
      (p) => ({ subscriberPlan: subscriberPlanView(p) }),
      ERROR_TYPE,
      planCodeOf,
    );
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
    const r = await loaders(ctx).recurringByPlan.load(plan.planId);
    return r ? view.recurring(r) : null;
  }
}

registerRowNode('PlanDefinition', {
  permissions: [Permission.SQS_DONATION_PERMISSION],
  key: rowIdKey,
  read: (ctx, ids: readonly number[]) =>
    ctx.services.sharing.planService.planDefinitionsByIds(callerOf(ctx), ids),
  keyOf: (d) => d.id,
  view: planDefinitionView,
});

registerRowNode('SubscriberPlan', {
  permissions: [Permission.SQS_DONATION_PERMISSION],
  key: rowIdKey,
  read: (ctx, ids: readonly number[]) => ctx.services.sharing.subscriberPlansByIds(callerOf(ctx), ids),
  keyOf: (p) => p.id,
  view: subscriberPlanView,
});
