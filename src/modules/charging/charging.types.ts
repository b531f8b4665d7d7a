import { Authorized, Directive, Field, ID, InputType, Int, ObjectType, registerEnumType } from 'type-graphql';
import { Permission } from '../../auth/permissions';
import { NodeInterface } from '../../graphql/node';
import { userErrorType } from '../../graphql/payload';
import { connectionTypes } from '../../graphql/relay';
import { DateTimeScalar, DecimalScalar, MsisdnScalar } from '../../graphql/scalars';
import { Money } from '../../lib/money';
import { PaymentTypeValue, SubscriberStatusValue } from '../subscribers/subscriber.types';
import { RatingOutcomeCode } from './return-codes';

/**
 * The charging graph (CONTRACT §4; docs/graphql.md): the entities `Subscriber`, `Charge` and `Rating`
 * (each a `Node`), their connections, the rating/refund payloads and the ADMIN payloads. Money is
 * `Decimal` (a {@link Money} in resolvers), MSISDNs `MSISDN`, closed sets enums.
 */

/** A ledger entry's kind (`charges.kind`). */
export enum ChargeKindValue {
  CHARGE = 'charge',
  REFUND = 'refund',
  ADJUSTMENT = 'adjustment',
}

registerEnumType(ChargeKindValue, {
  name: 'ChargeKind',
  description: 'What wrote a ledger entry.',
  valuesConfig: {
    CHARGE: { description: 'processRating (whatever its outcome).' },
    REFUND: { description: 'processRefund (whatever its outcome).' },
    ADJUSTMENT: { description: 'adjustBalance (an ADMIN correction, always SUCCESS).' },
  },
});

/** A catalogue entry's kind (`ratings.kind`). */
export enum RatingKindValue {
  CONTENT = 'content',
  TRANSPORT = 'transport',
}

registerEnumType(RatingKindValue, {
  name: 'RatingKind',
  description: 'What a catalogue entry prices.',
  valuesConfig: {
    CONTENT: { description: 'The content itself: its retail price + tax is charged when not pre-rated.' },
    TRANSPORT: {
      description: 'Delivery: must match for a pre-rated request with downloadFeeWot > 0 (else 3003).',
    },
  },
});

/** One ledger entry (an entity: `id` is `globalId('Charge', <ledger row id>)`). */
@ObjectType('Charge', {
  implements: NodeInterface,
  description: 'A ledger entry: one decided charge, refund or balance adjustment.',
})
export class ChargeType {
  @Field(() => ID, { description: 'Opaque, stable global id of this ledger entry.' })
  id!: string;
  @Field(() => MsisdnScalar, { description: 'The subscriber whose ledger holds the entry.' })
  msisdn!: string;
  @Field(() => ChargeKindValue, { description: 'What wrote the entry.' })
  kind!: ChargeKindValue;
  @Field(() => String, { description: 'The operationId (adjustments get a generated one).' })
  operationId!: string;
  @Field(() => Int, { description: 'The return code recorded for the operation (CONTRACT §4).' })
  returnCode!: number;
  @Field(() => RatingOutcomeCode, { description: 'The recorded outcome, `returnCode` as an enum.' })
  outcome!: RatingOutcomeCode;
  @Field(() => DecimalScalar, {
    description:
      'Amount moved, in `currency`: positive for charges and refunds, signed for adjustments, 0 when nothing moved.',
  })
  amount!: Money;
  @Field(() => DecimalScalar, {
    nullable: true,
    description: 'Balance after the entry, in `currency`; null when no balance was involved.',
  })
  balanceAfter!: Money | null;
  @Field(() => String, { nullable: true, description: 'ISO 4217 currency of the amounts.' })
  currency!: string | null;
  @Field(() => String, { nullable: true, description: 'Why an adjustment was made; null otherwise.' })
  reason!: string | null;
  @Field(() => DateTimeScalar, { description: 'When it was recorded.' })
  created!: string;
}

const charges = connectionTypes(ChargeType, 'Charge', {
  description: "A page of a subscriber's ledger entries, newest first.",
  totalCount:
    'Ledger entries of the subscriber in all (charges, refunds and adjustments), whatever the page.',
});

/**
 * A page of ledger entries: the Relay connection, plus the pre-issue-29 fields `nodes`,
 * `endCursor`, `hasNextPage` (deprecated, same page).
 */
export const ChargeConnectionType = charges.Connection as typeof charges.Connection & {
  prototype: { nodes: ChargeType[]; endCursor: string | null; hasNextPage: boolean };
};
export type ChargeConnectionType = InstanceType<typeof charges.Connection> & {
  nodes: ChargeType[];
  endCursor: string | null;
  hasNextPage: boolean;
};
Field(() => [ChargeType], {
  description: 'The entries of this page.',
  deprecationReason: 'use `edges { node }`',
})(ChargeConnectionType.prototype, 'nodes');
Field(() => String, {
  nullable: true,
  description: 'Cursor of the last entry of this page; null for an empty page.',
  deprecationReason: 'use `pageInfo { endCursor }`',
})(ChargeConnectionType.prototype, 'endCursor');
Field(() => Boolean, {
  description: 'True when older entries follow.',
  deprecationReason: 'use `pageInfo { hasNextPage }`',
})(ChargeConnectionType.prototype, 'hasNextPage');

