import { Money } from '../../src/lib/money';
import { bestMatch } from '../../src/modules/charging/rating.service';
import { RatingRow } from '../../src/modules/charging/charging.store';
import {
  RatingParamsInput,
  RatingRequestInput,
  fingerprint,
  parseRatingRequest as parseTyped,
  ruleBrokenBefore,
} from '../../src/modules/charging/rating-request';
import { returnCodeName } from '../../src/modules/charging/return-codes';
// A legacy body as the REST edge reads it and the service's rules judge it (docs/contract.md §4).
import { parseRatingBody as parseRatingRequest } from '../../src/rest/rating-input';
import { ratingBody } from '../helpers/charging';

describe('parseRatingRequest (CONTRACT §4 validation order)', () => {
  it('accepts a valid body, canonicalising msisdns and defaulting absent pre-rating amounts to zero', () => {
    const r = parseRatingRequest(
      ratingBody({ msisdn: '+353871234567' }, { preRating: { totalPrice: '1.5', retailPrice: '1.5' } }),
    );
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.request.msisdn).toBe('353871234567');
    expect(r.request.preRating!.totalPrice.toString()).toBe('1.50');
    expect(r.request.preRating!.calculatedPromo.isZero()).toBe(true);
    expect(r.request.lookup.serviceId).toBe('30000020');
  });

  it('applies the exact formula totalPrice = retailPrice + calculatedTax + downloadFeeWot − calculatedPromo', () => {
    const pre = {
      totalPrice: '1.000001',
      retailPrice: '0.9',
      calculatedTax: '0.1',
      downloadFeeWot: '0.100001',
      calculatedPromo: '0.1',
    };
    expect(parseRatingRequest(ratingBody({}, { preRating: pre })).ok).toBe(true);
    expect(
      parseRatingRequest(ratingBody({}, { preRating: { ...pre, totalPrice: '1.000002' } })),
    ).toMatchObject({ ok: false, returnCode: 2108 });
  });

  it('reports the first rule broken when several are', () => {
    const body = ratingBody({ contentId: 7, operationId: undefined }, { top: { msisdn: 'bad' } });
    expect(parseRatingRequest(body)).toMatchObject({ ok: false, returnCode: 2000 });
    expect(parseRatingRequest(ratingBody({ contentId: 7, operationId: undefined }))).toMatchObject({
      ok: false,
      returnCode: 2001,
    });
    expect(parseRatingRequest(ratingBody({ contentId: 7 }))).toMatchObject({ ok: false, returnCode: 2101 });
  });

  it('fingerprints equal requests equally, whatever the + and key order, and different ones differently', () => {
    const a = ratingBody({ operationId: 'same' });
    const b = JSON.parse(JSON.stringify(a));
    b.msisdn = `+${b.msisdn}`;
    b.ratingParams = Object.fromEntries(Object.entries(b.ratingParams).reverse());
    const pa = parseRatingRequest(a);
    const pb = parseRatingRequest(b);
    if (!pa.ok || !pb.ok) throw new Error('should parse');
    expect(fingerprint('charge', pa.request)).toBe(fingerprint('charge', pb.request));
    expect(fingerprint('refund', pa.request)).not.toBe(fingerprint('charge', pa.request));
    const pc = parseRatingRequest(ratingBody({ operationId: 'same', contentId: 'other' }));
    if (!pc.ok) throw new Error('should parse');
    expect(fingerprint('charge', pc.request)).not.toBe(fingerprint('charge', pa.request));
  });

  it('names return codes', () => {
    expect(returnCodeName(1000)).toBe('INSUFFICIENT_FUNDS');
    expect(returnCodeName(5001)).toBe('INTERNAL_TIMEOUT');
  });
});

describe('bestMatch (most specific catalogue entry wins)', () => {
  const row = (
    serviceId: string,
    originId: string,
    bundleId: string,
    id: number,
    kind: 'content' | 'transport' = 'content',
  ): RatingRow => ({
    id,
    tenantId: 1,
    providerId: 'p',
    applicationId: 'a',
    serviceId,
    originId,
    bundleId,
    kind,
    retailPrice: Money.ZERO,
    tax: Money.ZERO,
  });
  const rows = [
    row('*', '*', '*', 1),
    row('S', '*', '*', 2),
    row('*', 'O', 'B', 3),
    row('S', 'O', '*', 4),
    row('*', '*', '*', 5, 'transport'),
  ];
  const lookup = (serviceId: string | null, originId: string | null, bundleId: string | null) => ({
    providerId: 'p',
    applicationId: 'a',
    serviceId,
    originId,
    bundleId,
  });

  it.each([
    [lookup('S', 'O', 'B'), 4],
    [lookup('S', 'X', 'B'), 2],
    [lookup('X', 'O', 'B'), 3],
    [lookup('X', 'O', 'X'), 1],
    [lookup(null, null, null), 1],
  ])('%j → rating %d', (l, id) => {
    expect(bestMatch(rows, l, 'content')?.id).toBe(id);
  });

  it('keeps kinds apart', () => {
    expect(bestMatch(rows, lookup('S', 'O', 'B'), 'transport')?.id).toBe(5);
    expect(bestMatch([row('S', '*', '*', 9)], lookup('X', null, null), 'content')).toBeUndefined();
  });
});

describe('the typed request: the service rules and ruleBrokenBefore', () => {
  const typed = (patch: Partial<RatingParamsInput> = {}): RatingRequestInput => ({
    msisdn: '+353871234567',
    ratingParams: {
      msisdn: '353871234567',
      operationId: 'op-1',
      contentId: 'content-1',
      lookup: { providerId: '6010', applicationId: '50000029' },
      ...patch,
    },
  });

  it('judges what a typed value can still break, in the documented order', () => {
    expect(parseTyped(typed())).toMatchObject({ ok: true, request: { msisdn: '353871234567' } });
    expect(parseTyped(typed({ operationId: '' }))).toMatchObject({ returnCode: 2001 });
    expect(parseTyped(typed({ contentId: 'c'.repeat(65) }))).toMatchObject({ returnCode: 2101 });
    expect(parseTyped(typed({ contentId: 'c'.repeat(65), operationId: 'o'.repeat(129) }))).toMatchObject({
      returnCode: 2001,
    });
    expect(parseTyped(typed({ contentDescription: 'd\u0001' }))).toMatchObject({ returnCode: 2102 });
    expect(parseTyped(typed({ preRating: { totalPrice: '1.0000001' } }))).toMatchObject({ returnCode: 2103 });
    expect(parseTyped(typed({ preRating: { totalPrice: '1', calculatedPromo: 'x' } }))).toMatchObject({
      returnCode: 2106,
    });
    expect(parseTyped(typed({ preRating: { totalPrice: '1', retailPrice: '0.5' } }))).toMatchObject({
      returnCode: 2108,
    });
    expect(parseTyped(typed({ msisdn: '353870000000' }))).toMatchObject({ returnCode: 2001 });
  });

  it('ruleBrokenBefore reads only the fields before the one named', () => {
    const long = typed({ operationId: 'o'.repeat(129) });
    // The fields from `contentId` on are absent: the rules stop there.
    const prefix = { msisdn: long.msisdn, ratingParams: { ...long.ratingParams, contentId: undefined } };
    expect(ruleBrokenBefore(prefix, 'contentId')).toMatchObject({ returnCode: 2001 });
    expect(ruleBrokenBefore(prefix, 'operationId')).toBeNull();
    expect(ruleBrokenBefore({}, 'msisdn')).toBeNull();
    expect(ruleBrokenBefore({ msisdn: '353871234567' }, 'ratingParams')).toBeNull();
  });
});
