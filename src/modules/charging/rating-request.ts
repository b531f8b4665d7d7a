import { createHash } from 'node:crypto';
import { Money } from '../../lib/money';
import { normalizeMsisdn } from '../../lib/msisdn';
import type { ChargingCdr } from '../cdrs/cdr.recorder';
import { ReturnCode, ReturnCodeValue } from './return-codes';

/** The five catalogue lookup keys (docs/contract.md §4 `lookup`); absent optional keys are null. */
export interface RatingLookup {
  providerId: string;
  applicationId: string;
  serviceId: string | null;
  originId: string | null;
  bundleId: string | null;
}

/** Pre-rating amounts (docs/contract.md §4 `preRating`), exact decimals; absent ones are zero except totalPrice. */
export interface PreRating {
  totalPrice: Money;
  retailPrice: Money;
  calculatedTax: Money;
  calculatedPromo: Money;
  downloadFeeWot: Money;
}

/** A validated rating (or refund) request. `msisdn` is canonical (digits only). */
export interface RatingRequest {
  msisdn: string;
  operationId: string;
  contentId: string;
  contentDescription: string | null;
  lookup: RatingLookup;
  preRating: PreRating | null;
}

/** Parse outcome: the request, or the return code of the first violated rule and why. */
export type ParsedRatingRequest =
  { ok: true; request: RatingRequest } | { ok: false; returnCode: ReturnCodeValue; reason: string };

/** The catalogue lookup keys of a {@link RatingRequestInput}; absent optional keys are null or undefined. */
export interface RatingLookupInput {
  providerId: string;
  applicationId: string;
  serviceId?: string | null;
  originId?: string | null;
  bundleId?: string | null;
}

/**
 * The pre-rated amounts of a {@link RatingRequestInput}: decimal strings (non-negative, at most 6
 * fractional digits, in the subscriber's currency; the rules give 2103-2107); absent ones other
 * than totalPrice are 0.
 */
export interface PreRatingInput {
  totalPrice: string;
  retailPrice?: string | null;
  calculatedTax?: string | null;
  calculatedPromo?: string | null;
  downloadFeeWot?: string | null;
}

/** `ratingParams` of a {@link RatingRequestInput}. */
export interface RatingParamsInput {
  /** The subscriber again: an MSISDN, with or without `+`. */
  msisdn: string;
  operationId: string;
  contentId: string;
  contentDescription?: string | null;
  lookup: RatingLookupInput;
  preRating?: PreRatingInput | null;
}

/**
 * A rating or refund request with every field of its type and every required one present (spec
 * 2.4): GraphQL's `RatingRequestInput`, or a legacy body the REST edge read (src/rest/rating-input.ts
 * answers the bodies that cannot be one). `msisdn` is an MSISDN, with or without `+`. What such a
 * request can still break is the service's: {@link parseRatingRequest}.
 */
export interface RatingRequestInput {
  msisdn: string;
  ratingParams: RatingParamsInput;
}

/**
 * The fields of a request in the order the rules judge them (see {@link parseRatingRequest});
 * lookup and preRating keys by their own name.
 */
export const RATING_FIELDS = [
  'msisdn',
  'ratingParams',
  'ratingParams.msisdn',
  'operationId',
  'lookup',
  'providerId',
  'applicationId',
  'serviceId',
  'originId',
  'bundleId',
  'contentId',
  'contentDescription',
  'preRating',
  'totalPrice',
  'retailPrice',
  'calculatedTax',
  'calculatedPromo',
  'downloadFeeWot',
] as const;

/** One of {@link RATING_FIELDS}. */
export type RatingField = (typeof RATING_FIELDS)[number];

/**
 * The fields of a {@link RatingRequestInput} that precede one field in {@link RATING_FIELDS} order,
 * as the REST edge has read them when that field cannot be read (see {@link ruleBrokenBefore}):
 * the fields from that one on may be absent.
 */
export interface RatingRequestPrefix {
  msisdn?: string;
  ratingParams?: Partial<Omit<RatingParamsInput, 'lookup' | 'preRating'>> & {
    lookup?: Partial<RatingLookupInput>;
    preRating?: Partial<PreRatingInput> | null;
  };
}

/** The keys a charging CDR records of a request (cut to their column sizes), whatever its outcome. */
export type RatingRequestFacts = Pick<ChargingCdr, 'operationId' | 'msisdn' | 'lookup'>;

