import { SafeIntResolver } from 'graphql-scalars';
import { Field, ObjectType } from 'type-graphql';

/** A balance change pushed to `balanceChanged` subscribers (issue 12 part 6). */
@ObjectType('BalanceChange', {
  description:
    'A committed change of a subscriber balance: a charge, a refund or an ADMIN adjustment, from any gateway instance.',
})
export class BalanceChangeType {
  @Field(() => String, { description: 'The event id (ULID), the AMQP `message_id` of the same event.' })
  eventId!: string;
  @Field(() => String, {
    description: '`charge` (processRating), `refund` (processRefund) or `adjustment` (adjustBalance).',
  })
  kind!: string;
  @Field(() => String, {
    nullable: true,
    description: 'The operationId of a charge or refund; null for an adjustment.',
  })
  operationId!: string | null;
  @Field(() => String, { description: 'The subscriber, canonical MSISDN (digits, no `+`).' })
  msisdn!: string;
  @Field(() => String, {
    description:
      'Exact decimal amount: charged (charge) or credited back (refund), non-negative; the signed delta applied (adjustment).',
  })
  amount!: string;
  @Field(() => String, {
    description: 'Exact decimal balance after the change (negative for a postpaid account in debt).',
  })
  balance!: string;
  @Field(() => String, { description: 'ISO 4217 currency of amount and balance.' })
  currency!: string;
  @Field(() => SafeIntResolver, { description: 'When the change was committed, Unix epoch seconds.' })
  occurredAt!: number;
}

/** A quota grant pushed to `quotaReceived` subscribers (issue 12 part 6). */
@ObjectType('QuotaReceived', {
  description:
    'Quota a recipient received from a donation (one-time or recurring, e.g. executed by a plan renewal), from any gateway instance.',
})
export class QuotaReceivedType {
  @Field(() => String, { description: 'The event id (ULID), the AMQP `message_id` of the same event.' })
  eventId!: string;
  @Field(() => String, { description: 'The donation that granted the quota.' })
  donationId!: string;
  @Field(() => String, { description: 'The recipient, canonical MSISDN.' })
  recipient!: string;
  @Field(() => String, { description: 'The donor, canonical MSISDN.' })
  donor!: string;
  @Field(() => SafeIntResolver, {
    description: 'Quota granted, in `unit`: bytes (volume), seconds (time) or minor currency units (credit).',
  })
  amount!: number;
  @Field(() => String, {
    description: "The plan definition's unit metering type: `volume`, `time` or `credit`.",
  })
  unit!: string;
  @Field(() => String, { description: "The plan definition's name." })
  planName!: string;
  @Field(() => String, { description: 'The plan definition the quota belongs to.' })
  planDefinitionId!: string;
  @Field(() => String, { description: "The donor's subscriber plan the quota came from." })
  donorPlanId!: string;
  @Field(() => SafeIntResolver, { description: 'When the donation was committed, Unix epoch seconds.' })
  occurredAt!: number;
}
