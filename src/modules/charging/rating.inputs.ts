import { Field, InputType } from 'type-graphql';

/**
 * The typed input of `processRating` / `processRefund` (spec 2.4, CONTRACT §4; issue 11 Part 1).
 * Every field is a nullable string: the service's rules (see `parseRatingRequest`) decide, in
 * their documented order, the return code of a missing or invalid one, exactly as for the legacy
 * body. Amounts are decimal strings (at most 6 fractional digits, never binary floating point).
 */
const REQUIRED_2001 = 'Required (missing: returnCode 2001).';
const LOOKUP_KEY = 'At most 64 characters, no control characters (else 2001).';
const AMOUNT = (code: number) =>
  `Non-negative decimal string, at most 6 fractional digits, in the subscriber's currency (else ${code}).`;

/** The catalogue lookup keys (spec 2.4 `lookup`). */
@InputType('RatingLookupInput', {
  description: 'The five catalogue lookup keys; the most specific entry wins.',
})
export class RatingLookupInputType {
  @Field(() => String, { nullable: true, description: `${REQUIRED_2001} Provider id. ${LOOKUP_KEY}` })
  providerId?: string | null;
  @Field(() => String, { nullable: true, description: `${REQUIRED_2001} Application id. ${LOOKUP_KEY}` })
  applicationId?: string | null;
  @Field(() => String, { nullable: true, description: `Service id; absent for any. ${LOOKUP_KEY}` })
  serviceId?: string | null;
  @Field(() => String, { nullable: true, description: `Origin id; absent for any. ${LOOKUP_KEY}` })
  originId?: string | null;
  @Field(() => String, { nullable: true, description: `Bundle id; absent for any. ${LOOKUP_KEY}` })
  bundleId?: string | null;
}

/** Pre-rated amounts (spec 2.4 `preRating`). */
@InputType('PreRatingInput', {
  description:
    'Pre-rated amounts: the charge is totalPrice, which must equal retailPrice + calculatedTax + downloadFeeWot - calculatedPromo (else 2108). Absent amounts other than totalPrice are 0.',
})
export class PreRatingInputType {
  @Field(() => String, { nullable: true, description: `Required: the amount charged. ${AMOUNT(2103)}` })
  totalPrice?: string | null;
  @Field(() => String, { nullable: true, description: `Retail price. ${AMOUNT(2104)}` })
  retailPrice?: string | null;
  @Field(() => String, { nullable: true, description: `Tax. ${AMOUNT(2105)}` })
  calculatedTax?: string | null;
  @Field(() => String, { nullable: true, description: `Promotion discount, subtracted. ${AMOUNT(2106)}` })
  calculatedPromo?: string | null;
  @Field(() => String, {
    nullable: true,
    description: `Download fee without tax; > 0 needs a transport rating (3003) and is refused in a refund (3004). ${AMOUNT(2107)}`,
  })
  downloadFeeWot?: string | null;
}

/** `ratingParams` (spec 2.4). */
@InputType('RatingParamsInput', {
  description: 'What is rated: the operation, the content and its lookup keys.',
})
export class RatingParamsInputType {
  @Field(() => String, {
    nullable: true,
    description: `${REQUIRED_2001} The subscriber MSISDN again (+ optional); not an MSISDN 2000, different from msisdn 2001.`,
  })
  msisdn?: string | null;
  @Field(() => String, {
    nullable: true,
    description: `${REQUIRED_2001} Identifies the operation in your tenant (at most 128 characters): a repeat of the same request answers the first outcome and charges nothing more; another request under it 2001.`,
  })
  operationId?: string | null;
  @Field(() => String, {
    nullable: true,
    description: `${REQUIRED_2001} Content id, 1-64 characters, no control characters (else 2101).`,
  })
  contentId?: string | null;
  @Field(() => String, {
    nullable: true,
    description: 'Content description, at most 255 characters, no control characters (else 2102).',
  })
  contentDescription?: string | null;
  @Field(() => RatingLookupInputType, {
    nullable: true,
    description: `${REQUIRED_2001} The catalogue lookup keys.`,
  })
  lookup?: RatingLookupInputType | null;
  @Field(() => PreRatingInputType, {
    nullable: true,
    description: 'Pre-rated amounts; absent: the matched content rating (retail price + tax) is charged.',
  })
  preRating?: PreRatingInputType | null;
}

/** A rating or refund request (spec 2.4). */
@InputType('RatingRequestInput', {
  description:
    'A rating (or refund) request, the body of POST /crs-api/processRating. Invalid fields are business outcomes: the first violated rule gives the returnCode (CONTRACT §4), nothing is charged.',
})
export class RatingRequestInputType {
  @Field(() => String, {
    nullable: true,
    description: `${REQUIRED_2001} The subscriber MSISDN (+ optional, 5-15 digits; else 2000).`,
  })
  msisdn?: string | null;
  @Field(() => RatingParamsInputType, { nullable: true, description: `${REQUIRED_2001} What is rated.` })
  ratingParams?: RatingParamsInputType | null;
}