/**
 * A request refused before it became a {@link RatingRequestInput} (its legacy body lacks a
 * required field, has one of the wrong JSON type, or a malformed MSISDN; CONTRACT §4), as the
 * REST edge decided it: the return code, why, and the request's keys for its charging CDR.
 */
export interface TransportRefusal {
  returnCode: ReturnCodeValue;
  reason: string;
  facts: RatingRequestFacts;
}

class Reject {
  constructor(
    readonly returnCode: ReturnCodeValue,
    readonly reason: string,
  ) {}
}

/** Thrown by the rules on reaching the field they were asked to stop before. */
class Stop {}

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

function requiredString(v: string, key: string, code: ReturnCodeValue, max: number): string {
  if (v === '') throw new Reject(ReturnCode.INVALID_PARAMETER, `${key} is required`);
  return optionalString(v, key, code, max)!;
}

function optionalString(
  v: string | null | undefined,
  key: string,
  code: ReturnCodeValue,
  max: number,
): string | null {
  if (v === undefined || v === null) return null;
  if (v.length > max || CONTROL.test(v))
    throw new Reject(code, `${key} must be a string of at most ${max} characters without control characters`);
  return v;
}

function msisdnOf(v: string, where: string): string {
  if (v === '') throw new Reject(ReturnCode.INVALID_PARAMETER, `${where} is required`);
  const m = normalizeMsisdn(v);
  if (!m) throw new Reject(ReturnCode.INVALID_NUMBER, `${where} is not an MSISDN`);
  return m;
}

function amount(v: string | null | undefined, key: string, code: ReturnCodeValue): Money {
  if (v === undefined || v === null) return Money.ZERO;
  if (!Money.isValid(v))
    throw new Reject(
      code,
      `preRating.${key} must be a non-negative decimal string with at most 6 fractional digits`,
    );
  return Money.parse(v);
}

/**
 * The rules, in {@link RATING_FIELDS} order; with `stop`, they end (throwing {@link Stop}) on
 * reaching that field, so only the fields before it are read.
 */
