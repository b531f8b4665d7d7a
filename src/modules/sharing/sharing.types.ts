import { SafeIntResolver } from 'graphql-scalars';
import { Field, ID, InputType, Int, ObjectType } from 'type-graphql';
import { NodeInterface } from '../../graphql/node';
import { MsisdnScalar, SafeIntScalar } from '../../graphql/scalars';
import { DonationRecipientOutcome } from './donation-outcome';
import { QuotaType, UnitMeteringType } from './sharing.enums';

const UNIT = 'in the plan unit: bytes (volume), seconds (time) or minor currency units (credit)';

/** GraphQL view of a plan definition (CONTRACT §5). */
@ObjectType('PlanDefinition', {
  description: 'A plan definition: what a subscriber plan grants per period and how it may be shared.',
})
export class PlanDefinitionType {
  @Field(() => Int, { description: 'Internal id.' })
  id!: number;
  @Field(() => String, { description: 'Name, unique in the tenant.' })
  name!: string;
  @Field(() => String, { description: '`volume` (bytes), `time` (seconds) or `credit` (minor units).' })
  unitMeteringType!: string;
  @Field(() => SafeIntResolver, { description: `Quota granted per period, ${UNIT}.` })
  unitAmount!: number;
  @Field(() => Boolean, { description: 'Whether the plan may be shared.' })
  shareable!: boolean;
  @Field(() => Boolean, { description: 'Whether the plan renews (and may carry a recurring donation).' })
  recurring!: boolean;
  @Field(() => String, {
    description: '`amount` or `share`: the quotaType donations from this plan must use.',
  })
  shareQuotaType!: string;
  @Field(() => Int, { description: 'Distinct recipients allowed per period.' })
  maxRecipients!: number;
}

/** GraphQL view of a subscriber plan (`donorPlanId`). */
@ObjectType('SubscriberPlan', {
  description: "A subscriber's plan instance; its id is the donorPlanId of donations.",
})
export class SubscriberPlanType {
  @Field(() => Int, { description: 'The plan id (donorPlanId).' })
  id!: number;
  @Field(() => String, { description: 'Owner MSISDN, digits only.' })
  msisdn!: string;
  @Field(() => SafeIntResolver, { description: `What remains of the current period, ${UNIT}.` })
  remaining!: number;
  @Field(() => Int, { description: 'Current period: 1 at creation, +1 at every renewal.' })
  period!: number;
  @Field(() => String, { description: 'When the current period started, ISO-8601 UTC.' })
  renewed!: string;
  @Field(() => PlanDefinitionType, { description: 'The plan definition.' })
  definition!: PlanDefinitionType;
}

/** One recipient's result in a donation: a value inside its donation, not an entity (no id). */
@ObjectType('DonationRecipient', {
  description: "One recipient's result in a donation (spec 2.7): a part of its Donation, not an entity.",
})
export class DonationRecipientType {
  @Field(() => MsisdnScalar, { description: 'Recipient MSISDN, digits only.' })
  recipientId!: string;
  @Field(() => SafeIntScalar, {
    description:
      "The quota asked for: for `AMOUNT` in the plan's unit (bytes, seconds or minor currency units), for `SHARE` 0-10000000 (units of 10^-7 of unitAmount).",
  })
  quota!: number;
  @Field(() => SafeIntScalar, { description: `What the recipient received, ${UNIT}; 0 when it failed.` })
  granted!: number;
  @Field(() => DonationRecipientOutcome, {
    description:
      'What happened to this recipient; `errorCode` is the same outcome as the numeric spec 7.2 code.',
  })
  outcome!: DonationRecipientOutcome;
  @Field(() => Int, {
    description:
      'errorCode (spec 7.2): 0 received, 1 plan limit, 3 donor itself, 12 unknown, 14 not active, 15 quota unavailable.',
  })
  errorCode!: number;
  @Field(() => String, {
    description: 'Symbolic name of errorCode, e.g. `QUOTA_UNAVAILABLE`.',
    deprecationReason: 'use `outcome`',
  })
  errorName!: string;
}

