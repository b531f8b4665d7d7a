import { Field, ID, InputType, Int, ObjectType, registerEnumType } from 'type-graphql';
import { NodeInterface } from '../../graphql/node';
import { userErrorType } from '../../graphql/payload';
import { connectionTypes } from '../../graphql/relay';
import { DateTimeScalar, DecimalScalar, SafeIntScalar } from '../../graphql/scalars';
import type { Money } from '../../lib/money';
import { UnitMeteringType } from '../sharing/sharing.enums';
import { SubscriberStatusValue } from '../subscribers/subscriber.types';

/**
 * GraphQL types of the captive portal (docs/portal.md, docs/graphql.md conventions): what a
 * subscriber token reads (`me`: itself, its offers, its plans) and `purchasePlan`'s payload.
 */

const UNIT = 'in the plan unit: bytes (volume), seconds (time) or minor currency units (credit)';

/** A plan definition on offer in the subscriber's portal (a plan definition with a price). */
@ObjectType('PlanOffer', {
  implements: NodeInterface,
  description:
    "A plan on offer in the captive portal: a plan definition of the subscriber's tenant with a price.",
})
export class PlanOfferType {
  @Field(() => ID, { description: 'Opaque, stable global id of this offer.' })
  id!: string;
  @Field(() => Int, { description: "The plan definition's numeric id: pass it to `purchasePlan`." })
  planDefinitionId!: number;
  @Field(() => String, { description: "The plan definition's name." })
  name!: string;
  @Field(() => UnitMeteringType, {
    description: 'What the quota counts: bytes, seconds or minor currency units.',
  })
  unitMeteringType!: UnitMeteringType;
  @Field(() => SafeIntScalar, { description: `Quota a purchase grants, ${UNIT}.` })
  unitAmount!: number;
  @Field(() => DecimalScalar, { description: 'Price, exact decimal in `currency`.' })
  price!: Money | string;
  @Field(() => String, { description: "ISO 4217 currency of the price (the subscriber's)." })
  currency!: string;
  @Field(() => Boolean, { description: 'Whether the plan renews every period.' })
  recurring!: boolean;
}

/** One of the subscriber's plans as the portal shows it. */
@ObjectType('PortalPlan', {
  implements: NodeInterface,
  description: "One of the subscriber's plans: what it grants and what remains of its current period.",
})
export class PortalPlanType {
  @Field(() => ID, { description: 'Opaque, stable global id of this plan.' })
  id!: string;
  @Field(() => Int, { description: 'The plan id (the `donorPlanId` of donations).' })
  planId!: number;
  @Field(() => String, { description: "The plan definition's name." })
  name!: string;
  @Field(() => UnitMeteringType, {
    description: 'What the quota counts: bytes, seconds or minor currency units.',
  })
  unitMeteringType!: UnitMeteringType;
  @Field(() => SafeIntScalar, { description: `Quota granted per period, ${UNIT}.` })
  unitAmount!: number;
  @Field(() => SafeIntScalar, { description: `What remains of the current period, ${UNIT}.` })
  remaining!: number;
  @Field(() => Int, { description: 'Current period: 1 at purchase, +1 at every renewal.' })
  period!: number;
  @Field(() => DateTimeScalar, { description: 'When the current period started.' })
  renewed!: string;
}

/** `PlanOfferConnection` / `PlanOfferEdge`. */
export const PlanOfferPage = connectionTypes(PlanOfferType, 'PlanOffer', {
  description: "The plans on offer in the subscriber's portal, in the order they were defined.",
});

/** `PortalPlanConnection` / `PortalPlanEdge`. */
export const PortalPlanPage = connectionTypes(PortalPlanType, 'PortalPlan', {
  description: "The subscriber's plans, newest first.",
});

