import { Knex } from 'knex';
import { Clock } from '../lib/clock';
import { BalanceAdjustmentService } from '../modules/charging/balance-adjustment.service';
import { EventType, occurredAt } from '../modules/events/event-catalogue';
import { recordEvent } from '../modules/events/outbox.store';
import { findSubscriberPlan } from '../modules/sharing/plan.store';
import { SubscriberPlanRow } from '../modules/sharing/sharing.rows';
import {
  SubscriberWrite,
  findSubscriberForUpdate,
  insertSubscriber,
  updateSubscriber,
} from '../modules/subscribers/subscriber.store';

/**
 * How the import treats the two values charges and donations move — a subscriber's `balance`
 * and a subscriber plan's `remaining` — on a row that already exists. Both are taken from the
 * file only when the row is created; an existing value that differs from the file is kept,
 * unless reset: a balance through a ledger entry (an `adjustment` of the difference, with its
 * `balance.adjusted` event), a remaining quota with a `plan.quota.reset` event (docs/cli.md).
 */
export interface ResetOptions {
  /** Sets every differing existing balance to the file's value through an adjustment. */
  resetBalances: boolean;
  /** Sets every differing existing plan's `remaining` to the file's value, recording the reset. */
  resetQuotas: boolean;
  /** The reason on each adjustment and reset event (1-255 characters). */
  reason: string;
}

/** Differing existing values the import kept (the default) or reset (an option asked for it). */
export interface KeptValues {
  balances: { kept: number; reset: number };
  quotas: { kept: number; reset: number };
}

/** A tally with nothing counted. */
export function noKeptValues(): KeptValues {
  return { balances: { kept: 0, reset: 0 }, quotas: { kept: 0, reset: 0 } };
}

/** Adds `from`'s counts to `into`. */
export function addKeptValues(into: KeptValues, from: KeptValues): void {
  for (const k of ['balances', 'quotas'] as const) {
    into[k].kept += from[k].kept;
    into[k].reset += from[k].reset;
  }
}

/** What {@link putSubscriber} needs besides the row. */
export interface SubscriberPut {
  trx: Knex.Transaction;
  nowMs: number;
  options: ResetOptions;
  adjustments: BalanceAdjustmentService;
  tally: KeptValues;
}

/**
 * Creates a subscriber with the file's balance, or brings an existing one's status, payment type
 * and currency to the file's with its row locked (MySQL/MariaDB; SQLite's write transaction
 * excludes the gateway's), its stored balance written back unchanged. A balance that differs
 * from the file is kept and counted, or with `resetBalances` moved to the file's value by a
 * balance adjustment of the difference (ledger entry and `balance.adjusted` event,
 * docs/contract.md §4).
 * @throws whatever the adjustment throws (BadUserInputError for a prepaid overdraft).
 */
export async function putSubscriber(
  put: SubscriberPut,
  write: SubscriberWrite,
): Promise<'created' | 'updated' | 'unchanged'> {
  const { trx, options, tally } = put;
  const existing = await findSubscriberForUpdate(trx, write.tenantId, write.msisdn);
  if (!existing) {
    await insertSubscriber(trx, write, put.nowMs);
    return 'created';
  }
  const profileChanged =
    existing.status !== write.status ||
    existing.paymentType !== write.paymentType ||
    existing.currency !== write.currency;
  if (profileChanged)
    await updateSubscriber(trx, existing.id, { ...write, balance: existing.balance }, put.nowMs);
  const delta = write.balance.sub(existing.balance);
  if (delta.isZero()) return profileChanged ? 'updated' : 'unchanged';
  if (!options.resetBalances) {
    tally.balances.kept++;
    return profileChanged ? 'updated' : 'unchanged';
  }
  await put.adjustments.adjustBalance({ tenantId: write.tenantId }, write.msisdn, delta, options.reason, {
    trx,
  });
  tally.balances.reset++;
  return 'updated';
}

/**
 * The `remaining` to write for a subscriber plan of the file: the file's for a new plan (or
 * one of another tenant, which the plan service then refuses); for an existing plan of the
 * tenant, read with its row locked, the stored one, unless `resetQuotas` asks for the file's.
 * Returns the existing plan too, for {@link recordQuotaReset}.
 */
export async function remainingToWrite(
  trx: Knex.Transaction,
  tenantId: number,
  plan: { id: number; remaining: number },
  options: ResetOptions,
  tally: KeptValues,
): Promise<{ remaining: number; existing?: SubscriberPlanRow }> {
  const existing = await findSubscriberPlan(trx, tenantId, plan.id, true);
  if (!existing || existing.remaining === plan.remaining) return { remaining: plan.remaining, existing };
  if (!options.resetQuotas) {
    tally.quotas.kept++;
    return { remaining: existing.remaining, existing };
  }
  tally.quotas.reset++;
  return { remaining: plan.remaining, existing };
}

/**
 * Records, in the import's transaction, that `before`'s remaining quota was set to `remaining`
 * by the import: a `plan.quota.reset` event (subject the plan owner's msisdn; payload `planId`,
 * `msisdn`, `planDefinitionId`, `planName`, `unit`, `amount` the signed change, `remaining`
 * after, `reason`, `occurredAt`), kept in the outbox and published like every event
 * (docs/events.md).
 */
export async function recordQuotaReset(
  trx: Knex.Transaction,
  clock: Clock,
  before: SubscriberPlanRow,
  remaining: number,
  reason: string,
): Promise<void> {
  await recordEvent(trx, clock, {
    tenantId: before.tenantId,
    type: EventType.planQuotaReset,
    subject: before.msisdn,
    payload: {
      planId: before.id,
      msisdn: before.msisdn,
      planDefinitionId: before.definition.id,
      planName: before.definition.name,
      unit: before.definition.unitMeteringType,
      amount: remaining - before.remaining,
      remaining,
      reason,
      occurredAt: occurredAt(clock.nowMs()),
    },
  });
}
