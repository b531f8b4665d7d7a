import fc from 'fast-check';
import { factsOf, parseRatingRequest } from '../../src/modules/charging/rating-request';
import { parseRatingBody, readRatingBody } from '../../src/rest/rating-input';
import { ratingBody } from '../helpers/charging';
import { legacyParseRatingRequest, legacyRawKeysOf } from '../helpers/legacy-rating';

/**
 * A legacy rating body read at the REST edge (the typed request, or the edge's refusal) and then
 * judged by the service's rules must get the return code (or the parsed request) the legacy
 * parser gave the raw body (docs/contract.md §4): every missing, null
 * or wrongly typed field, alone or with others, in every position; and a refused body's charging
 * CDR keys must be those the legacy service recorded.
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

describe('rating bodies read at the REST edge keep their return codes', () => {
  it('the typed input answers as the raw body did', () => {
    fc.assert(
      fc.property(fc.oneof(mutated, random), (body) => {
        const legacy = legacyParseRatingRequest(body);
        const typed = parseRatingBody(body);
        expect(typed.ok ? typed : { ok: false, returnCode: typed.returnCode }).toEqual(
          legacy.ok ? legacy : { ok: false, returnCode: legacy.returnCode },
        );
      }),
      { numRuns: 5000 },
    );
  });

  it('a preRating that is not an object: 2001 unless an earlier rule fails first', () => {
    const code = (b: Record<string, unknown>) => {
      const r = parseRatingBody(b);
      return r.ok ? 0 : r.returnCode;
    };
    expect(code(ratingBody({ preRating: 'cheap' }))).toBe(2001);
    expect(code(ratingBody({ preRating: 'cheap', contentId: 5 }))).toBe(2101);
    expect(code(ratingBody({ preRating: 'cheap', contentDescription: 'x'.repeat(256) }))).toBe(2102);
    expect(code(ratingBody({ preRating: 'cheap' }, { msisdn: 'abc' }))).toBe(2000);
  });

  it("a refused body's CDR keys are the legacy ones; a typed request is the body's strings", () => {
    fc.assert(
      fc.property(fc.oneof(mutated, random), (body) => {
        const reading = readRatingBody(body);
        if (!reading.ok) {
          expect(reading.refusal.facts).toEqual(legacyRawKeysOf(body));
          return;
        }
        // No stand-in: every value of the typed request is the body's own.
        expect(reading.input.msisdn).toBe(body.msisdn);
        expect(reading.input.ratingParams.operationId).toBe(
          (body.ratingParams as Record<string, unknown>).operationId,
        );
        if (!parseRatingRequest(reading.input).ok)
          expect(factsOf(reading.input)).toEqual(legacyRawKeysOf(body));
      }),
      { numRuns: 5000 },
    );
  });
});