function judge(input: RatingRequestPrefix, stop: RatingField | null): RatingRequest {
  const reach = (f: RatingField) => {
    if (f === stop) throw new Stop();
  };
  reach('msisdn');
  const msisdn = msisdnOf(input.msisdn as string, 'msisdn');
  reach('ratingParams');
  const params = input.ratingParams as NonNullable<RatingRequestPrefix['ratingParams']>;
  reach('ratingParams.msisdn');
  if (msisdnOf(params.msisdn as string, 'ratingParams.msisdn') !== msisdn)
    throw new Reject(ReturnCode.INVALID_PARAMETER, 'ratingParams.msisdn differs from msisdn');
  reach('operationId');
  const operationId = requiredString(
    params.operationId as string,
    'operationId',
    ReturnCode.INVALID_PARAMETER,
    128,
  );
  reach('lookup');
  const l = params.lookup as Partial<RatingLookupInput>;
  const key = (k: keyof RatingLookupInput, required: boolean) => {
    reach(k);
    return required
      ? requiredString(l[k] as string, k, ReturnCode.INVALID_PARAMETER, 64)
      : optionalString(l[k], k, ReturnCode.INVALID_PARAMETER, 64);
  };
  const lookup: RatingLookup = {
    providerId: key('providerId', true)!,
    applicationId: key('applicationId', true)!,
    serviceId: key('serviceId', false),
    originId: key('originId', false),
    bundleId: key('bundleId', false),
  };
  reach('contentId');
  const contentId = requiredString(
    params.contentId as string,
    'contentId',
    ReturnCode.INVALID_CONTENT_ID,
    64,
  );
  reach('contentDescription');
  const contentDescription = optionalString(
    params.contentDescription,
    'contentDescription',
    ReturnCode.INVALID_CONTENT_DESCRIPTION,
    255,
  );
  reach('preRating');
  let preRating: PreRating | null = null;
  const p = params.preRating;
  if (p !== undefined && p !== null) {
    const price = (k: keyof PreRatingInput, code: ReturnCodeValue) => {
      reach(k);
      return amount(p[k], k, code);
    };
    preRating = {
      totalPrice: price('totalPrice', ReturnCode.INVALID_TOTAL_PRICE),
      retailPrice: price('retailPrice', ReturnCode.INVALID_RETAIL_PRICE),
      calculatedTax: price('calculatedTax', ReturnCode.INVALID_CALCULATED_TAX),
      calculatedPromo: price('calculatedPromo', ReturnCode.INVALID_CALCULATED_PROMO),
      downloadFeeWot: price('downloadFeeWot', ReturnCode.INVALID_DOWNLOAD_FEE_WOT),
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
  return { msisdn, operationId, contentId, contentDescription, lookup, preRating };
}

/**
 * Validates a typed rating request (docs/contract.md §4) and returns the first violated rule's return code
 * (CONTRACT §4). The rules a request of the right types can still break, in the order that
 * decides the code when several are (a field missing, of another JSON type or a malformed MSISDN
 * never gets here: GraphQL refuses it by coercion, the REST edge answers it in this same order):
 * 1. `msisdn` empty 2001, not an MSISDN 2000;
 * 2. `ratingParams.msisdn` the same, then different from `msisdn` (after removing `+`) 2001;
 * 3. `operationId` empty, over 128 characters or with control characters 2001;
 * 4. `providerId`, `applicationId` empty 2001; any lookup key over 64 characters or with control
 *    characters 2001;
 * 5. `contentId` empty 2001, otherwise not 1–64 characters without control characters 2101;
 *    `contentDescription` over 255 characters or with control characters 2102;
 * 6. `preRating` (optional): `totalPrice` not a non-negative decimal with at most 6 fractional
 *    digits 2103, then `retailPrice` 2104, `calculatedTax` 2105, `calculatedPromo` 2106,
 *    `downloadFeeWot` 2107 (absent ones are 0);
 * 7. `totalPrice ≠ retailPrice + calculatedTax + downloadFeeWot − calculatedPromo` 2108.
 */
export function parseRatingRequest(input: RatingRequestInput): ParsedRatingRequest {
  try {
    return { ok: true, request: judge(input, null) };
  } catch (err) {
    if (err instanceof Reject) return { ok: false, returnCode: err.returnCode, reason: err.reason };
    throw err;
  }
}

/**
 * The first rule of {@link parseRatingRequest} that the fields before `field` break, or null: for
 * the REST edge, which answers a field it cannot read with that field's legacy code only when no
 * earlier rule decides first (CONTRACT §4 order). Reads only the fields before `field`.
 */
export function ruleBrokenBefore(
  input: RatingRequestPrefix,
  field: RatingField,
): { returnCode: ReturnCodeValue; reason: string } | null {
  try {
    judge(input, field);
    return null;
  } catch (err) {
    if (err instanceof Stop) return null;
    if (err instanceof Reject) return { returnCode: err.returnCode, reason: err.reason };
    throw err;
  }
}

/** The charging CDR keys of a typed request the rules refused: its strings, cut to the column sizes. */
export function factsOf(input: RatingRequestInput): RatingRequestFacts {
  const cut = (v: string | null | undefined, max: number) => (typeof v === 'string' ? v.slice(0, max) : null);
  const l = input.ratingParams.lookup;
  return {
    operationId: cut(input.ratingParams.operationId, 128),
    msisdn: cut(input.msisdn, 32),
    lookup: {
      providerId: cut(l.providerId, 64),
      applicationId: cut(l.applicationId, 64),
      serviceId: cut(l.serviceId, 64),
      originId: cut(l.originId, 64),
      bundleId: cut(l.bundleId, 64),
    },
  };
}

/**
 * SHA-256 of the request's canonical form: a repeat of "the same request" under an operationId
 * has the same fingerprint (CONTRACT §4 exactly-once); `kind` separates ratings from refunds.
 */
export function fingerprint(kind: string, r: RatingRequest): string {
  const canonical = JSON.stringify([
    kind,
    r.msisdn,
    r.operationId,
    r.contentId,
    r.contentDescription,
    [r.lookup.providerId, r.lookup.applicationId, r.lookup.serviceId, r.lookup.originId, r.lookup.bundleId],
    r.preRating &&
      [
        r.preRating.totalPrice,
        r.preRating.retailPrice,
        r.preRating.calculatedTax,
        r.preRating.calculatedPromo,
        r.preRating.downloadFeeWot,
      ].map((m) => m.micros.toString()),
  ]);
  return createHash('sha256').update(canonical).digest('hex');
}
