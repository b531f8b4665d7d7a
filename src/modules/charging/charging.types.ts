import { Field, InputType, Int, ObjectType } from 'type-graphql';

/** GraphQL view of a rating/refund outcome (CONTRACT §4). */
@ObjectType('RatingResult', {
  description: 'Outcome of processRating or processRefund. Business outcomes are data: read returnCode.',
})
export class RatingResultType {
  @Field(() => Int, {
    description: 'The return code: 0 success, 1000 insufficient funds, … (CONTRACT §4 table).',
  })
  returnCode!: number;
  @Field(() => String, { description: 'Symbolic name of the return code, e.g. `INSUFFICIENT_FUNDS`.' })
  returnCodeName!: string;
  @Field(() => String, {
    nullable: true,
    description: 'The operationId, when the request carried a valid one.',
  })
  operationId!: string | null;
  @Field(() => String, {
    nullable: true,
    description: 'Exact decimal amount charged (or refunded); null when nothing moved.',
  })
  chargedAmount!: string | null;
  @Field(() => String, {
    nullable: true,
    description: 'Exact decimal balance after the operation; null when no balance was involved.',
  })
  balance!: string | null;
  @Field(() => String, { nullable: true, description: 'ISO 4217 currency of the amounts.' })
  currency!: string | null;
}

/** One ledger entry. */
@ObjectType('Charge', { description: 'A ledger entry: one decided charge, refund or balance adjustment.' })
export class ChargeType {
  @Field(() => String, { description: '`charge`, `refund` or `adjustment`.' })
  kind!: string;
  @Field(() => String, { description: 'The operationId (adjustments get a generated one).' })
  operationId!: string;
  @Field(() => Int, { description: 'The return code recorded for the operation.' })
  returnCode!: number;
  @Field(() => String, {
    description: 'Exact decimal amount moved (signed for adjustments; 0 when nothing moved).',
  })
  amount!: string;
  @Field(() => String, { nullable: true, description: 'Balance after the entry, exact decimal.' })
  balanceAfter!: string | null;
  @Field(() => String, { nullable: true, description: 'ISO 4217 currency.' })
  currency!: string | null;
  @Field(() => String, { nullable: true, description: 'Why an adjustment was made.' })
  reason!: string | null;
  @Field(() => String, { description: 'When it was recorded, ISO-8601 UTC.' })
  created!: string;
}

/** A page of ledger entries. */
@ObjectType('ChargeConnection', { description: 'Ledger entries, newest first.' })
export class ChargeConnectionType {
  @Field(() => [ChargeType], { description: 'The entries of this page.' })
  nodes!: ChargeType[];
  @Field(() => String, {
    nullable: true,
    description: 'Pass as `after` for the next (older) page; null on the last page.',
  })
  endCursor!: string | null;
  @Field(() => Boolean, { description: 'True when older entries follow.' })
  hasNextPage!: boolean;
}

/** GraphQL view of a subscriber account. */
@ObjectType('Subscriber', { description: 'A subscriber account with its balance.' })
export class SubscriberType {
  @Field(() => String, { description: 'MSISDN, digits only.' })
  msisdn!: string;
  @Field(() => String, { description: '`active`, `inactive` or `suspended`.' })
  status!: string;
  @Field(() => String, { description: '`prepaid` or `postpaid`.' })
  paymentType!: string;
  @Field(() => String, {
    description: 'Exact decimal balance (postpaid balances go negative as usage accumulates).',
  })
  balance!: string;
  @Field(() => String, { description: 'ISO 4217 currency.' })
  currency!: string;
}

/** GraphQL view of a catalogue entry. */
@ObjectType('Rating', { description: 'A rating catalogue entry; `*` keys are wildcards.' })
export class RatingType {
  @Field(() => String, { description: 'Provider id.' })
  providerId!: string;
  @Field(() => String, { description: 'Application id.' })
  applicationId!: string;
  @Field(() => String, { description: 'Service id or `*`.' })
  serviceId!: string;
  @Field(() => String, { description: 'Origin id or `*`.' })
  originId!: string;
  @Field(() => String, { description: 'Bundle id or `*`.' })
  bundleId!: string;
  @Field(() => String, { description: '`content` or `transport`.' })
  kind!: string;
  @Field(() => String, { description: 'Exact decimal retail price.' })
  retailPrice!: string;
  @Field(() => String, { description: 'Exact decimal tax.' })
  tax!: string;
}

/** A catalogue entry to provision. */
@InputType('RatingInput', {
  description: 'A rating catalogue entry to create or update by its keys and kind.',
})
export class RatingInput {
  @Field(() => String, { description: 'Provider id.' })
  providerId!: string;
  @Field(() => String, { description: 'Application id.' })
  applicationId!: string;
  @Field(() => String, { nullable: true, description: 'Service id; absent or `*` for any.' })
  serviceId?: string | null;
  @Field(() => String, { nullable: true, description: 'Origin id; absent or `*` for any.' })
  originId?: string | null;
  @Field(() => String, { nullable: true, description: 'Bundle id; absent or `*` for any.' })
  bundleId?: string | null;
  @Field(() => String, { description: '`content` or `transport`.' })
  kind!: string;
  @Field(() => String, { description: 'Retail price, decimal string.' })
  retailPrice!: string;
  @Field(() => String, { description: 'Tax, decimal string.' })
  tax!: string;
}