/** A subscriber account (an entity: `id` is `globalId('Subscriber', <msisdn>)`). */
@Directive('@key(fields: "msisdn")')
@ObjectType('Subscriber', {
  implements: NodeInterface,
  description: 'A subscriber account with its balance.',
})
export class SubscriberType {
  @Field(() => ID, { description: 'Opaque, stable global id of this subscriber.' })
  id!: string;
  @Field(() => MsisdnScalar, { description: 'The MSISDN, canonical (digits only).' })
  msisdn!: string;
  @Field(() => SubscriberStatusValue, { description: 'Whether the account can be charged.' })
  status!: SubscriberStatusValue;
  @Field(() => PaymentTypeValue, { description: 'Prepaid or postpaid.' })
  paymentType!: PaymentTypeValue;
  @Field(() => DecimalScalar, {
    description: 'Balance in `currency` (postpaid balances go negative as usage accumulates).',
  })
  balance!: Money;
  @Field(() => String, { description: 'ISO 4217 currency of the balance and of every amount charged.' })
  currency!: string;
}

/** A catalogue entry (an entity: `id` is `globalId('Rating', <catalogue row id>)`). */
@ObjectType('Rating', {
  implements: NodeInterface,
  description:
    'A rating catalogue entry; `*` keys are wildcards. Amounts in the currency of the subscriber charged.',
})
export class RatingType {
  @Field(() => ID, { description: 'Opaque, stable global id of this catalogue entry.' })
  id!: string;
  @Field(() => String, { description: 'Provider id.' })
  providerId!: string;
  @Field(() => String, { description: 'Application id.' })
  applicationId!: string;
  @Field(() => String, { description: 'Service id or `*` (any).' })
  serviceId!: string;
  @Field(() => String, { description: 'Origin id or `*` (any).' })
  originId!: string;
  @Field(() => String, { description: 'Bundle id or `*` (any).' })
  bundleId!: string;
  @Field(() => RatingKindValue, { description: 'What the entry prices.' })
  kind!: RatingKindValue;
  @Field(() => DecimalScalar, { description: 'Retail price, without tax.' })
  retailPrice!: Money;
  @Field(() => DecimalScalar, { description: 'Tax added to the retail price.' })
  tax!: Money;
}

const ratings = connectionTypes(RatingType, 'Rating', {
  description: "A page of your tenant's rating catalogue, in the order entries were created.",
  totalCount: 'Catalogue entries of your tenant in all, whatever the page.',
});
/** A page of the catalogue. */
export const RatingConnectionType = ratings.Connection;
export type RatingConnectionType = InstanceType<typeof ratings.Connection>;

/** The fields of a rating or refund outcome (CONTRACT §4), shared by both payloads. */
export interface RatingPayloadFields {
  outcome: RatingOutcomeCode;
  returnCode: number;
  returnCodeName: string;
  operationId: string | null;
  chargedAmount: Money | null;
  balance: Money | null;
  currency: string | null;
  subscriber: SubscriberType | null;
}

/** The payload type `name` of processRating or processRefund (a value, not an entity). */
function ratingPayloadType(name: string, description: string) {
  @ObjectType(name, { description })
  class RatingPayload implements RatingPayloadFields {
    @Field(() => RatingOutcomeCode, { description: 'What happened: switch on this.' })
    outcome!: RatingOutcomeCode;
    @Field(() => Int, {
      description:
        'The legacy return code of `outcome` (CONTRACT §4 table): 0 success, 1000 insufficient funds, …',
    })
    returnCode!: number;
    @Field(() => String, {
      description: 'Symbolic name of the return code, e.g. `INSUFFICIENT_FUNDS`.',
      deprecationReason: 'use `outcome`',
    })
    returnCodeName!: string;
    @Field(() => String, {
      nullable: true,
      description: 'The operationId, when the request carried a valid one.',
    })
    operationId!: string | null;
    @Field(() => DecimalScalar, {
      nullable: true,
      description: 'Amount charged (or refunded) in `currency`; null when nothing moved.',
    })
    chargedAmount!: Money | null;
    @Field(() => DecimalScalar, {
      nullable: true,
      description: 'Balance after the operation in `currency`; null when no balance was involved.',
    })
    balance!: Money | null;
    @Field(() => String, { nullable: true, description: 'ISO 4217 currency of the amounts.' })
    currency!: string | null;
    @Authorized(Permission.CRS_RATING)
    @Field(() => SubscriberType, {
      nullable: true,
      description:
        'The subscriber as it is now, read after the operation (its balance updates a normalised client cache); null when no balance was involved (an unknown subscriber, a request refused before the lookup). Needs CRS_RATING, as the `subscriber` query.',
    })
    subscriber!: SubscriberType | null;
  }
  return RatingPayload;
}

