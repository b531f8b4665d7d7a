import { Field, ID, Int, ObjectType, registerEnumType } from 'type-graphql';
import type { Money } from '../../lib/money';
import { NodeInterface } from '../../graphql/node';
import { DecimalScalar, MsisdnScalar, SafeIntScalar } from '../../graphql/scalars';

/*
 * The subscription payloads (issue 12 part 6) are entities (they implement `Node`): each is one
 * recorded, immutable fact with a stable unique id (the outbox event's ULID, also the AMQP
 * `message_id` of the same event), which an app keeps in lists (a notification feed, a
 * statement); Apollo's InMemoryCache then normalises each event under its own id instead of
 * overwriting the subscription field's last value, and `node(id:)` refetches one while the outbox
 * holds it.
 */

/** What a balance change was (the outbox event type it comes from). */
export enum BalanceChangeKind {
  CHARGE = 'charge',
  REFUND = 'refund',
  ADJUSTMENT = 'adjustment',
}

registerEnumType(BalanceChangeKind, {
  name: 'BalanceChangeKind',
  description: 'What changed a subscriber balance.',
  valuesConfig: {
    CHARGE: { description: 'A charge (`processRating`; outbox event `charge.completed`).' },
    REFUND: { description: 'A refund (`processRefund`; outbox event `refund.completed`).' },
    ADJUSTMENT: { description: 'An ADMIN adjustment (`adjustBalance`; outbox event `balance.adjusted`).' },
  },
});

/**
 * The unit a quota is counted in: a plan definition's `unitMeteringType`, as the event stores it.
 * (Same values as the sharing types' unit metering type; one enum once both areas are merged.)
 */
export enum QuotaUnit {
  VOLUME = 'volume',
  TIME = 'time',
  CREDIT = 'credit',
}

registerEnumType(QuotaUnit, {
  name: 'QuotaUnit',
  description: "The unit of a quota amount: the plan definition's unit metering type.",
  valuesConfig: {
    VOLUME: { description: 'Data volume; amounts in bytes.' },
    TIME: { description: 'Time; amounts in seconds.' },
    CREDIT: { description: 'Credit; amounts in minor currency units.' },
  },
});

/** A balance change pushed to `balanceChanged` subscribers (issue 12 part 6). */
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
  @Field(() => BalanceChangeKind, { description: 'What changed the balance.' })
  kind!: BalanceChangeKind;
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
  @Field(() => SafeIntScalar, { description: 'When the change was committed, Unix epoch seconds.' })
  occurredAt!: number;
}

/** A quota grant pushed to `quotaReceived` subscribers (issue 12 part 6). */
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
  @Field(() => QuotaUnit, { description: 'The unit of `amount`.' })
  unit!: QuotaUnit;
  @Field(() => String, { description: "The plan definition's name." })
  planName!: string;
  @Field(() => Int, { description: 'The id of the plan definition the quota belongs to.' })
  planDefinitionId!: number;
  @Field(() => Int, { description: "The donor's subscriber plan the quota came from (`donorPlanId`)." })
  donorPlanId!: number;
  @Field(() => SafeIntScalar, { description: 'When the donation was committed, Unix epoch seconds.' })
  occurredAt!: number;
}
