import type DataLoader from 'dataloader';
import type { KeysetPage } from '../../db/keyset';
import { Knex } from 'knex';
import { KeyedBulkhead } from '../../lib/bulkhead';
import { Clock } from '../../lib/clock';
import { Money } from '../../lib/money';
import { Logger } from '../../logger';
import { CdrRecorder, ChargingCdr } from '../cdrs/cdr.recorder';
import { Subscriber } from '../subscribers/subscriber.store';
import { Adjusted, BalanceAdjustmentService } from './balance-adjustment.service';
import { CatalogueService, RatingEntryInput } from './catalogue.service';
import { recordTransportRefusal } from './charging-cdr';
import { OperationDeps } from './charging-operation';
import { ChargingCaller, RatingOutcome } from './charging-outcome';
import { ChargeRow, RatingRow } from './charging.store';
import { LedgerService } from './ledger.service';
import { RatingService } from './rating.service';
import { RatingRequestInput, TransportRefusal } from './rating-request';
import { RefundService } from './refund.service';

export type { ChargingCaller, RatingOutcome } from './charging-outcome';

/**
 * Charging of subscriber accounts (docs/contract.md §4) as one object for the app's wiring: each
 * method hands over to the service of its noun: rating (rating.service.ts), refund
 * (refund.service.ts), the ledger (ledger.service.ts), the rating catalogue (catalogue.service.ts)
 * and balance adjustments (balance-adjustment.service.ts). Rating and refund share the
 * exactly-once frame (charging-operation.ts) and the charging CDR frame (charging-cdr.ts).
 */
export class ChargingService {
  private readonly operations: OperationDeps;
  private readonly rater: RatingService;
  private readonly refunds: RefundService;
  private readonly ledger: LedgerService;
  private readonly catalogue: CatalogueService;
  private readonly adjustments: BalanceAdjustmentService;

  /**
   * @param db the database every service reads and writes.
   * @param timeoutMs RATING_TIMEOUT_MS: a rating or refund's budget from the request's arrival.
   */
  constructor(db: Knex, clock: Clock, timeoutMs: number, logger: Logger) {
    this.operations = {
      knex: db,
      clock,
      timeoutMs,
      logger,
      cdrs: new CdrRecorder(clock),
      bulkhead: new KeyedBulkhead(1),
    };
    this.rater = new RatingService(this.operations);
    this.refunds = new RefundService(this.operations);
    this.ledger = new LedgerService({ knex: db });
    this.catalogue = new CatalogueService({ knex: db, clock });
    this.adjustments = new BalanceAdjustmentService({ knex: db, clock });
  }

  /** Rates and charges one typed request; see RatingService.processRating. */
  processRating(caller: ChargingCaller, input: RatingRequestInput): Promise<RatingOutcome> {
    return this.rater.processRating(caller, input);
  }

  /** Refunds a successful charge; see RefundService.processRefund. */
  processRefund(caller: ChargingCaller, input: RatingRequestInput): Promise<RatingOutcome> {
    return this.refunds.processRefund(caller, input);
  }

  /** Records a request the transport refused, with its charging CDR; see recordTransportRefusal in charging-cdr.ts. */
  recordTransportRefusal(
    caller: ChargingCaller,
    kind: ChargingCdr['kind'],
    refusal: TransportRefusal,
  ): Promise<RatingOutcome> {
    return recordTransportRefusal(this.operations, caller, kind, refusal);
  }

  /** A subscriber of the tenant by MSISDN; see LedgerService.subscriber. */
  subscriber(caller: ChargingCaller, msisdn: string): Promise<Subscriber | undefined> {
    return this.ledger.subscriber(caller, msisdn);
  }

  /** A per-request DataLoader of the tenant's subscribers by canonical MSISDN; see LedgerService.subscribersLoader. */
  subscribersLoader(
    caller: ChargingCaller,
    beforeQuery?: () => void,
  ): DataLoader<string, Subscriber | undefined> {
    return this.ledger.subscribersLoader(caller, beforeQuery);
  }

  /** One page of a subscriber's ledger; see LedgerService.chargePage. */
  chargePage(caller: ChargingCaller, msisdn: string, page: KeysetPage<number>): Promise<ChargeRow[]> {
    return this.ledger.chargePage(caller, msisdn, page);
  }

  /** How many ledger entries a subscriber has; see LedgerService.chargeCount. */
  chargeCount(caller: ChargingCaller, msisdn: string): Promise<number> {
    return this.ledger.chargeCount(caller, msisdn);
  }

  /** Ledger entries by row id, in one statement; see LedgerService.charges. */
  charges(caller: ChargingCaller, ids: readonly number[]): Promise<ChargeRow[]> {
    return this.ledger.charges(caller, ids);
  }

  /** One page of the rating catalogue; see CatalogueService.ratings. */
  ratings(caller: ChargingCaller, page: KeysetPage<number>): Promise<RatingRow[]> {
    return this.catalogue.ratings(caller, page);
  }

  /** How many catalogue entries the tenant has; see CatalogueService.ratingCount. */
  ratingCount(caller: ChargingCaller): Promise<number> {
    return this.catalogue.ratingCount(caller);
  }

  /** Catalogue entries by row id, in one statement; see CatalogueService.ratingsByIds. */
  ratingsByIds(caller: ChargingCaller, ids: readonly number[]): Promise<RatingRow[]> {
    return this.catalogue.ratingsByIds(caller, ids);
  }

  /**
   * ADMIN: creates or updates a catalogue entry; see CatalogueService.upsertRating.
   * @throws BadUserInputError naming the offending field.
   */
  upsertRating(caller: ChargingCaller, input: RatingEntryInput): Promise<RatingRow> {
    return this.catalogue.upsertRating(caller, input);
  }

  /**
   * ADMIN: adds a signed amount to a balance with a reason; see BalanceAdjustmentService.adjustBalance.
   * @throws BadUserInputError (`amount`, `reason`); NotFoundError (no such subscriber).
   */
  adjustBalance(
    caller: ChargingCaller,
    msisdn: string,
    amount: string | Money,
    reason: string,
  ): Promise<Adjusted> {
    return this.adjustments.adjustBalance(caller, msisdn, amount, reason);
  }
}
