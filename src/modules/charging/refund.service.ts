import { Knex } from 'knex';
import { assertBeforeDeadline } from '../../lib/request-scope';
import { findSubscriberForUpdate } from '../subscribers/subscriber.store';
import { withChargingCdr } from './charging-cdr';
import { atStage } from './charging-failure';
import { Decided, Operation, OperationDeps, recordOutcome, runOperation } from './charging-operation';
import { ChargingCaller, RatingOutcome, Settled, outcome, unrecorded } from './charging-outcome';
import { ChargeRow, creditLockedSubscriber, findCharge } from './charging.store';
import { ParsedRatingRequest, RatingRequest, RatingRequestInput, parseRatingRequest } from './rating-request';
import { ReturnCode } from './return-codes';

/** True when `charge` is a successful charge of the refund request's operationId and msisdn. */
function refundable(charge: ChargeRow | undefined, r: RatingRequest): charge is ChargeRow {
  return !!charge && charge.returnCode === ReturnCode.SUCCESS && charge.msisdn === r.msisdn;
}

/**
 * Refunds of successful charges (docs/contract.md §4), run through the exactly-once frame
 * (charging-operation.ts) with their charging CDR (charging-cdr.ts).
 */
export class RefundService {
  constructor(private readonly deps: OperationDeps) {}

  /**
   * Refunds the successful charge with the request's operationId and msisdn: validation as
   * processRating, then a download fee in the request 3004; nothing to refund 4001; otherwise the
   * charged amount is credited back once (repeats answer 0 and credit nothing). Failures map as
   * for processRating. Never throws for a failure.
   */
  processRefund(caller: ChargingCaller, input: RatingRequestInput): Promise<RatingOutcome> {
    const parsed = parseRatingRequest(input);
    return withChargingCdr(this.deps, caller, 'refund', parsed, input, () => this.refund(caller, parsed));
  }

  /** processRefund past the charging CDR frame: the refusals before any statement, then the operation. */
  private refund(caller: ChargingCaller, parsed: ParsedRatingRequest): Promise<Settled> {
    if (!parsed.ok) return Promise.resolve(unrecorded(outcome(parsed.returnCode)));
    const r = parsed.request;
    if (r.preRating && !r.preRating.downloadFeeWot.isZero())
      return Promise.resolve(unrecorded(outcome(ReturnCode.DOWNLOAD_FEE_IN_REFUND, r.operationId)));
    return runOperation(this.deps, caller, 'refund', r, (trx, op) => this.credit(trx, op));
  }

  /** The refund's own steps: read the charge → lock the subscriber → credit → record. */
  private async credit(trx: Knex.Transaction, op: Operation): Promise<Decided> {
    const { caller, request: r } = op;
    const charge = await atStage('replay', () => findCharge(trx, caller.tenantId, 'charge', r.operationId));
    if (!refundable(charge, r))
      return { outcome: outcome(ReturnCode.REFUND_FAILED, r.operationId), stage: 'replay' };
    assertBeforeDeadline('operation');
    const sub = await atStage('lookup', () => findSubscriberForUpdate(trx, caller.tenantId, r.msisdn));
    if (!sub) return { outcome: outcome(ReturnCode.REFUND_FAILED, r.operationId), stage: 'lookup' };
    assertBeforeDeadline('operation');
    const balance = await atStage('charging', () => creditLockedSubscriber(trx, sub, charge.amount));
    return recordOutcome(this.deps, trx, op, {
      code: ReturnCode.SUCCESS,
      sub,
      amount: charge.amount,
      balance,
    });
  }
}
