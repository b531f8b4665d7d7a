import { normalizeMsisdn } from '../lib/msisdn';
import {
  ParsedRatingRequest,
  RatingField,
  RatingRequestFacts,
  RatingRequestInput,
  RatingRequestPrefix,
  TransportRefusal,
  parseRatingRequest,
  ruleBrokenBefore,
} from '../modules/charging/rating-request';
import { ReturnCode, ReturnCodeValue } from '../modules/charging/return-codes';

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A legacy rating or refund body read at the REST edge: the typed request, or the transport's
 * refusal (return code, why, and the keys for the charging CDR).
 */
export type RatingBodyReading =
  { ok: true; input: RatingRequestInput } | { ok: false; refusal: TransportRefusal };

/** A field the body cannot give the typed request: its legacy code and why. */
class Unreadable {
  constructor(
    readonly field: RatingField,
    readonly returnCode: ReturnCodeValue,
    readonly reason: string,
  ) {}
}

/** A string field of a raw object, cut to `max` characters; null when absent or not a string. */
function rawString(o: unknown, key: string, max: number): string | null {
  if (!isObject(o)) return null;
  const v = o[key];
  return typeof v === 'string' ? v.slice(0, max) : null;
}

/** The charging CDR keys of a refused body: whatever of them it carries as strings, cut to the column sizes. */
function factsOfBody(body: Json): RatingRequestFacts {
  const params = body.ratingParams;
  const lookup = isObject(params) ? params.lookup : null;
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

/** The `field` of `o` as an MSISDN as given: missing, null or empty 2001; another type or malformed 2000. */
function msisdnAt(o: Json, key: string, field: RatingField, where: string): string {
  const v = o[key];
  if (v === undefined || v === null || v === '')
    throw new Unreadable(field, ReturnCode.INVALID_PARAMETER, `${where} is required`);
  if (normalizeMsisdn(v) === null)
    throw new Unreadable(field, ReturnCode.INVALID_NUMBER, `${where} is not an MSISDN`);
  return v as string;
}

/** A required string: missing or null 2001 (`missing`), another JSON type `wrongType`. */
function requiredAt(
  o: Json,
  key: RatingField & string,
  missing: ReturnCodeValue,
  wrongType: ReturnCodeValue,
): string {
  const v = o[key];
  if (v === undefined || v === null) throw new Unreadable(key, missing, `${key} is required`);
  if (typeof v !== 'string') throw new Unreadable(key, wrongType, `${key} must be a string`);
  return v;
}

/** An optional string: absent or null as null, another JSON type `wrongType`. */
function optionalAt(o: Json, key: RatingField & string, wrongType: ReturnCodeValue): string | null {
  const v = o[key];
  if (v === undefined || v === null) return null;
  if (typeof v !== 'string') throw new Unreadable(key, wrongType, `${key} must be a string`);
  return v;
}

/** Reads `body` into `into` (the typed request so far) in the rules' order; @throws Unreadable. */
function read(body: Json, into: RatingRequestPrefix): void {
  into.msisdn = msisdnAt(body, 'msisdn', 'msisdn', 'msisdn');
  const params = body.ratingParams;
  if (!isObject(params))
    throw new Unreadable(
      'ratingParams',
      ReturnCode.INVALID_PARAMETER,
      'ratingParams is required and must be an object',
    );
  const p: NonNullable<RatingRequestPrefix['ratingParams']> = {};
  into.ratingParams = p;
  p.msisdn = msisdnAt(params, 'msisdn', 'ratingParams.msisdn', 'ratingParams.msisdn');
  p.operationId = requiredAt(
    params,
    'operationId',
    ReturnCode.INVALID_PARAMETER,
    ReturnCode.INVALID_PARAMETER,
  );
  const lookup = params.lookup;
  if (!isObject(lookup))
    throw new Unreadable(
      'lookup',
      ReturnCode.INVALID_PARAMETER,
      'ratingParams.lookup is required and must be an object',
    );
  const l: Partial<RatingRequestInput['ratingParams']['lookup']> = {};
  p.lookup = l;
  l.providerId = requiredAt(lookup, 'providerId', ReturnCode.INVALID_PARAMETER, ReturnCode.INVALID_PARAMETER);
  l.applicationId = requiredAt(
    lookup,
    'applicationId',
    ReturnCode.INVALID_PARAMETER,
    ReturnCode.INVALID_PARAMETER,
  );
  l.serviceId = optionalAt(lookup, 'serviceId', ReturnCode.INVALID_PARAMETER);
  l.originId = optionalAt(lookup, 'originId', ReturnCode.INVALID_PARAMETER);
  l.bundleId = optionalAt(lookup, 'bundleId', ReturnCode.INVALID_PARAMETER);
  p.contentId = requiredAt(params, 'contentId', ReturnCode.INVALID_PARAMETER, ReturnCode.INVALID_CONTENT_ID);
  p.contentDescription = optionalAt(params, 'contentDescription', ReturnCode.INVALID_CONTENT_DESCRIPTION);
  const pre = params.preRating;
  if (pre === undefined || pre === null) {
    p.preRating = null;
    return;
  }
  if (!isObject(pre))
    throw new Unreadable(
      'preRating',
      ReturnCode.INVALID_PARAMETER,
      'ratingParams.preRating must be an object',
    );
  const amounts: NonNullable<NonNullable<RatingRequestPrefix['ratingParams']>['preRating']> = {};
  p.preRating = amounts;
  const wrong = (k: RatingField) => `preRating.${k} must be a decimal string`;
  for (const [k, code] of [
    ['totalPrice', ReturnCode.INVALID_TOTAL_PRICE],
    ['retailPrice', ReturnCode.INVALID_RETAIL_PRICE],
    ['calculatedTax', ReturnCode.INVALID_CALCULATED_TAX],
    ['calculatedPromo', ReturnCode.INVALID_CALCULATED_PROMO],
    ['downloadFeeWot', ReturnCode.INVALID_DOWNLOAD_FEE_WOT],
  ] as const) {
    const v = pre[k];
    if (k === 'totalPrice' && (v === undefined || v === null))
      throw new Unreadable(k, code, 'preRating.totalPrice is required');
    if (v !== undefined && v !== null && typeof v !== 'string') throw new Unreadable(k, code, wrong(k));
    (amounts as Record<string, string | null | undefined>)[k] = v as string | null | undefined;
  }
}

/**
 * A legacy rating or refund body (docs/contract.md §4; a JSON object, the REST layer checked it) → the
 * typed request, or the legacy answer for a body that cannot be one (CONTRACT §4: a field of the
 * wrong JSON type gets its field's return code, not 400). The edge reads the fields in the order
 * of the service's rules (`RATING_FIELDS`, see `parseRatingRequest`), and the first it cannot
 * read is refused with its code, unless a rule of the service on the fields before it decides
 * first (`ruleBrokenBefore`), so the code is the legacy parser's:
 * - `msisdn`, `ratingParams.msisdn`: missing, null or empty 2001; another JSON type or not an
 *   MSISDN 2000;
 * - `ratingParams`, `lookup` missing or not objects, `operationId`, `providerId`, `applicationId`
 *   missing, null or not strings, `serviceId`, `originId`, `bundleId` not strings 2001;
 * - `contentId` missing or null 2001, not a string 2101; `contentDescription` not a string 2102;
 * - `preRating` present and not an object 2001; `totalPrice` missing, null or not a string 2103;
 *   `retailPrice` 2104, `calculatedTax` 2105, `calculatedPromo` 2106, `downloadFeeWot` 2107 not
 *   strings.
 * A refusal carries the keys the body has as strings, for its charging CDR. MSISDNs are passed
 * as given (with their `+`). Unknown fields are dropped.
 */
export function readRatingBody(body: Json): RatingBodyReading {
  const typed: RatingRequestPrefix = {};
  try {
    read(body, typed);
    return { ok: true, input: typed as RatingRequestInput };
  } catch (err) {
    if (!(err instanceof Unreadable)) throw err;
    const earlier = ruleBrokenBefore(typed, err.field);
    return {
      ok: false,
      refusal: {
        returnCode: earlier?.returnCode ?? err.returnCode,
        reason: earlier?.reason ?? err.reason,
        facts: factsOfBody(body),
      },
    };
  }
}

/**
 * What the service decides for a legacy body before any database read: the edge's reading,
 * then the service's rules (`parseRatingRequest`) on a typed request. The legacy parser's
 * answer, for tests and tools.
 */
export function parseRatingBody(body: Json): ParsedRatingRequest {
  const reading = readRatingBody(body);
  if (!reading.ok)
    return { ok: false, returnCode: reading.refusal.returnCode, reason: reading.refusal.reason };
  return parseRatingRequest(reading.input);
}