/** GraphQL view of a donation. */
@ObjectType('Donation', {
  implements: NodeInterface,
  description: "A quota donation with each recipient's result.",
})
export class DonationType {
  @Field(() => ID, {
    description:
      'Auto-assigned id (20 URL-safe characters), the same in the REST paths; also its global id for `node(id:)`.',
  })
  id!: string;
  @Field(() => MsisdnScalar, { description: 'Donor MSISDN, digits only.' })
  donorId!: string;
  @Field(() => Int, { description: 'The donor plan (its plan id, the REST `donorPlanId`).' })
  donorPlanId!: number;
  @Field(() => QuotaType, { description: "How the quotas were read; the plan's shareQuotaType." })
  quotaType!: QuotaType;
  @Field(() => String, { nullable: true, description: 'The group, for a group donation.' })
  groupId!: string | null;
  @Field(() => String, { nullable: true, description: 'The recurring donation a renewal executed, if any.' })
  recurringDonationId!: string | null;
  @Field(() => Int, {
    description: 'The donor plan period it belongs to (1 at creation, +1 at every renewal).',
  })
  period!: number;
  @Field(() => Int, {
    description:
      "Overall errorCode (spec 7.2): 0 when any recipient received quota, else the first failure (for a recurring donation refused as a whole at renewal, the refusal's code).",
  })
  errorCode!: number;
  @Field(() => String, { description: 'When it was made, ISO-8601 UTC.' })
  created!: string;
  @Field(() => [DonationRecipientType], { description: 'Every recipient in request order (at most 100).' })
  recipients!: DonationRecipientType[];
}

/** What a recipient received from one donation (an entity: `node(id:)` refetches it). */
@ObjectType('Allowance', {
  implements: NodeInterface,
  description: 'Quota a recipient received from one donation.',
})
export class AllowanceType {
  @Field(() => ID, { description: 'Opaque, stable global id.' })
  id!: string;
  @Field(() => MsisdnScalar, { description: 'Recipient MSISDN, digits only.' })
  recipientId!: string;
  @Field(() => Int, { description: 'The donor plan it came from (its plan id).' })
  donorPlanId!: number;
  @Field(() => String, { description: 'The donation (its id).' })
  donationId!: string;
  @Field(() => UnitMeteringType, { description: 'The unit of `amount`.' })
  unitMeteringType!: UnitMeteringType;
  @Field(() => SafeIntScalar, { description: `Amount received, ${UNIT}.` })
  amount!: number;
  @Field(() => Int, { description: 'The donor plan period it belongs to.' })
  period!: number;
  @Field(() => String, { description: 'When it was granted, ISO-8601 UTC.' })
  created!: string;
}

/** A group member. */
@ObjectType('GroupMember', { description: 'A group member and the quota it receives in a group donation.' })
export class GroupMemberType {
  @Field(() => String, { description: 'Member MSISDN, digits only.' })
  memberId!: string;
  @Field(() => SafeIntResolver, {
    description: "Quota in the group's quota type (share 0-10000000, or an amount).",
  })
  quota!: number;
  @Field(() => String, { description: 'When it joined, ISO-8601 UTC.' })
  joined!: string;
}

/** GraphQL view of a group (members resolved in batches). */
@ObjectType('Group', { description: 'A sharing group owned by a donor.' })
export class GroupType {
  @Field(() => String, { description: 'Auto-assigned id (20 characters).' })
  id!: string;
  @Field(() => String, { description: 'Owner MSISDN, digits only.' })
  ownerId!: string;
  @Field(() => String, { description: 'Name, unique per owner.' })
  name!: string;
  @Field(() => String, { description: '`share` (default) or `amount`: how member quotas are read.' })
  quotaType!: string;
  @Field(() => String, { description: 'Created, ISO-8601 UTC.' })
  created!: string;
  @Field(() => String, { description: 'Last change (members included), ISO-8601 UTC.' })
  updated!: string;
}

/** A page of groups. */
@ObjectType('GroupPage', { description: 'One page of groups, oldest first.' })
export class GroupPageType {
  @Field(() => [GroupType], { description: 'The groups of this page.' })
  nodes!: GroupType[];
  @Field(() => Int, { description: 'Page number, from 0.' })
  page!: number;
  @Field(() => Int, { description: 'Page size.' })
  size!: number;
  @Field(() => Int, { description: 'Groups matching, all pages.' })
  totalElements!: number;
}

