import fc from 'fast-check';
import { parseRatingRequest } from '../../src/modules/charging/rating-request';
import { ratingInputOf } from '../../src/rest/rating-input';
import { ratingBody } from '../helpers/charging';

/**
 * A legacy rating body mapped onto `RatingRequestInput` must get the return code (or the parsed
 * request) the legacy parser gave the raw body (issue 11 Part 1, CONTRACT §4): every wrongly
 * typed field, alone or with others, in every position.
 */
const leaf = fc.oneof(
  fc.constantFrom(
    '353871234567',
    '+353871234567',
    '',
    '\u0000',
    '1.00',
    '0.12',
    '0',
    'x'.repeat(300),
    'op-1',
  ),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.constant([]),
  fc.constant({}),
);
const maybe = <T>(arb: fc.Arbitrary<T>) => fc.oneof(arb, leaf);
const amounts = fc.record(
  { totalPrice: leaf, retailPrice: leaf, calculatedTax: leaf, calculatedPromo: leaf, downloadFeeWot: leaf },
  { requiredKeys: [] },
);
const lookup = fc.record(
  { providerId: leaf, applicationId: leaf, serviceId: leaf, originId: leaf, bundleId: leaf },
  { requiredKeys: [] },
);
const params = fc.record(
  {
    msisdn: leaf,
    operationId: leaf,
    contentId: leaf,
    contentDescription: leaf,
    lookup: maybe(lookup),
    preRating: maybe(amounts),
    extra: leaf,
  },
  { requiredKeys: [] },
);
/** Valid bodies with one to three fields replaced, and wholly random ones. */
const mutated = fc
  .tuple(
    fc.subarray(
      [
        'msisdn',
        'ratingParams',
        'ratingParams.msisdn',
        'operationId',
        'contentId',
        'contentDescription',
        'lookup',
        'providerId',
        'serviceId',
        'preRating',
        'totalPrice',
        'retailPrice',
      ],
      { minLength: 1, maxLength: 3 },
    ),
    fc.array(leaf, { minLength: 3, maxLength: 3 }),
  )
  .map(([paths, values]) => {
    const b = ratingBody({}, { preRating: { totalPrice: '0.12', retailPrice: '0.12' } });
    // Sets a key of an object that an earlier replacement may have turned into something else.
    const set = (o: unknown, k: string, v: unknown) => {
      if (typeof o === 'object' && o !== null && !Array.isArray(o)) (o as Record<string, unknown>)[k] = v;
    };
    const at = (o: unknown, k: string) =>
      typeof o === 'object' && o !== null ? (o as Record<string, unknown>)[k] : undefined;
    paths.forEach((p, i) => {
      const v = values[i];
      const params = b.ratingParams;
      if (p === 'msisdn' || p === 'ratingParams') b[p] = v;
      else if (p === 'ratingParams.msisdn') set(params, 'msisdn', v);
      else if (p === 'providerId' || p === 'serviceId') set(at(params, 'lookup'), p, v);
      else if (p === 'totalPrice' || p === 'retailPrice') set(at(params, 'preRating'), p, v);
      else set(params, p, v);
    });
    return b as Record<string, unknown>;
  });
const random = fc.record({ msisdn: leaf, ratingParams: maybe(params) }, { requiredKeys: [] });

describe('rating bodies mapped onto RatingRequestInput keep their return codes', () => {
  it('the typed input answers as the raw body did', () => {
    fc.assert(
      fc.property(fc.oneof(mutated, random), (body) => {
        const legacy = parseRatingRequest(body);
        const typed = parseRatingRequest(ratingInputOf(body));
        expect(typed.ok ? typed : { ok: false, returnCode: typed.returnCode }).toEqual(
          legacy.ok ? legacy : { ok: false, returnCode: legacy.returnCode },
        );
      }),
      { numRuns: 5000 },
    );
  });

  it('a preRating that is not an object: 2001 unless an earlier rule fails first', () => {
    const code = (b: Record<string, unknown>) => {
      const r = parseRatingRequest(ratingInputOf(b));
      return r.ok ? 0 : r.returnCode;
    };
    expect(code(ratingBody({ preRating: 'cheap' }))).toBe(2001);
    expect(code(ratingBody({ preRating: 'cheap', contentId: 5 }))).toBe(2101);
    expect(code(ratingBody({ preRating: 'cheap', contentDescription: 'x'.repeat(256) }))).toBe(2102);
    expect(code(ratingBody({ preRating: 'cheap' }, { msisdn: 'abc' }))).toBe(2000);
  });
});
