import { SafeIntResolver } from 'graphql-scalars';
import { Field, Int, ObjectType } from 'type-graphql';

const UNIT = 'in the plan unit: bytes (volume), seconds (time) or minor currency units (credit)';

/** One recipient's result in a donation. */
@ObjectType('DonationRecipient', { description: "One recipient's result in a donation (spec 2.7)." })
export class DonationRecipientType {
  @Field(() => String, { description: 'Recipient MSISDN, digits only.' })
  recipientId!: string;
  @Field(() => SafeIntResolver, {
    description: 'The quota asked for (amount in the plan unit, or share 0-10000000).',
  })
  quota!: number;
  @Field(() => SafeIntResolver, { description: `What the recipient received, ${UNIT}; 0 when it failed.` })
  granted!: number;
  @Field(() => Int, {
    description:
      'errorCode (spec 7.2): 0 received, 1 plan limit, 3 donor itself, 12 unknown, 14 not active, 15 quota unavailable.',
  })
  errorCode!: number;
  @Field(() => String, { description: 'Symbolic name of errorCode, e.g. `QUOTA_UNAVAILABLE`.' })
  errorName!: string;
}

/** GraphQL view of a donation. */
@ObjectType('Donation', { description: "A quota donation with each recipient's result." })
export class DonationType {
  @Field(() => String, { description: 'Auto-assigned id (20 characters).' })
  id!: string;
  @Field(() => String, { description: 'Donor MSISDN, digits only.' })
  donorId!: string;
  @Field(() => Int, { description: 'The donor plan.' })
  donorPlanId!: number;
  @Field(() => String, { description: '`amount` or `share`.' })
  quotaType!: string;
  @Field(() => String, { nullable: true, description: 'The group, for a group donation.' })
  groupId!: string | null;
  @Field(() => String, { nullable: true, description: 'The recurring donation a renewal executed, if any.' })
  recurringDonationId!: string | null;
  @Field(() => Int, { description: 'The donor plan period it belongs to.' })
  period!: number;
  @Field(() => Int, {
    description: 'Overall errorCode: 0 when any recipient received quota, else the first failure.',
  })
  errorCode!: number;
  @Field(() => String, { description: 'When it was made, ISO-8601 UTC.' })
  created!: string;
  @Field(() => [DonationRecipientType], { description: 'Every recipient in request order.' })
  recipients!: DonationRecipientType[];
}

/** What a recipient received from one donation. */
@ObjectType('Allowance', { description: 'Quota a recipient received from one donation.' })
export class AllowanceType {
  @Field(() => String, { description: 'Recipient MSISDN, digits only.' })
  recipientId!: string;
  @Field(() => Int, { description: 'The donor plan it came from.' })
  donorPlanId!: number;
  @Field(() => String, { description: 'The donation.' })
  donationId!: string;
  @Field(() => String, { description: '`volume`, `time` or `credit`.' })
  unitMeteringType!: string;
  @Field(() => SafeIntResolver, { description: `Amount received, ${UNIT}.` })
  amount!: number;
  @Field(() => Int, { description: 'The donor plan period it belongs to.' })
  period!: number;
  @Field(() => String, { description: 'When it was granted, ISO-8601 UTC.' })
  created!: string;
}

/** A recipient of a recurring donation. */
@ObjectType('RecurringRecipient', { description: 'A recipient of a recurring donation.' })
export class RecurringRecipientType {
  @Field(() => String, { description: 'Recipient MSISDN, digits only.' })
  recipientId!: string;
  @Field(() => SafeIntResolver, { description: 'Quota per renewal (amount in the plan unit, or share).' })
  quota!: number;
}

/** GraphQL view of a recurring donation. */
@ObjectType('RecurringDonation', { description: 'A donation executed again at every renewal of its plan.' })
export class RecurringDonationType {
  @Field(() => String, { description: 'Auto-assigned id (20 characters).' })
  id!: string;
  @Field(() => String, { description: 'Donor MSISDN, digits only.' })
  donorId!: string;
  @Field(() => Int, { description: 'The donor plan.' })
  donorPlanId!: number;
  @Field(() => String, { description: '`amount` or `share`.' })
  quotaType!: string;
  @Field(() => String, {
    nullable: true,
    description: 'The group whose members receive (current members at each renewal).',
  })
  groupId!: string | null;
  @Field(() => [RecurringRecipientType], {
    nullable: true,
    description: 'Explicit recipients, when not a group.',
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

/** A page of recurring donations. */
@ObjectType('RecurringDonationPage', { description: 'One page of recurring donations, oldest first.' })
export class RecurringDonationPageType {
  @Field(() => [RecurringDonationType], { description: 'The recurring donations of this page.' })
  nodes!: RecurringDonationType[];
  @Field(() => Int, { description: 'Page number, from 0.' })
  page!: number;
  @Field(() => Int, { description: 'Page size (100).' })
  size!: number;
  @Field(() => Int, { description: 'Recurring donations matching, all pages.' })
  totalElements!: number;
}
