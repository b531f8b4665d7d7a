import { parseRatingRequest } from '../modules/charging/rating-request';

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Not an MSISDN (and not empty): breaks the MSISDN rules with 2000. */
const NOT_MSISDN = '?';
/** A control character: breaks the string rules with the field's code (2001, 2101, 2102). */
const CONTROL = '\u0000';
/** Not a decimal: breaks the amount rules with the field's code (2103-2107). */
const NOT_DECIMAL = '?';

/**
 * A string field as given; absent or null as absent; another JSON type as `standIn`, a string
 * that breaks the same rule with the same return code.
 */
function str(obj: Json, key: string, standIn: string | null): string | null | undefined {
  const v = obj[key];
  if (v === undefined) return undefined;
  if (v === null || typeof v === 'string') return v;
  return standIn;
}

/** The keys `keys` of `obj` read by {@link str}, each with its stand-in. */
const strings = (obj: Json, keys: [string, string | null][]): Json =>
  Object.fromEntries(keys.map(([k, standIn]) => [k, str(obj, k, standIn)]));

/**
 * A legacy rating or refund body → `RatingRequestInput` (issue 11 Part 1). This is the one
 * place that knows the legacy body's JSON types: CONTRACT §4 gives a field of the wrong JSON type
 * its field's return code, in the order of the service's rules (`parseRatingRequest`), and
 * GraphQL cannot carry a wrongly typed value. So each is replaced by a typed stand-in that
 * breaks the same rule, at the same place, with the same code:
 * - `msisdn`, `ratingParams.msisdn`: `'?'`, not an MSISDN (2000);
 * - `ratingParams` and `lookup` not objects, `operationId`, `providerId`, `applicationId`: absent
 *   (required, 2001; the legacy code for a wrong type is the same 2001);
 * - `serviceId`, `originId`, `bundleId`, `contentId`, `contentDescription`: a control character
 *   (2001, 2101, 2102);
 * - the `preRating` amounts: `'?'`, not a decimal (2103-2107);
 * - `preRating` present but not an object has no typed stand-in at its place (2001, after
 *   `contentDescription`): the input without it is judged by the service's own rules, and when
 *   an earlier rule fails that one answers as before; otherwise `ratingParams` is left out,
 *   which answers the same 2001 (nothing is charged either way).
 * Unknown fields are dropped. The top level is a JSON object (the REST layer checked it).
 */
export function ratingInputOf(body: Json): Json {
  const input: Json = strings(body, [['msisdn', NOT_MSISDN]]);
  const params = body.ratingParams;
  if (params === undefined) return input;
  if (!isObject(params)) return { ...input, ratingParams: null };
  const p: Json = strings(params, [
    ['msisdn', NOT_MSISDN],
    ['operationId', null],
    ['contentId', CONTROL],
    ['contentDescription', CONTROL],
  ]);
  const lookup = params.lookup;
  if (lookup !== undefined)
    p.lookup = isObject(lookup)
      ? strings(lookup, [
          ['providerId', null],
          ['applicationId', null],
          ['serviceId', CONTROL],
          ['originId', CONTROL],
          ['bundleId', CONTROL],
        ])
      : null;
  const pre = params.preRating;
  if (pre === undefined || pre === null || isObject(pre)) {
    if (isObject(pre))
      p.preRating = strings(
        pre,
        ['totalPrice', 'retailPrice', 'calculatedTax', 'calculatedPromo', 'downloadFeeWot'].map(
          (k) => [k, NOT_DECIMAL] as [string, string],
        ),
      );
    else if (pre === null) p.preRating = null;
    return { ...input, ratingParams: p };
  }
  const typed = { ...input, ratingParams: p };
  return parseRatingRequest(typed).ok ? { ...input, ratingParams: null } : typed;
}
