import { Directive, Field, ID, Int, ObjectType } from 'type-graphql';
import { NodeInterface } from '../../graphql/node';
import { DateTimeScalar, MsisdnScalar, SafeIntScalar } from '../../graphql/scalars';
import { DonationRecipientOutcome } from './donation-outcome';
import { QuotaType, UnitMeteringType } from './sharing.enums';

const UNIT = 'in the plan unit: bytes (volume), seconds (time) or minor currency units (credit)';

/** One recipient's result in a donation: a value inside its donation, not an entity (no id). */
@ObjectType('DonationRecipient', {
  description: "One recipient's result in a donation: a part of its Donation, not an entity.",
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
      'What happened to this recipient; `errorCode` is the same outcome as the numeric legacy code.',
  })
  outcome!: DonationRecipientOutcome;
  @Field(() => Int, {
    description:
      'Legacy errorCode: 0 received, 1 plan limit, 3 donor itself, 12 unknown, 14 not active, 15 quota unavailable.',
  })
  errorCode!: number;
  @Field(() => String, {
    description: 'Symbolic name of errorCode, e.g. `QUOTA_UNAVAILABLE`.',
    deprecationReason: 'use `outcome`',
  })
  errorName!: string;
}

/** GraphQL view of a donation. */
@Directive('@key(fields: "id")')
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
      "Overall legacy errorCode: 0 when any recipient received quota, else the first failure (for a recurring donation refused as a whole at renewal, the refusal's code).",
  })
  errorCode!: number;
  @Field(() => DateTimeScalar, { description: 'When it was made.' })
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
  @Field(() => DateTimeScalar, { description: 'When it was granted.' })
  created!: string;
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
@Directive('@key(fields: "id")')
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
  @Field(() => DateTimeScalar, { description: 'Created.' })
  created!: string;
  @Field(() => DateTimeScalar, {
    description: 'Last change (a recurring donation is never changed: its creation).',
  })
  updated!: string;
}
