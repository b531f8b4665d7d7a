import { Field, ID, InputType, Int, ObjectType, registerEnumType } from 'type-graphql';
import { DomainError } from '../../errors';
import { NodeInterface, globalId } from '../../graphql/node';
import { connectionTypes } from '../../graphql/relay';
import { DateTimeScalar, DecimalScalar, MsisdnScalar, SafeIntScalar } from '../../graphql/scalars';
import type { Money } from '../../lib/money';
import { userErrorType } from '../../graphql/payload';
import { QuotaType, UnitMeteringType } from './sharing.enums';
import { PlanDefinitionRow, SubscriberPlanRow } from './sharing.rows';
import { DonationType } from './sharing.types';

/**
 * GraphQL types of plan definitions and subscriber plans (CONTRACT §5, §9; docs/graphql.md): both are
 * entities (`Node`, global `id`); their numeric ids are fields named for what they are
 * (`planDefinitionId`, `planId` = the REST `donorPlanId`).
 */

const UNIT = 'in the plan unit: bytes (volume), seconds (time) or minor currency units (credit)';

/** GraphQL view of a plan definition (CONTRACT §5). */
@ObjectType('PlanDefinition', {
  implements: NodeInterface,
  description: 'A plan definition: what a subscriber plan grants per period and how it may be shared.',
})
export class PlanDefinitionType {
  @Field(() => ID, { description: 'Opaque global id (pass it to `node(id:)`).' })
  id!: string;
  @Field(() => Int, {
    description: "The definition's numeric id in the service (its `id` in release 0.1.0).",
  })
  planDefinitionId!: number;
  @Field(() => String, { description: 'Name, unique in the tenant: the key subscriber plans name it by.' })
  name!: string;
  @Field(() => UnitMeteringType, {
    description: 'What the quota counts: bytes, seconds or minor currency units.',
  })
  unitMeteringType!: UnitMeteringType;
  @Field(() => SafeIntScalar, { description: `Quota granted per period, ${UNIT}.` })
  unitAmount!: number;
  @Field(() => Boolean, { description: 'Whether the plan may be shared (donated from).' })
  shareable!: boolean;
  @Field(() => Boolean, { description: 'Whether the plan renews (and may carry a recurring donation).' })
  recurring!: boolean;
  @Field(() => QuotaType, { description: 'The quotaType donations from this plan must use.' })
  shareQuotaType!: QuotaType;
  @Field(() => Int, { description: 'Distinct recipients allowed per period (a count).' })
  maxRecipients!: number;
  @Field(() => DecimalScalar, {
    nullable: true,
    description:
      "Price in the subscriber's currency (exact decimal) at which the captive portal offers this plan; null: not on offer.",
  })
  price!: Money | null;
}

/** GraphQL view of a subscriber plan (`donorPlanId`). */
@ObjectType('SubscriberPlan', {
  implements: NodeInterface,
  description: "A subscriber's plan instance; its `planId` is the donorPlanId of donations.",
})
export class SubscriberPlanType {
  @Field(() => ID, { description: 'Opaque global id (pass it to `node(id:)`).' })
  id!: string;
  @Field(() => Int, {
    description: 'The plan id: the `donorPlanId` of donations and REST bodies (its `id` in release 0.1.0).',
  })
  planId!: number;
  @Field(() => MsisdnScalar, { description: "The owner's MSISDN." })
  msisdn!: string;
  @Field(() => SafeIntScalar, { description: `What remains of the current period, ${UNIT}.` })
  remaining!: number;
  @Field(() => Int, { description: 'Current period: 1 at creation, +1 at every renewal.' })
  period!: number;
  @Field(() => DateTimeScalar, { description: 'When the current period started.' })
  renewed!: string;
  @Field(() => PlanDefinitionType, { description: 'The plan definition.' })
  definition!: PlanDefinitionType;
}

