import { Money } from '../../src/lib/money';
import { normalizeMsisdn } from '../../src/lib/msisdn';
import { ParsedRatingRequest, PreRating, RatingLookup } from '../../src/modules/charging/rating-request';
import { ReturnCode, ReturnCodeValue } from '../../src/modules/charging/return-codes';

/**
 * The reference for the legacy rating body: the parser that read the raw body
 * inside the service before the REST edge took over the missing, null and wrongly typed fields,
 * kept verbatim. A legacy body's answer from the edge and the service's rules together
 * (`parseRatingBody`) must be this one's, code for code.
 */
class Reject {
  constructor(
    readonly returnCode: ReturnCodeValue,
    readonly reason: string,
  ) {}
}

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function requiredString(o: Record<string, unknown>, key: string, code: ReturnCodeValue, max: number): string {
  const v = o[key];
  if (v === undefined || v === null || v === '')
    throw new Reject(ReturnCode.INVALID_PARAMETER, `${key} is required`);
  if (typeof v !== 'string' || v.length > max || CONTROL.test(v))
    throw new Reject(code, `${key} must be a string of at most ${max} characters without control characters`);
  return v;
}

function optionalString(
  o: Record<string, unknown>,
  key: string,
  code: ReturnCodeValue,
  max: number,
): string | null {
  const v = o[key];
  if (v === undefined || v === null) return null;
  if (typeof v !== 'string' || v.length > max || CONTROL.test(v))
    throw new Reject(code, `${key} must be a string of at most ${max} characters without control characters`);
  return v;
}

function msisdnOf(o: Record<string, unknown>, key: string, where: string): string {
  const v = o[key];
  if (v === undefined || v === null || v === '')
    throw new Reject(ReturnCode.INVALID_PARAMETER, `${where} is required`);
  const m = normalizeMsisdn(v);
  if (!m) throw new Reject(ReturnCode.INVALID_NUMBER, `${where} is not an MSISDN`);
  return m;
}

function amount(o: Record<string, unknown>, key: string, code: ReturnCodeValue, required: boolean): Money {
  const v = o[key];
  if (v === undefined || v === null) {
    if (required) throw new Reject(code, `preRating.${key} is required`);
    return Money.ZERO;
  }
  if (typeof v !== 'string' || !Money.isValid(v))
    throw new Reject(
      code,
      `preRating.${key} must be a non-negative decimal string with at most 6 fractional digits`,
    );
  return Money.parse(v);
}

/**
 * Validates a rating request body (docs/contract.md §4) and returns the first violated rule's return code
 * (CONTRACT §4). The order, which decides the code when several rules are broken:
 * 1. `msisdn`: missing 2001, not an MSISDN or not a string 2000;
 * 2. `ratingParams` missing or not an object 2001; `ratingParams.msisdn` missing 2001, not an
 *    MSISDN 2000, different from `msisdn` (after removing `+`) 2001;
 * 3. `operationId` missing, not a string, over 128 characters 2001;
 * 4. `lookup` missing or not an object 2001; `providerId`, `applicationId` missing 2001;
 *    any lookup key not a string of at most 64 characters 2001;
 * 5. `contentId` missing 2001, otherwise not 1–64 characters 2101; `contentDescription` over
 *    255 characters or not a string 2102 (control characters are refused in both);
 * 6. `preRating` (optional) not an object 2001; `totalPrice` missing or invalid 2103, then
 *    `retailPrice` 2104, `calculatedTax` 2105, `calculatedPromo` 2106, `downloadFeeWot` 2107
 *    (absent ones are 0; amounts are non-negative decimal strings, ≤ 6 fractional digits);
 * 7. `totalPrice ≠ retailPrice + calculatedTax + downloadFeeWot − calculatedPromo` 2108.
 * Unknown fields are ignored.
 */
