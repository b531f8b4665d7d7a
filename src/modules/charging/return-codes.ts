import { registerEnumType } from 'type-graphql';

/**
 * Rating return codes (CONTRACT §4; published values marked in the contract). HTTP status is
 * 200 for every one of them; the outcome is the code.
 */
export const ReturnCode = {
  SUCCESS: 0,
  INSUFFICIENT_FUNDS: 1000,
  INVALID_NUMBER: 2000,
  INVALID_PARAMETER: 2001,
  SUBSCRIBER_REPOSITORY_ERROR: 2002,
  SUBSCRIBER_REPOSITORY_TIMEOUT: 2003,
  INVALID_EXTRA_PARAMETER_STRING: 2004,
  INVALID_CONTENT_ID: 2101,
  INVALID_CONTENT_DESCRIPTION: 2102,
  INVALID_TOTAL_PRICE: 2103,
  INVALID_RETAIL_PRICE: 2104,
  INVALID_CALCULATED_TAX: 2105,
  INVALID_CALCULATED_PROMO: 2106,
  INVALID_DOWNLOAD_FEE_WOT: 2107,
  TOTAL_PRICE_MISMATCH: 2108,
  NO_RATING_MATCH: 3001,
  RATING_ERROR: 3002,
  MISSING_TRANSPORT_RATING: 3003,
  DOWNLOAD_FEE_IN_REFUND: 3004,
  CHARGING_ERROR: 4000,
  REFUND_FAILED: 4001,
  UNKNOWN_ERROR: 5000,
  INTERNAL_TIMEOUT: 5001,
} as const;

/** One of the numeric return codes. */
export type ReturnCodeValue = (typeof ReturnCode)[keyof typeof ReturnCode];

const NAMES = new Map<number, string>(Object.entries(ReturnCode).map(([name, code]) => [code, name]));

/** The symbolic name of a return code (`returnCodeName` in GraphQL), e.g. `INSUFFICIENT_FUNDS`. */
export function returnCodeName(code: number): string {
  return NAMES.get(code) ?? 'UNKNOWN_ERROR';
}

/**
 * The outcome of a rating or refund as a GraphQL enum (`RatingOutcome`, docs/graphql.md "Mutations"): one value per
 * return code of CONTRACT §4, named as {@link ReturnCode} names it. A business result, not an
 * error: the numeric `returnCode` beside it is the legacy table's.
 */
export enum RatingOutcomeCode {
  SUCCESS = 'SUCCESS',
  INSUFFICIENT_FUNDS = 'INSUFFICIENT_FUNDS',
  INVALID_NUMBER = 'INVALID_NUMBER',
  INVALID_PARAMETER = 'INVALID_PARAMETER',
  SUBSCRIBER_REPOSITORY_ERROR = 'SUBSCRIBER_REPOSITORY_ERROR',
  SUBSCRIBER_REPOSITORY_TIMEOUT = 'SUBSCRIBER_REPOSITORY_TIMEOUT',
  INVALID_EXTRA_PARAMETER_STRING = 'INVALID_EXTRA_PARAMETER_STRING',
  INVALID_CONTENT_ID = 'INVALID_CONTENT_ID',
  INVALID_CONTENT_DESCRIPTION = 'INVALID_CONTENT_DESCRIPTION',
  INVALID_TOTAL_PRICE = 'INVALID_TOTAL_PRICE',
  INVALID_RETAIL_PRICE = 'INVALID_RETAIL_PRICE',
  INVALID_CALCULATED_TAX = 'INVALID_CALCULATED_TAX',
  INVALID_CALCULATED_PROMO = 'INVALID_CALCULATED_PROMO',
  INVALID_DOWNLOAD_FEE_WOT = 'INVALID_DOWNLOAD_FEE_WOT',
  TOTAL_PRICE_MISMATCH = 'TOTAL_PRICE_MISMATCH',
  NO_RATING_MATCH = 'NO_RATING_MATCH',
  RATING_ERROR = 'RATING_ERROR',
  MISSING_TRANSPORT_RATING = 'MISSING_TRANSPORT_RATING',
  DOWNLOAD_FEE_IN_REFUND = 'DOWNLOAD_FEE_IN_REFUND',
  CHARGING_ERROR = 'CHARGING_ERROR',
  REFUND_FAILED = 'REFUND_FAILED',
  UNKNOWN_ERROR = 'UNKNOWN_ERROR',
  INTERNAL_TIMEOUT = 'INTERNAL_TIMEOUT',
}

