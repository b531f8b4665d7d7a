import { Money } from '../../lib/money';
import { ChargingCdr } from '../cdrs/cdr.recorder';
import { ChargeRow } from './charging.store';
import { ReturnCode, ReturnCodeValue } from './return-codes';

/** The outcome of processRating / processRefund (docs/contract.md §4). Amounts exact, in `currency`. */
export interface RatingOutcome {
  returnCode: ReturnCodeValue;
  operationId: string | null;
  /** Charged (rating) or credited (refund) amount; null when nothing moved. */
  chargedAmount: Money | null;
  /** Balance after the operation; null when no subscriber balance is involved. */
  balance: Money | null;
  currency: string | null;
}

/** The ledger kind of a rating (`charge`) or a refund: the operations run exactly once per operationId. */
export type OperationKind = 'charge' | 'refund';

/** The caller's tenant and, for the charging CDR, the API client's username (`actor`). */
export interface ChargingCaller {
  tenantId: number;
  actor?: string;
}

/**
 * An answered rating or refund and whether its charging CDR is already written (in the
 * operation's transaction, or beside a lost race); when not, the CDR frame writes it
 * (see withChargingCdr in charging-cdr.ts).
 */
export interface Settled {
  outcome: RatingOutcome;
  cdrWritten: boolean;
}

/** An outcome that moved nothing: `returnCode` for `operationId` (null before it is known). */
export function outcome(returnCode: ReturnCodeValue, operationId: string | null = null): RatingOutcome {
  return { returnCode, operationId, chargedAmount: null, balance: null, currency: null };
}

/** An outcome whose charging CDR the CDR frame still has to write. */
export function unrecorded(o: RatingOutcome): Settled {
  return { outcome: o, cdrWritten: false };
}

/** The outcome recorded in a ledger row, as a repeat of its operationId answers it. */
export function fromLedger(row: ChargeRow): RatingOutcome {
  const moved = row.returnCode === ReturnCode.SUCCESS;
  return {
    returnCode: row.returnCode as ReturnCodeValue,
    operationId: row.operationId,
    chargedAmount: moved ? row.amount : null,
    balance: row.balanceAfter,
    currency: row.currency,
  };
}

/** The CDR's result fields of an outcome: its returnCode, the amount moved, currency and balance after. */
export function cdrResultOf(
  result: RatingOutcome,
): Pick<ChargingCdr, 'returnCode' | 'amount' | 'currency' | 'balanceAfter'> {
  return {
    returnCode: result.returnCode,
    amount: result.chargedAmount,
    currency: result.currency,
    balanceAfter: result.balance,
  };
}