/** The subscriber a portal token authenticates (`me`). */
@ObjectType('PortalSubscriber', {
  description:
    'The subscriber of the captive-portal token (`authorization: Bearer`): what its portal page shows. No MSISDN in clear.',
})
export class PortalSubscriberType {
  @Field(() => String, {
    description: 'The MSISDN with every digit but the last four replaced by "•", e.g. "•••••••1234".',
  })
  maskedMsisdn!: string;
  @Field(() => DecimalScalar, { description: 'Balance, exact decimal in `currency`.' })
  balance!: Money | string;
  @Field(() => String, { description: 'ISO 4217 currency of the balance and the prices.' })
  currency!: string;
  @Field(() => SubscriberStatusValue, { description: 'Whether the account can buy (ACTIVE) or not.' })
  status!: SubscriberStatusValue;
  /** Canonical MSISDN, for the connection resolvers; not a GraphQL field. */
  msisdn!: string;
  /** Tenant id, for the connection resolvers; not a GraphQL field. */
  tenantId!: number;
}

/** The purchase of one offer. */
@InputType('PurchasePlanInput', { description: 'An offer to buy, and the key of this purchase attempt.' })
export class PurchasePlanInputType {
  @Field(() => Int, { description: "The offer's `planDefinitionId`." })
  planDefinitionId!: number;
  @Field(() => String, {
    description:
      'One key per purchase attempt (1-64 characters of A-Z a-z 0-9 . _ : -, e.g. a UUID), reused when the same attempt is retried: the same key with the same input answers the first purchase again and charges nothing (for 24 h); with another input IDEMPOTENCY_KEY_REUSED; while the first still runs IDEMPOTENCY_KEY_IN_USE.',
  })
  idempotencyKey!: string;
}

/** Why a purchase was refused (`PurchasePlanError.code`). */
export enum PurchasePlanErrorCode {
  INSUFFICIENT_FUNDS = 'INSUFFICIENT_FUNDS',
  SUBSCRIBER_INACTIVE = 'SUBSCRIBER_INACTIVE',
  OFFER_WITHDRAWN = 'OFFER_WITHDRAWN',
  PLAN_LIMIT_REACHED = 'PLAN_LIMIT_REACHED',
  IDEMPOTENCY_KEY_REUSED = 'IDEMPOTENCY_KEY_REUSED',
  IDEMPOTENCY_KEY_IN_USE = 'IDEMPOTENCY_KEY_IN_USE',
  INVALID = 'INVALID',
}

registerEnumType(PurchasePlanErrorCode, {
  name: 'PurchasePlanErrorCode',
  description: 'Why a purchase was refused; nothing was charged or provisioned.',
  valuesConfig: {
    INSUFFICIENT_FUNDS: { description: 'A prepaid balance does not cover the price.' },
    SUBSCRIBER_INACTIVE: { description: 'The subscriber is not active (inactive or suspended).' },
    OFFER_WITHDRAWN: { description: 'The plan definition is gone or no longer has a price.' },
    PLAN_LIMIT_REACHED: { description: 'The subscriber already holds MAX_PLANS_PER_SUBSCRIBER plans.' },
    IDEMPOTENCY_KEY_REUSED: {
      description: 'The idempotency key was used in the last 24 h for another purchase (other input).',
    },
    IDEMPOTENCY_KEY_IN_USE: {
      description: 'A purchase with this idempotency key is still running; retry it with the same key.',
    },
    INVALID: { description: 'An input field is malformed; `field` names it.' },
  },
});

/** `PurchasePlanError`: the user error of `purchasePlan`. */
export const PurchasePlanError = userErrorType<PurchasePlanErrorCode>(
  'PurchasePlanError',
  PurchasePlanErrorCode,
  'Why a purchase was refused; nothing was charged or provisioned.',
);

/** `purchasePlan`'s payload. */
@ObjectType('PurchasePlanPayload', { description: 'The plan bought and the balance after, or why not.' })
export class PurchasePlanPayload {
  @Field(() => PortalPlanType, { nullable: true, description: 'The plan provisioned; null when refused.' })
  plan?: PortalPlanType | null;
  @Field(() => DecimalScalar, {
    nullable: true,
    description:
      "The balance after the purchase, exact decimal in the subscriber's currency; null when refused.",
  })
  balance?: Money | string | null;
  @Field(() => [PurchasePlanError], { description: 'Why the purchase was refused; empty on success.' })
  userErrors!: InstanceType<typeof PurchasePlanError>[];
}
