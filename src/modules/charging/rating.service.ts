import { Knex } from 'knex';
import { Money } from '../../lib/money';
import { assertBeforeDeadline } from '../../lib/request-scope';
import { findSubscriberForUpdate } from '../subscribers/subscriber.store';
import { withChargingCdr } from './charging-cdr';
import { atStage } from './charging-failure';
import { Decided, Operation, OperationDeps, recordOutcome, runOperation } from './charging-operation';
import { ChargingCaller, RatingOutcome, outcome, unrecorded } from './charging-outcome';
import { RatingRow, WILDCARD, chargeLockedSubscriber, ratingsFor } from './charging.store';
import { RatingLookup, RatingRequest, RatingRequestInput, parseRatingRequest } from './rating-request';
import { ReturnCode, ReturnCodeValue } from './return-codes';

/**
 * The most specific matching catalogue entry of `kind` (docs/contract.md §4): each optional key
 * matches its value or the wildcard; more exact keys win, and on a tie serviceId weighs most,
 * then originId, then bundleId.
 */
export function bestMatch(
  ratings: RatingRow[],
  lookup: RatingLookup,
  kind: RatingRow['kind'],
): RatingRow | undefined {
  const matches = (stored: string, wanted: string | null) => stored === WILDCARD || stored === wanted;
  const score = (r: RatingRow) =>
    (r.serviceId !== WILDCARD ? 4 : 0) +
    (r.originId !== WILDCARD ? 2 : 0) +
    (r.bundleId !== WILDCARD ? 1 : 0);
  return ratings
    .filter(
      (r) =>
        r.kind === kind &&
        matches(r.serviceId, lookup.serviceId) &&
        matches(r.originId, lookup.originId) &&
        matches(r.bundleId, lookup.bundleId),
    )
    .sort((a, b) => score(b) - score(a))[0];
}

/**
 * What the catalogue says of a request: the amount to charge (exact, tax included), or a refusal
 * and whether it is recorded in the ledger (an unknown provider/application, 2001, is not).
 */
export type Price = { amount: Money } | { refusal: ReturnCodeValue; recorded: boolean };

/**
 * Prices a request against the provider/application's catalogue entries (docs/contract.md §4):
 * none 2001; pre-rated: its total price, but a download fee without a transport rating 3003;
 * otherwise the best content match's retail price plus tax, no match 3001.
 */
export function priceOf(r: RatingRequest, ratings: RatingRow[]): Price {
  if (ratings.length === 0) return { refusal: ReturnCode.INVALID_PARAMETER, recorded: false };
  if (r.preRating) {
    if (!r.preRating.downloadFeeWot.isZero() && !bestMatch(ratings, r.lookup, 'transport'))
      return { refusal: ReturnCode.MISSING_TRANSPORT_RATING, recorded: true };
    return { amount: r.preRating.totalPrice };
  }
  const content = bestMatch(ratings, r.lookup, 'content');
  if (!content) return { refusal: ReturnCode.NO_RATING_MATCH, recorded: true };
  return { amount: content.retailPrice.add(content.tax) };
}

/**
 * Rating and charging of one typed request (docs/contract.md §4), run through the exactly-once
 * frame (charging-operation.ts) with its charging CDR (charging-cdr.ts).
 */
export class RatingService {
  constructor(private readonly deps: OperationDeps) {}

  /**
   * Rates and charges one typed request. Order: validation (see parseRatingRequest; nothing is
   * charged), replay of a recorded operationId (same fingerprint: the first outcome; different
   * request: 2001), subscriber (unknown or not active 2000), catalogue (see {@link priceOf}),
   * balance (prepaid short 1000; postpaid accumulates). Decided outcomes (0, 1000, 2000, 3001,
   * 3003) are recorded once per operationId. Infrastructure failures roll back and map by stage
   * (see failureCode): subscriber lookup 2002 (2003 when it timed out), rating 3002,
   * balance/ledger write 4000, anything else 5000. RATING_TIMEOUT_MS counts from the request's
   * arrival (authentication included); past it nothing is committed and the answer is 5001.
   * Every outcome gets its charging CDR (see withChargingCdr). Never throws for a failure.
   */
  processRating(caller: ChargingCaller, input: RatingRequestInput): Promise<RatingOutcome> {
    const parsed = parseRatingRequest(input);
    return withChargingCdr(this.deps, caller, 'rating', parsed, input, () =>
      !parsed.ok
        ? Promise.resolve(unrecorded(outcome(parsed.returnCode)))
        : runOperation(this.deps, caller, 'charge', parsed.request, (trx, op) => this.rate(trx, op)),
    );
  }

  /** The rating's own steps: lock the subscriber → read the catalogue → price → debit → record. */
  private async rate(trx: Knex.Transaction, op: Operation): Promise<Decided> {
    const { caller, request: r } = op;
    assertBeforeDeadline('operation');
    const sub = await atStage('lookup', () => findSubscriberForUpdate(trx, caller.tenantId, r.msisdn));
    if (!sub || sub.status !== 'active')
      return recordOutcome(this.deps, trx, op, { code: ReturnCode.INVALID_NUMBER, sub: null });
    assertBeforeDeadline('operation');
    const ratings = await atStage('rating', () =>
      ratingsFor(trx, caller.tenantId, r.lookup.providerId, r.lookup.applicationId),
    );
    const price = priceOf(r, ratings);
    if ('refusal' in price)
      return price.recorded
        ? recordOutcome(this.deps, trx, op, { code: price.refusal, sub })
        : { outcome: outcome(price.refusal, r.operationId), stage: 'rating' };
    assertBeforeDeadline('operation');
    const balance = await atStage('charging', () => chargeLockedSubscriber(trx, sub, price.amount));
    return balance
      ? recordOutcome(this.deps, trx, op, { code: ReturnCode.SUCCESS, sub, amount: price.amount, balance })
      : recordOutcome(this.deps, trx, op, {
          code: ReturnCode.INSUFFICIENT_FUNDS,
          sub,
          amount: Money.ZERO,
          balance: sub.balance,
        });
  }
}