/** Row → GraphQL view of a plan definition. */
export function planDefinitionView(d: PlanDefinitionRow): PlanDefinitionType {
  return {
    id: globalId('PlanDefinition', d.id),
    planDefinitionId: d.id,
    name: d.name,
    unitMeteringType: d.unitMeteringType as UnitMeteringType,
    unitAmount: d.unitAmount,
    shareable: d.shareable,
    recurring: d.recurring,
    shareQuotaType: d.shareQuotaType as QuotaType,
    maxRecipients: d.maxRecipients,
    price: d.price,
  };
}

/** Row → GraphQL view of a subscriber plan (`renewed` as ISO-8601 UTC). */
export function subscriberPlanView(p: SubscriberPlanRow): SubscriberPlanType {
  return {
    id: globalId('SubscriberPlan', p.id),
    planId: p.id,
    msisdn: p.msisdn,
    remaining: p.remaining,
    period: p.period,
    renewed: new Date(p.renewedAt).toISOString(),
    definition: planDefinitionView(p.definition),
  };
}

/** `PlanDefinitionConnection` / `PlanDefinitionEdge`. */
export const PlanDefinitionPage = connectionTypes(PlanDefinitionType, 'PlanDefinition', {
  description: "A page of the tenant's plan definitions, in creation order.",
  totalCount: 'Plan definitions of the tenant, all pages.',
});

/** `SubscriberPlanConnection` / `SubscriberPlanEdge`. */
export const SubscriberPlanPage = connectionTypes(SubscriberPlanType, 'SubscriberPlan', {
  description: "A page of a subscriber's plans, by planId.",
  totalCount: "The subscriber's plans, all pages (at most MAX_PLANS_PER_SUBSCRIBER).",
});

/** ADMIN: a plan definition to create or update by name. */
@InputType('PlanDefinitionInput', { description: 'A plan definition to create or update by name.' })
export class PlanDefinitionInputType {
  @Field(() => String, { description: 'Name, unique in the tenant (1-128 characters, not blank).' })
  name!: string;
  @Field(() => UnitMeteringType, { description: 'What the quota counts.' })
  unitMeteringType!: UnitMeteringType;
  @Field(() => SafeIntScalar, { description: `Quota per period, ${UNIT}; not negative.` })
  unitAmount!: number;
  @Field(() => Boolean, { description: 'May be shared.' })
  shareable!: boolean;
  @Field(() => Boolean, { description: 'Renews, may carry a recurring donation.' })
  recurring!: boolean;
  @Field(() => QuotaType, { description: 'The quotaType donations from this plan must use.' })
  shareQuotaType!: QuotaType;
  @Field(() => Int, { nullable: true, description: 'Distinct recipients per period, 1-1000 (absent: 5).' })
  maxRecipients?: number | null;
  @Field(() => DecimalScalar, {
    nullable: true,
    description:
      "Price in the subscriber's currency (exact decimal, not negative) at which the captive portal offers the plan; absent or null: not on offer (an update without it withdraws the offer).",
  })
  price?: Money | null;
}

/** ADMIN: a subscriber plan to create or update by its plan id. */
@InputType('SubscriberPlanInput', { description: 'A subscriber plan to create or update by its plan id.' })
export class SubscriberPlanInputType {
  @Field(() => Int, { description: 'The plan id (`planId`, the donorPlanId), 1-2147483647.' })
  id!: number;
  @Field(() => MsisdnScalar, { description: "The owner's MSISDN (a subscriber of the tenant)." })
  msisdn!: string;
  @Field(() => String, { description: 'The plan definition, by name.' })
  planDefinition!: string;
  @Field(() => SafeIntScalar, {
    description: `Remaining quota of the current period, ${UNIT}; not negative.`,
  })
  remaining!: number;
}

/** What a plan write was refused for (`PlanUserError.code`). */
export enum PlanErrorCode {
  INVALID = 'INVALID',
  SUBSCRIBER_NOT_FOUND = 'SUBSCRIBER_NOT_FOUND',
  PLAN_DEFINITION_NOT_FOUND = 'PLAN_DEFINITION_NOT_FOUND',
  PLAN_ID_TAKEN = 'PLAN_ID_TAKEN',
  PLAN_NOT_FOUND = 'PLAN_NOT_FOUND',
}