/** What each outcome means (CONTRACT §4 table), for the schema's enum value descriptions. */
const OUTCOME_DESCRIPTIONS: Record<RatingOutcomeCode, string> = {
  SUCCESS: 'returnCode 0: charged (or refunded).',
  INSUFFICIENT_FUNDS: 'returnCode 1000: the prepaid balance does not cover the amount; nothing charged.',
  INVALID_NUMBER:
    'returnCode 2000: the MSISDN is malformed, unknown in your tenant, or the subscriber is not active.',
  INVALID_PARAMETER:
    'returnCode 2001: a required field is missing, ratingParams.msisdn differs from msisdn, providerId/applicationId are unknown to the catalogue, or the operationId was used for a different request.',
  SUBSCRIBER_REPOSITORY_ERROR:
    'returnCode 2002: the subscriber repository failed (not a timeout); nothing charged.',
  SUBSCRIBER_REPOSITORY_TIMEOUT: 'returnCode 2003: the subscriber repository timed out; nothing charged.',
  INVALID_EXTRA_PARAMETER_STRING: 'returnCode 2004: reserved (no extra-parameter field is accepted yet).',
  INVALID_CONTENT_ID: 'returnCode 2101: contentId is not 1-64 characters without control characters.',
  INVALID_CONTENT_DESCRIPTION:
    'returnCode 2102: contentDescription is over 255 characters or holds control characters.',
  INVALID_TOTAL_PRICE: 'returnCode 2103: preRating.totalPrice missing or not a non-negative decimal.',
  INVALID_RETAIL_PRICE: 'returnCode 2104: preRating.retailPrice is not a non-negative decimal.',
  INVALID_CALCULATED_TAX: 'returnCode 2105: preRating.calculatedTax is not a non-negative decimal.',
  INVALID_CALCULATED_PROMO: 'returnCode 2106: preRating.calculatedPromo is not a non-negative decimal.',
  INVALID_DOWNLOAD_FEE_WOT: 'returnCode 2107: preRating.downloadFeeWot is not a non-negative decimal.',
  TOTAL_PRICE_MISMATCH:
    'returnCode 2108: totalPrice differs from retailPrice + calculatedTax + downloadFeeWot - calculatedPromo.',
  NO_RATING_MATCH: 'returnCode 3001: no content rating of the catalogue matches the lookup keys.',
  RATING_ERROR:
    'returnCode 3002: rating failed unexpectedly (the catalogue could not be read); nothing charged.',
  MISSING_TRANSPORT_RATING:
    'returnCode 3003: pre-rated with downloadFeeWot > 0 and no transport rating matches; nothing charged.',
  DOWNLOAD_FEE_IN_REFUND: 'returnCode 3004: a refund request carried downloadFeeWot > 0.',
  CHARGING_ERROR: 'returnCode 4000: the balance or ledger write failed; nothing charged.',
  REFUND_FAILED: 'returnCode 4001: no successful charge with this operationId and msisdn to refund.',
  UNKNOWN_ERROR:
    'returnCode 5000: unknown error; a retry with the same operationId answers the recorded outcome.',
  INTERNAL_TIMEOUT: 'returnCode 5001: processing exceeded RATING_TIMEOUT_MS; nothing charged.',
};

registerEnumType(RatingOutcomeCode, {
  name: 'RatingOutcome',
  description:
    'What a rating or refund did (CONTRACT §4): one value per return code, a business result rather than an error. `returnCode` beside it carries the legacy number.',
  valuesConfig: Object.fromEntries(
    Object.entries(OUTCOME_DESCRIPTIONS).map(([k, description]) => [k, { description }]),
  ),
});

/** The {@link RatingOutcomeCode} of a numeric return code (an unknown number is UNKNOWN_ERROR). */
export function ratingOutcomeOf(code: number): RatingOutcomeCode {
  return returnCodeName(code) as RatingOutcomeCode;
}
