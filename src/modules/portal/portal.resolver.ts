import { Arg, Args, Authorized, Ctx, FieldResolver, Mutation, Query, Resolver, Root } from 'type-graphql';
import { Permission } from '../../auth/permissions';
import { SUBSCRIBER } from '../../auth/subscriber';
import { GatewayContext, callerOf, subscriberOf } from '../../graphql/context';
import { globalId, registerRowNode, rowIdKey } from '../../graphql/node';
import { mutationPayload } from '../../graphql/payload';
import { Connection, ConnectionArgs } from '../../graphql/relay';
import { DomainError, UnauthenticatedError } from '../../errors';
import { UnitMeteringType } from '../sharing/sharing.enums';
import { PlanDefinitionRow, SubscriberPlanRow } from '../sharing/sharing.rows';
import { SubscriberStatusValue } from '../subscribers/subscriber.types';
import { maskMsisdn } from './portal.service';
import {
  PlanOfferPage,
  PlanOfferType,
  PortalPlanPage,
  PortalPlanType,
  PortalSubscriberType,
  PurchasePlanErrorCode,
  PurchasePlanInputType,
  PurchasePlanPayload,
} from './portal.types';
import { PurchaseRefusal, PurchaseResult } from './purchase';

/** The offer view of a priced plan definition in `currency` (its id names both). */
function offerView(d: PlanDefinitionRow, currency: string): PlanOfferType {
  return {
    id: globalId('PlanOffer', `${d.id}:${currency}`),
    planDefinitionId: d.id,
    name: d.name,
    unitMeteringType: d.unitMeteringType as UnitMeteringType,
    unitAmount: d.unitAmount,
    price: d.price!,
    currency,
    recurring: d.recurring,
  };
}

/** The portal view of a subscriber plan. */
function planView(p: SubscriberPlanRow): PortalPlanType {
  return {
    id: globalId('PortalPlan', p.id),
    planId: p.id,
    name: p.definition.name,
    unitMeteringType: p.definition.unitMeteringType as UnitMeteringType,
    unitAmount: p.definition.unitAmount,
    remaining: p.remaining,
    period: p.period,
    renewed: new Date(p.renewedAt).toISOString(),
  };
}

/** The portal view of a purchase's plan (as the idempotency record keeps it). */
function purchasedView(r: PurchaseResult): PortalPlanType {
  return {
    id: globalId('PortalPlan', r.plan.planId),
    ...r.plan,
    unitMeteringType: r.plan.unitMeteringType as UnitMeteringType,
  };
}

/** The {@link PurchasePlanErrorCode} of a refusal of `purchasePlan`. */
function purchaseCodeOf(err: DomainError): PurchasePlanErrorCode {
  if (err instanceof PurchaseRefusal) return PurchasePlanErrorCode[err.refusal];
  if (err.code === 'CONFLICT') return PurchasePlanErrorCode.IDEMPOTENCY_KEY_IN_USE;
  if (err.code === 'UNPROCESSABLE') return PurchasePlanErrorCode.IDEMPOTENCY_KEY_REUSED;
  return PurchasePlanErrorCode.INVALID;
}

function mapEdges<T, V>(c: Connection<T>, view: (t: T) => V): Connection<V> {
  return { ...c, edges: c.edges.map((e) => ({ cursor: e.cursor, node: view(e.node) })) };
}

/**
 * The captive portal's fields (docs/portal.md): `me` and `purchasePlan` need a subscriber token
 * (`@Authorized(SUBSCRIBER)`: API-client credentials get FORBIDDEN), and act only on the token's
 * own subscriber: they take no MSISDN.
 */
@Resolver(() => PortalSubscriberType)
export class PortalResolver {
  @Authorized(SUBSCRIBER)
  @Query(() => PortalSubscriberType, {
    description:
      'The subscriber of the captive-portal token sent as `authorization: Bearer <access_token>`: its balance, offers and plans. Only with a subscriber token (FORBIDDEN with API-client credentials).',
  })
  async me(@Ctx() ctx: GatewayContext): Promise<PortalSubscriberType> {
    const p = subscriberOf(ctx);
    const sub = await ctx.services.portal.subscriber(p);
    if (!sub) throw new UnauthenticatedError('the subscriber of this token no longer exists');
    return {
      maskedMsisdn: maskMsisdn(sub.msisdn),
      balance: sub.balance,
      currency: sub.currency,
      status: sub.status as SubscriberStatusValue,
      msisdn: sub.msisdn,
      tenantId: sub.tenantId,
    };
  }

  @FieldResolver(() => PlanOfferPage.Connection, {
    description:
      "The plans on offer: the plan definitions of the subscriber's tenant that have a price, in the order they were defined.",
  })
  async offers(
    @Root() me: PortalSubscriberType,
    @Args(() => ConnectionArgs) paging: ConnectionArgs,
    @Ctx() ctx: GatewayContext,
  ): Promise<Connection<PlanOfferType>> {
    const page = await ctx.services.portal.offers(subscriberOf(ctx), paging);
    return mapEdges(page, (d) => offerView(d, me.currency));
  }

  @FieldResolver(() => PortalPlanPage.Connection, { description: "The subscriber's plans, newest first." })
  async plans(
    @Args(() => ConnectionArgs) paging: ConnectionArgs,
    @Ctx() ctx: GatewayContext,
  ): Promise<Connection<PortalPlanType>> {
    return mapEdges(await ctx.services.portal.plans(subscriberOf(ctx), paging), planView);
  }

  @Authorized(SUBSCRIBER)
  @Mutation(() => PurchasePlanPayload, {
    description:
      "Buys an offer for the token's subscriber: one transaction charges the price (ledger entry, charging CDR, charge.completed event) and provisions a new plan. Exactly once per idempotencyKey. Refusals (INSUFFICIENT_FUNDS, SUBSCRIBER_INACTIVE, OFFER_WITHDRAWN, ...) are in `userErrors` and change nothing. Only with a subscriber token.",
  })
  purchasePlan(
    @Arg('input', () => PurchasePlanInputType, { description: 'The offer and the purchase attempt key.' })
    input: PurchasePlanInputType,
    @Ctx() ctx: GatewayContext,
  ) {
    return mutationPayload(
      ctx,
      () => ctx.services.portal.purchase(subscriberOf(ctx), input),
      (r) => ({ plan: purchasedView(r), balance: r.balance }),
      'PurchasePlanError',
      purchaseCodeOf,
    );
  }
}

/** A plan offer's node key: `<plan definition id>:<currency>` (the currency the offer is priced in). */
const OFFER_KEY = /^([1-9]\d{0,9}):([A-Z]{3})$/;

registerRowNode('PlanOffer', {
  permissions: [Permission.ADMIN],
  key: (key) => {
    const m = OFFER_KEY.exec(key);
    return m ? Number(m[1]) : null;
  },
  read: (ctx, ids: readonly number[]) => ctx.services.portal.offersByIds(callerOf(ctx).tenantId, ids),
  keyOf: (d) => d.id,
  view: (d, key) => offerView(d, OFFER_KEY.exec(key)![2]),
});

registerRowNode('PortalPlan', {
  permissions: [Permission.ADMIN],
  key: rowIdKey,
  read: (ctx, ids: readonly number[]) => ctx.services.portal.plansByIds(callerOf(ctx).tenantId, ids),
  keyOf: (p) => p.id,
  view: planView,
});
