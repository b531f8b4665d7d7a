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
