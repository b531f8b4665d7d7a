import { Knex } from 'knex';
import { InTransaction, retryingTransaction } from '../../db/knex';
import { BadUserInputError, NotFoundError } from '../../errors';
import { Clock } from '../../lib/clock';
import { newId } from '../../lib/ids';
import { Money, MoneyFormatError } from '../../lib/money';
import { requireMsisdn } from '../../lib/msisdn';
import { EventType, occurredAt } from '../events/event-catalogue';
import { recordEvent } from '../events/outbox.store';
import { Subscriber, findSubscriberForUpdate } from '../subscribers/subscriber.store';
import { ChargingCaller } from './charging-outcome';
import { ChargeRow, chargeLockedSubscriber, creditLockedSubscriber, insertCharge } from './charging.store';
import { ReturnCode } from './return-codes';

/** An adjustment checked: the canonical MSISDN, the exact signed delta and the reason. */
export interface Adjustment {
  msisdn: string;
  delta: Money;
  reason: string;
}

/** What an adjustment answers: the subscriber with its new balance and the ledger entry written. */
export interface Adjusted {
  subscriber: Subscriber;
  charge: ChargeRow;
}

/**
 * Checks an ADMIN's adjustment: `amount` a signed decimal (string or Money), `reason` 1-255
 * characters, `msisdn` well formed.
 * @throws BadUserInputError naming `amount`, `reason` or `msisdn`.
 */
export function validAdjustment(msisdn: string, amount: string | Money, reason: string): Adjustment {
  let delta: Money;
  try {
    delta = amount instanceof Money ? amount : Money.parse(amount, { allowNegative: true });
  } catch (err) {
    if (err instanceof MoneyFormatError)
      throw new BadUserInputError('amount is not a decimal', [
        { field: 'amount', description: 'signed decimal, at most 6 fractional digits' },
      ]);
    throw err;
  }
  if (!reason.trim() || reason.length > 255)
    throw new BadUserInputError('reason is required', [{ field: 'reason', description: '1-255 characters' }]);
  return { msisdn: requireMsisdn(msisdn, 'msisdn'), delta, reason };
}

/**
 * ADMIN balance adjustments (docs/contract.md §4): a signed amount added to a subscriber's
 * balance with a reason, written to the ledger as an `adjustment` with its event. Runs on the
 * caller's transaction when given one ({@link InTransaction}), else in one of its own.
 */
export class BalanceAdjustmentService {
  private readonly knex: Knex;
  private readonly clock: Clock;

  constructor(deps: { knex: Knex; clock: Clock }) {
    this.knex = deps.knex;
    this.clock = deps.clock;
  }

  /**
   * Adds a signed decimal `amount` (a string or a Money, in the subscriber's currency) to a
   * balance with a reason. A prepaid balance may not go below zero. Returns the subscriber with
   * its new balance and the ledger entry written.
   * @throws BadUserInputError naming `amount` (not a decimal, or a prepaid overdraft) or `reason`
   *   (blank or over 255 characters); NotFoundError (no such subscriber in the caller's tenant).
   */
  async adjustBalance(
    caller: ChargingCaller,
    msisdn: string,
    amount: string | Money,
    reason: string,
    opts: InTransaction = {},
  ): Promise<Adjusted> {
    const a = validAdjustment(msisdn, amount, reason);
    return opts.trx
      ? this.adjust(opts.trx, caller, a)
      : retryingTransaction(this.knex, (trx) => this.adjust(trx, caller, a));
  }

  /** The adjustment in `trx`: lock the subscriber → move the balance → ledger entry → event. */
  private async adjust(trx: Knex.Transaction, caller: ChargingCaller, a: Adjustment): Promise<Adjusted> {
    const sub = await findSubscriberForUpdate(trx, caller.tenantId, a.msisdn);
    if (!sub)
      throw new NotFoundError(`subscriber ${a.msisdn} not found`, {
        fields: [{ field: 'msisdn', description: 'names no subscriber of your tenant' }],
      });
    const balance = a.delta.isNegative()
      ? await chargeLockedSubscriber(trx, sub, Money.ZERO.sub(a.delta))
      : await creditLockedSubscriber(trx, sub, a.delta);
    if (!balance)
      throw new BadUserInputError('a prepaid balance cannot go below zero', [
        { field: 'amount', description: 'exceeds the prepaid balance' },
      ]);
    const entry: Omit<ChargeRow, 'id'> = {
      tenantId: caller.tenantId,
      kind: 'adjustment',
      operationId: newId(),
      msisdn: a.msisdn,
      fingerprint: null,
      returnCode: ReturnCode.SUCCESS,
      amount: a.delta,
      balanceAfter: balance,
      currency: sub.currency,
      reason: a.reason,
      createdAt: this.clock.nowMs(),
    };
    const id = await insertCharge(trx, entry);
    await recordEvent(trx, this.clock, {
      tenantId: caller.tenantId,
      type: EventType.balanceAdjusted,
      subject: a.msisdn,
      payload: {
        msisdn: a.msisdn,
        amount: a.delta.toString(),
        balance: balance.toString(),
        currency: sub.currency,
        reason: a.reason,
        occurredAt: occurredAt(this.clock.nowMs()),
      },
    });
    return { subscriber: { ...sub, balance }, charge: { ...entry, id } };
  }
}
