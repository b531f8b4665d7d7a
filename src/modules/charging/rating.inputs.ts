import { Field, InputType } from 'type-graphql';
import { MsisdnScalar } from '../../graphql/scalars';
import type {
  PreRatingInput,
  RatingLookupInput,
  RatingParamsInput,
  RatingRequestInput,
} from './rating-request';

/**
 * The typed input of `processRating` / `processRefund` (docs/contract.md §4).
 * Required fields are non-null and MSISDNs are the MSISDN scalar: a missing, null or malformed
 * one is a GraphQL coercion error (`BAD_USER_INPUT`, nothing charged, no CDR). What a value of
 * the right type can still break is the service's rules (see `parseRatingRequest`): a business
 * outcome with its return code, in their documented order. Amounts are decimal strings (at most
 * 6 fractional digits, never binary floating point), kept String so that a malformed one is its
 * own outcome (2103-2107) as over REST.
 */
const LOOKUP_KEY = 'At most 64 characters, no control characters (else returnCode 2001).';
const AMOUNT = (code: number) =>
  `Non-negative decimal string, at most 6 fractional digits, in the subscriber's currency (else returnCode ${code}).`;

/** The catalogue lookup keys (docs/contract.md §4 `lookup`). */
@InputType('RatingLookupInput', {
  description: 'The five catalogue lookup keys; the most specific entry wins.',
})
export class RatingLookupInputType implements RatingLookupInput {
  @Field(() => String, {
    description: `Provider id, 1-64 characters without control characters (else returnCode 2001).`,
  })
  providerId!: string;
  @Field(() => String, {
    description: `Application id, 1-64 characters without control characters (else returnCode 2001).`,
  })
  applicationId!: string;
  @Field(() => String, { nullable: true, description: `Service id; absent for any. ${LOOKUP_KEY}` })
  serviceId?: string | null;
  @Field(() => String, { nullable: true, description: `Origin id; absent for any. ${LOOKUP_KEY}` })
  originId?: string | null;
  @Field(() => String, { nullable: true, description: `Bundle id; absent for any. ${LOOKUP_KEY}` })
  bundleId?: string | null;
}

/** Pre-rated amounts (docs/contract.md §4 `preRating`). */
@InputType('PreRatingInput', {
  description:
    'Pre-rated amounts: the charge is totalPrice, which must equal retailPrice + calculatedTax + downloadFeeWot - calculatedPromo (else returnCode 2108). Absent amounts other than totalPrice are 0.',
})
export class PreRatingInputType implements PreRatingInput {
  @Field(() => String, { description: `The amount charged. ${AMOUNT(2103)}` })
  totalPrice!: string;
  @Field(() => String, { nullable: true, description: `Retail price. ${AMOUNT(2104)}` })
  retailPrice?: string | null;
  @Field(() => String, { nullable: true, description: `Tax. ${AMOUNT(2105)}` })
  calculatedTax?: string | null;
  @Field(() => String, { nullable: true, description: `Promotion discount, subtracted. ${AMOUNT(2106)}` })
  calculatedPromo?: string | null;
  @Field(() => String, {
    nullable: true,
    description: `Download fee without tax; > 0 needs a transport rating (returnCode 3003) and is refused in a refund (3004). ${AMOUNT(2107)}`,
  })
  downloadFeeWot?: string | null;
}

/** `ratingParams` (docs/contract.md §4). */
@InputType('RatingParamsInput', {
  description: 'What is rated: the operation, the content and its lookup keys.',
})
export class RatingParamsInputType implements RatingParamsInput {
  @Field(() => MsisdnScalar, {
    description:
      'The subscriber MSISDN again; different from `msisdn` (after removing `+`): returnCode 2001.',
  })
  msisdn!: string;
  @Field(() => String, {
    description:
      'Identifies the operation in your tenant, 1-128 characters without control characters (else returnCode 2001): a repeat of the same request answers the first outcome and charges nothing more; another request under it 2001.',
  })
  operationId!: string;
  @Field(() => String, {
    description:
      'Content id: empty returnCode 2001; otherwise 1-64 characters, no control characters (else 2101).',
  })
  contentId!: string;
  @Field(() => String, {
    nullable: true,
    description: 'Content description, at most 255 characters, no control characters (else returnCode 2102).',
  })
  contentDescription?: string | null;
  @Field(() => RatingLookupInputType, { description: 'The catalogue lookup keys.' })
  lookup!: RatingLookupInputType;
  @Field(() => PreRatingInputType, {
    nullable: true,
    description: 'Pre-rated amounts; absent: the matched content rating (retail price + tax) is charged.',
  })
  preRating?: PreRatingInputType | null;
}

/** A rating or refund request (docs/contract.md §4). */
@InputType('RatingRequestInput', {
  description:
    'A rating (or refund) request, the body of POST /crs-api/processRating. A missing required field or a malformed MSISDN is a GraphQL error (BAD_USER_INPUT) before anything runs; a value the rules refuse is a business outcome: the first violated rule gives the returnCode (CONTRACT §4), nothing is charged.',
})
export class RatingRequestInputType implements RatingRequestInput {
  @Field(() => MsisdnScalar, { description: 'The subscriber MSISDN (`+` optional, 5-15 digits).' })
  msisdn!: string;
  @Field(() => RatingParamsInputType, { description: 'What is rated.' })
  ratingParams!: RatingParamsInputType;
}