/** processRating's result: every business outcome, `outcome` and `returnCode` (a value, not an entity). */
export const ProcessRatingPayload = ratingPayloadType(
  'ProcessRatingPayload',
  'Outcome of processRating. Every business outcome is data, not an error: read `outcome` (or the legacy `returnCode`). A malformed argument is a GraphQL error before it.',
);
export type ProcessRatingPayload = RatingPayloadFields;

/** processRefund's result (a value, not an entity). */
export const ProcessRefundPayload = ratingPayloadType(
  'ProcessRefundPayload',
  'Outcome of processRefund. Every business outcome is data, not an error: read `outcome` (or the legacy `returnCode`).',
);
export type ProcessRefundPayload = RatingPayloadFields;

/** A catalogue entry to provision. */
@InputType('RatingInput', {
  description: 'A rating catalogue entry to create or update by its keys and kind.',
})
export class RatingInput {
  @Field(() => String, { description: 'Provider id: 1-64 characters, no spaces, not `*`.' })
  providerId!: string;
  @Field(() => String, { description: 'Application id: 1-64 characters, no spaces, not `*`.' })
  applicationId!: string;
  @Field(() => String, {
    nullable: true,
    description: 'Service id (1-64 characters); absent or `*` for any.',
  })
  serviceId?: string | null;
  @Field(() => String, { nullable: true, description: 'Origin id (1-64 characters); absent or `*` for any.' })
  originId?: string | null;
  @Field(() => String, { nullable: true, description: 'Bundle id (1-64 characters); absent or `*` for any.' })
  bundleId?: string | null;
  @Field(() => RatingKindValue, { description: 'What the entry prices.' })
  kind!: RatingKindValue;
  @Field(() => DecimalScalar, {
    description: 'Retail price without tax, non-negative, at most 6 fractional digits.',
  })
  retailPrice!: Money;
  @Field(() => DecimalScalar, { description: 'Tax, non-negative, at most 6 fractional digits.' })
  tax!: Money;
}

/** Why upsertRating refused an entry. */
export enum UpsertRatingErrorCode {
  INVALID_KEY = 'INVALID_KEY',
  NEGATIVE_AMOUNT = 'NEGATIVE_AMOUNT',
}

registerEnumType(UpsertRatingErrorCode, {
  name: 'UpsertRatingErrorCode',
  description: 'Why upsertRating refused an entry.',
  valuesConfig: {
    INVALID_KEY: {
      description:
        'A lookup key is not 1-64 characters without spaces (providerId and applicationId not `*` either).',
    },
    NEGATIVE_AMOUNT: { description: 'retailPrice or tax is negative.' },
  },
});

/** A refusal of upsertRating (a value). */
export const UpsertRatingUserError = userErrorType<UpsertRatingErrorCode>(
  'UpsertRatingUserError',
  UpsertRatingErrorCode,
  'Why upsertRating refused the entry; `field` names the input field.',
);

/** upsertRating's result. */
@ObjectType('UpsertRatingPayload', { description: 'Result of upsertRating.' })
export class UpsertRatingPayload {
  @Field(() => RatingType, { nullable: true, description: 'The entry as stored; null when refused.' })
  rating?: RatingType | null;
  @Field(() => [UpsertRatingUserError], { description: 'Why the entry was refused; empty on success.' })
  userErrors!: InstanceType<typeof UpsertRatingUserError>[];
}

/** Why adjustBalance refused an adjustment. */
export enum AdjustBalanceErrorCode {
  SUBSCRIBER_NOT_FOUND = 'SUBSCRIBER_NOT_FOUND',
  INVALID_REASON = 'INVALID_REASON',
  PREPAID_BALANCE_EXCEEDED = 'PREPAID_BALANCE_EXCEEDED',
}

registerEnumType(AdjustBalanceErrorCode, {
  name: 'AdjustBalanceErrorCode',
  description: 'Why adjustBalance refused an adjustment.',
  valuesConfig: {
    SUBSCRIBER_NOT_FOUND: { description: 'No subscriber with this MSISDN in your tenant.' },
    INVALID_REASON: { description: 'The reason is blank or over 255 characters.' },
    PREPAID_BALANCE_EXCEEDED: {
      description:
        'A negative amount larger than a prepaid balance (a prepaid balance never goes below zero).',
    },
  },
});

/** A refusal of adjustBalance (a value). */
export const AdjustBalanceUserError = userErrorType<AdjustBalanceErrorCode>(
  'AdjustBalanceUserError',
  AdjustBalanceErrorCode,
  'Why adjustBalance refused the adjustment; `field` names the argument.',
);

/** adjustBalance's result. */
@ObjectType('AdjustBalancePayload', { description: 'Result of adjustBalance.' })
export class AdjustBalancePayload {
  @Field(() => SubscriberType, {
    nullable: true,
    description: 'The subscriber with its new balance; null when refused.',
  })
  subscriber?: SubscriberType | null;
  @Field(() => ChargeType, {
    nullable: true,
    description: 'The ledger entry written (kind ADJUSTMENT); null when refused.',
  })
  charge?: ChargeType | null;
  @Field(() => [AdjustBalanceUserError], { description: 'Why the adjustment was refused; empty on success.' })
  userErrors!: InstanceType<typeof AdjustBalanceUserError>[];
}