registerEnumType(PlanErrorCode, {
  name: 'PlanErrorCode',
  description: 'Why a plan definition or subscriber plan write was refused.',
  valuesConfig: {
    INVALID: { description: 'An input field is out of range; `field` names it.' },
    SUBSCRIBER_NOT_FOUND: { description: 'The msisdn is not a subscriber of your tenant.' },
    PLAN_DEFINITION_NOT_FOUND: { description: 'No plan definition of your tenant has that name.' },
    PLAN_ID_TAKEN: { description: "The plan id is another tenant's plan." },
    PLAN_NOT_FOUND: { description: 'No plan of your tenant has that plan id (legacy errorCode 8).' },
  },
});

/** `PlanUserError`: the user error of every plan mutation. */
export const PlanUserError = userErrorType<PlanErrorCode>(
  'PlanUserError',
  PlanErrorCode,
  'Why a plan definition or subscriber plan write was refused.',
);

/** The {@link PlanErrorCode} of a refusal of the plan services. */
export function planCodeOf(err: DomainError): PlanErrorCode {
  switch (err.code) {
    case 'NOT_FOUND': {
      if (err.extensions.errorCode === 8) return PlanErrorCode.PLAN_NOT_FOUND;
      return err.message.startsWith('plan definition')
        ? PlanErrorCode.PLAN_DEFINITION_NOT_FOUND
        : PlanErrorCode.SUBSCRIBER_NOT_FOUND;
    }
    case 'CONFLICT':
      return PlanErrorCode.PLAN_ID_TAKEN;
    default:
      return PlanErrorCode.INVALID;
  }
}

/** `upsertPlanDefinition`'s payload. */
@ObjectType('UpsertPlanDefinitionPayload', { description: 'The plan definition written, or why not.' })
export class UpsertPlanDefinitionPayload {
  @Field(() => PlanDefinitionType, {
    nullable: true,
    description: 'The definition as stored; null when refused.',
  })
  planDefinition?: PlanDefinitionType | null;
  @Field(() => [PlanUserError], { description: 'Why the write was refused; empty on success.' })
  userErrors!: InstanceType<typeof PlanUserError>[];
}

/** `upsertSubscriberPlan`'s payload. */
@ObjectType('UpsertSubscriberPlanPayload', { description: 'The subscriber plan written, or why not.' })
export class UpsertSubscriberPlanPayload {
  @Field(() => SubscriberPlanType, { nullable: true, description: 'The plan as stored; null when refused.' })
  subscriberPlan?: SubscriberPlanType | null;
  @Field(() => [PlanUserError], { description: 'Why the write was refused; empty on success.' })
  userErrors!: InstanceType<typeof PlanUserError>[];
}

/** `renewSubscriberPlan`'s payload: the renewed plan and the recurring donation it executed. */
@ObjectType('RenewSubscriberPlanPayload', {
  description: 'A renewed plan and the recurring donation the renewal executed, or why it was refused.',
})
export class RenewSubscriberPlanPayload {
  @Field(() => SubscriberPlanType, {
    nullable: true,
    description: 'The plan after renewal and donation; null when refused.',
  })
  subscriberPlan?: SubscriberPlanType | null;
  @Field(() => SubscriberPlanType, {
    nullable: true,
    deprecationReason: 'use subscriberPlan',
    description: 'The plan after renewal and donation (the former `PlanRenewal.plan`).',
  })
  plan?: SubscriberPlanType | null;
  @Field(() => DonationType, {
    nullable: true,
    description: 'The recurring donation executed; null when the plan has none or the renewal was refused.',
  })
  donation?: DonationType | null;
  @Field(() => [PlanUserError], { description: 'Why the renewal was refused; empty on success.' })
  userErrors!: InstanceType<typeof PlanUserError>[];
}