/** A recipient of a recurring donation: a value inside it, not an entity. */
@ObjectType('RecurringRecipient', {
  description: 'A recipient of a recurring donation: a part of its RecurringDonation, not an entity.',
})
export class RecurringRecipientType {
  @Field(() => MsisdnScalar, { description: 'Recipient MSISDN, digits only.' })
  recipientId!: string;
  @Field(() => SafeIntScalar, {
    description:
      "Quota per renewal: for `AMOUNT` in the plan's unit (bytes, seconds or minor currency units), for `SHARE` 0-10000000 (units of 10^-7 of unitAmount).",
  })
  quota!: number;
}

/** GraphQL view of a recurring donation. */
@ObjectType('RecurringDonation', {
  implements: NodeInterface,
  description: 'A donation executed again at every renewal of its plan.',
})
export class RecurringDonationType {
  @Field(() => ID, {
    description:
      'Auto-assigned id (20 URL-safe characters), the same in the REST paths; also its global id for `node(id:)`.',
  })
  id!: string;
  @Field(() => MsisdnScalar, { description: 'Donor MSISDN, digits only.' })
  donorId!: string;
  @Field(() => Int, { description: 'The donor plan (its plan id, the REST `donorPlanId`).' })
  donorPlanId!: number;
  @Field(() => QuotaType, { description: "How the quotas are read; the plan's shareQuotaType." })
  quotaType!: QuotaType;
  @Field(() => String, {
    nullable: true,
    description: 'The group whose members receive (current members at each renewal).',
  })
  groupId!: string | null;
  @Field(() => [RecurringRecipientType], {
    nullable: true,
    description: 'Explicit recipients (at most 100), when not a group.',
  })
  recipients!: RecurringRecipientType[] | null;
  @Field(() => String, {
    nullable: true,
    description: "The donor plan's definition name (published `planName`); null if the plan is gone.",
  })
  planName!: string | null;
  @Field(() => String, { description: 'Created, ISO-8601 UTC.' })
  created!: string;
  @Field(() => String, {
    description: 'Last change, ISO-8601 UTC (a recurring donation is never changed: its creation).',
  })
  updated!: string;
}

/** The outcome of a renewal. */
@ObjectType('PlanRenewal', { description: 'A renewed plan and the recurring donation it executed.' })
export class PlanRenewalType {
  @Field(() => SubscriberPlanType, { description: 'The plan after renewal and donation.' })
  plan!: SubscriberPlanType;
  @Field(() => DonationType, {
    nullable: true,
    description: 'The recurring donation executed; null when the plan has none.',
  })
  donation!: DonationType | null;
}

/** ADMIN: a plan definition to create or update by name. */
@InputType('PlanDefinitionInput', { description: 'A plan definition to create or update by name.' })
export class PlanDefinitionInputType {
  @Field(() => String, { description: 'Name, unique in the tenant (1-128 characters).' })
  name!: string;
  @Field(() => String, { description: '`volume`, `time` or `credit`.' })
  unitMeteringType!: string;
  @Field(() => SafeIntResolver, { description: `Quota per period, ${UNIT}.` })
  unitAmount!: number;
  @Field(() => Boolean, { description: 'May be shared.' })
  shareable!: boolean;
  @Field(() => Boolean, { description: 'Renews, may carry a recurring donation.' })
  recurring!: boolean;
  @Field(() => String, { description: '`amount` or `share`.' })
  shareQuotaType!: string;
  @Field(() => Int, { nullable: true, description: 'Distinct recipients per period, 1-1000 (default 5).' })
  maxRecipients?: number | null;
}

/** ADMIN: a subscriber plan to create or update by id. */
@InputType('SubscriberPlanInput', { description: 'A subscriber plan to create or update by id.' })
export class SubscriberPlanInputType {
  @Field(() => Int, { description: 'Plan id (the donorPlanId), 1-2147483647.' })
  id!: number;
  @Field(() => String, { description: 'Owner MSISDN (must be a subscriber of the tenant).' })
  msisdn!: string;
  @Field(() => String, { description: 'Plan definition name.' })
  planDefinition!: string;
  @Field(() => SafeIntResolver, { description: `Remaining quota of the current period, ${UNIT}.` })
  remaining!: number;
}