export function legacyParseRatingRequest(body: unknown): ParsedRatingRequest {
  try {
    if (!isObject(body)) throw new Reject(ReturnCode.INVALID_PARAMETER, 'the request must be a JSON object');
    const msisdn = msisdnOf(body, 'msisdn', 'msisdn');
    const params = body.ratingParams;
    if (!isObject(params))
      throw new Reject(ReturnCode.INVALID_PARAMETER, 'ratingParams is required and must be an object');
    if (msisdnOf(params, 'msisdn', 'ratingParams.msisdn') !== msisdn) {
      throw new Reject(ReturnCode.INVALID_PARAMETER, 'ratingParams.msisdn differs from msisdn');
    }
    const operationId = requiredString(params, 'operationId', ReturnCode.INVALID_PARAMETER, 128);
    const lookupRaw = params.lookup;
    if (!isObject(lookupRaw))
      throw new Reject(ReturnCode.INVALID_PARAMETER, 'ratingParams.lookup is required and must be an object');
    const lookup: RatingLookup = {
      providerId: requiredString(lookupRaw, 'providerId', ReturnCode.INVALID_PARAMETER, 64),
      applicationId: requiredString(lookupRaw, 'applicationId', ReturnCode.INVALID_PARAMETER, 64),
      serviceId: optionalString(lookupRaw, 'serviceId', ReturnCode.INVALID_PARAMETER, 64),
      originId: optionalString(lookupRaw, 'originId', ReturnCode.INVALID_PARAMETER, 64),
      bundleId: optionalString(lookupRaw, 'bundleId', ReturnCode.INVALID_PARAMETER, 64),
    };
    const contentId = requiredString(params, 'contentId', ReturnCode.INVALID_CONTENT_ID, 64);
    const contentDescription = optionalString(
      params,
      'contentDescription',
      ReturnCode.INVALID_CONTENT_DESCRIPTION,
      255,
    );
    let preRating: PreRating | null = null;
    if (params.preRating !== undefined && params.preRating !== null) {
      const p = params.preRating;
      if (!isObject(p))
        throw new Reject(ReturnCode.INVALID_PARAMETER, 'ratingParams.preRating must be an object');
      preRating = {
        totalPrice: amount(p, 'totalPrice', ReturnCode.INVALID_TOTAL_PRICE, true),
        retailPrice: amount(p, 'retailPrice', ReturnCode.INVALID_RETAIL_PRICE, false),
        calculatedTax: amount(p, 'calculatedTax', ReturnCode.INVALID_CALCULATED_TAX, false),
        calculatedPromo: amount(p, 'calculatedPromo', ReturnCode.INVALID_CALCULATED_PROMO, false),
        downloadFeeWot: amount(p, 'downloadFeeWot', ReturnCode.INVALID_DOWNLOAD_FEE_WOT, false),
      };
      const sum = preRating.retailPrice
        .add(preRating.calculatedTax)
        .add(preRating.downloadFeeWot)
        .sub(preRating.calculatedPromo);
      if (sum.cmp(preRating.totalPrice) !== 0) {
        throw new Reject(
          ReturnCode.TOTAL_PRICE_MISMATCH,
          `totalPrice ${preRating.totalPrice} differs from retailPrice + calculatedTax + downloadFeeWot - calculatedPromo = ${sum}`,
        );
      }
    }
    return { ok: true, request: { msisdn, operationId, contentId, contentDescription, lookup, preRating } };
  } catch (err) {
    if (err instanceof Reject) return { ok: false, returnCode: err.returnCode, reason: err.reason };
    throw err;
  }
}

/** A string field of a raw body, cut to `max` characters; null when absent or not a string. */
function rawString(o: unknown, key: string, max: number): string | null {
  if (typeof o !== 'object' || o === null) return null;
  const v = (o as Record<string, unknown>)[key];
  return typeof v === 'string' ? v.slice(0, max) : null;
}

/**
 * The reference for a refused body's charging CDR keys (the service's `rawKeysOf` before issue
 * 29 item 5, verbatim): whatever of them the body carries as strings.
 */
export function legacyRawKeysOf(body: unknown) {
  const params =
    typeof body === 'object' && body !== null ? (body as Record<string, unknown>).ratingParams : null;
  const lookup =
    typeof params === 'object' && params !== null ? (params as Record<string, unknown>).lookup : null;
  return {
    operationId: rawString(params, 'operationId', 128),
    msisdn: rawString(body, 'msisdn', 32),
    lookup: {
      providerId: rawString(lookup, 'providerId', 64),
      applicationId: rawString(lookup, 'applicationId', 64),
      serviceId: rawString(lookup, 'serviceId', 64),
      originId: rawString(lookup, 'originId', 64),
      bundleId: rawString(lookup, 'bundleId', 64),
    },
  };
}
