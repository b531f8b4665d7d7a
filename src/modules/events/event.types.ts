import { Field, ID, Int, ObjectType } from 'type-graphql';
import type { Money } from '../../lib/money';
import { NodeInterface } from '../../graphql/node';
import { DateTimeScalar, DecimalScalar, MsisdnScalar, SafeIntScalar } from '../../graphql/scalars';
import { ChargeKindValue } from '../charging/charging.types';
import { UnitMeteringType } from '../sharing/sharing.enums';

/*
 * The GraphQL subscription payloads are entities (they implement `Node`): each is one
 * recorded, immutable fact with a stable unique id (the outbox event's ULID, also the AMQP
 * `message_id` of the same event), which an app keeps in lists (a notification feed, a
 * statement); Apollo's InMemoryCache then normalises each event under its own id instead of
 * overwriting the subscription field's last value, and `node(id:)` refetches one while the outbox
 * holds it.
 */

/** A balance change pushed to `balanceChanged` subscribers (GraphQL subscription over graphql-ws). */
@ObjectType('BalanceChange', {
  implements: NodeInterface,
  description:
    'A committed change of a subscriber balance: a charge, a refund or an ADMIN adjustment, from any gateway instance. An entity: `id` refetches it with `node(id:)` while the outbox keeps the event.',
})
export class BalanceChangeType {
  @Field(() => ID, { description: 'Opaque, stable global id of this balance change.' })
  id!: string;
  @Field(() => String, { description: 'The event id (ULID), the AMQP `message_id` of the same event.' })
  eventId!: string;
  @Field(() => ChargeKindValue, {
    description: 'What changed the balance: the kind of the ledger entry it wrote.',
  })
  kind!: ChargeKindValue;
  @Field(() => String, {
    nullable: true,
    description: 'The operationId of a charge or refund; null for an adjustment.',
  })
  operationId!: string | null;
  @Field(() => MsisdnScalar, { description: 'The subscriber.' })
  msisdn!: string;
  @Field(() => DecimalScalar, {
    description:
      'Exact amount in `currency`: charged (CHARGE) or credited back (REFUND), non-negative; the signed delta applied (ADJUSTMENT).',
  })
  amount!: Money | string;
  @Field(() => DecimalScalar, {
    description: 'Exact balance in `currency` after the change (negative for a postpaid account in debt).',
  })
  balance!: Money | string;
  @Field(() => String, { description: 'ISO 4217 currency of amount and balance.' })
  currency!: string;
  @Field(() => DateTimeScalar, { description: 'When the change was committed.' })
  occurredAt!: string;
}

/** A quota grant pushed to `quotaReceived` subscribers (GraphQL subscription over graphql-ws). */
@ObjectType('QuotaReceived', {
  implements: NodeInterface,
  description:
    'Quota a recipient received from a donation (one-time or recurring, e.g. executed by a plan renewal), from any gateway instance. An entity: `id` refetches it with `node(id:)` while the outbox keeps the event.',
})
export class QuotaReceivedType {
  @Field(() => ID, { description: 'Opaque, stable global id of this quota grant.' })
  id!: string;
  @Field(() => String, { description: 'The event id (ULID), the AMQP `message_id` of the same event.' })
  eventId!: string;
  @Field(() => ID, { description: 'The donation that granted the quota (its `Donation.id`).' })
  donationId!: string;
  @Field(() => MsisdnScalar, { description: 'The recipient.' })
  recipient!: string;
  @Field(() => MsisdnScalar, { description: 'The donor.' })
  donor!: string;
  @Field(() => SafeIntScalar, {
    description: 'Quota granted, in `unit`: bytes (VOLUME), seconds (TIME) or minor currency units (CREDIT).',
  })
  amount!: number;
  @Field(() => UnitMeteringType, {
    description: "The unit of `amount`: the plan definition's unit metering type.",
  })
  unit!: UnitMeteringType;
  @Field(() => String, { description: "The plan definition's name." })
  planName!: string;
  @Field(() => Int, { description: 'The id of the plan definition the quota belongs to.' })
  planDefinitionId!: number;
  @Field(() => Int, { description: "The donor's subscriber plan the quota came from (`donorPlanId`)." })
  donorPlanId!: number;
  @Field(() => DateTimeScalar, { description: 'When the donation was committed.' })
  occurredAt!: string;
}
