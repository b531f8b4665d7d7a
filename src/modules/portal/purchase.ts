import { Knex } from 'knex';
import { BadUserInputError, UnprocessableError } from '../../errors';
import { Clock } from '../../lib/clock';
import { Money } from '../../lib/money';
import { CdrRecorder } from '../cdrs/cdr.recorder';
import { chargeLockedSubscriber, insertCharge } from '../charging/charging.store';
import { ReturnCode } from '../charging/return-codes';
import { EventType, occurredAt } from '../events/event-catalogue';
import { recordEvent } from '../events/outbox.store';
import { countSubscriberPlans, findPlanDefinitionById, insertSubscriberPlan } from '../sharing/plan.store';
import { PlanDefinitionRow } from '../sharing/sharing.rows';
import { Subscriber, findSubscriberForUpdate } from '../subscribers/subscriber.store';
import { PORTAL_ACTOR } from '../tokens/token.service';

/** The refusals of a purchase, as `PurchasePlanError.code` names them. */
export type PurchaseRefusalCode =
  'INSUFFICIENT_FUNDS' | 'SUBSCRIBER_INACTIVE' | 'OFFER_WITHDRAWN' | 'PLAN_LIMIT_REACHED';

/** A purchase refused by the rules: nothing was charged or provisioned (its transaction rolled back). */
export class PurchaseRefusal extends UnprocessableError {
  constructor(
    readonly refusal: PurchaseRefusalCode,
    message: string,
  ) {
    super(message, { purchaseCode: refusal });
  }
}

/** The purchase key rule (`PurchasePlanInput.idempotencyKey`). */
const KEY = /^[A-Za-z0-9._:-]{1,64}$/;

/**
 * Checks a purchase's input.
 * @throws BadUserInputError naming `idempotencyKey` or `planDefinitionId`.
 */
export function checkPurchaseInput(input: { planDefinitionId: number; idempotencyKey: string }): void {
  const fields: { field: string; description: string }[] = [];
  if (!Number.isSafeInteger(input.planDefinitionId) || input.planDefinitionId < 1)
    fields.push({ field: 'planDefinitionId', description: 'a positive integer' });
  if (!KEY.test(input.idempotencyKey))
    fields.push({ field: 'idempotencyKey', description: '1-64 characters of A-Z a-z 0-9 . _ : -' });
  if (fields.length) throw new BadUserInputError(`invalid purchase: ${fields[0].field}`, fields);
}

/** What a purchase did, as JSON (the idempotency record replays it): the plan and the balance after. */
export interface PurchaseResult {
  plan: {
    planId: number;
    name: string;
    unitMeteringType: string;
    unitAmount: number;
    remaining: number;
    period: number;
    /** ISO-8601 UTC. */
    renewed: string;
  };
  /** Exact decimal in the subscriber's currency. */
  balance: string;
}

/** Who buys and what: the token's tenant and subscriber, the offer and the ledger's operationId. */
export interface PurchaseOrder {
  tenantId: number;
  msisdn: string;
  planDefinitionId: number;
  /** The ledger entry's operationId (unique per tenant: the ledger refuses a second one). */
  operationId: string;
  maxPlansPerSubscriber: number;
}

/**
 * One purchase inside `trx` (docs/portal.md "Buying"): locks the subscriber, checks it is active,
 * the offer still priced and the plan limit, charges the price exactly as a rating's charge does
 * (prepaid: only if the balance covers it, never below zero; postpaid: accumulates, the balance
 * may go negative), writes the ledger entry (kind `charge`, returnCode 0), the `charge.completed`
 * outbox event and the charging CDR (a rating, actor `portal`, lookup providerId `portal`,
 * applicationId `purchasePlan`, serviceId the plan definition id), and provisions a new
 * subscriber plan (remaining = unitAmount, period 1, renewed now; another plan of the same
 * definition is a separate row). All or nothing with `trx`.
 * @throws PurchaseRefusal (nothing written) for an inactive or unknown subscriber, a withdrawn
 *   offer, the plan limit or a short prepaid balance.
 */
export async function purchaseIn(
  trx: Knex.Transaction,
  clock: Clock,
  cdrs: CdrRecorder,
  o: PurchaseOrder,
): Promise<PurchaseResult> {
  const sub = await findSubscriberForUpdate(trx, o.tenantId, o.msisdn);
  if (!sub || sub.status !== 'active')
    throw new PurchaseRefusal('SUBSCRIBER_INACTIVE', 'the subscriber is not active');
  const def = await findPlanDefinitionById(trx, o.tenantId, o.planDefinitionId);
  if (!def || def.price === null)
    throw new PurchaseRefusal('OFFER_WITHDRAWN', 'the plan is no longer on offer');
  if ((await countSubscriberPlans(trx, o.tenantId, o.msisdn)) >= o.maxPlansPerSubscriber)
    throw new PurchaseRefusal('PLAN_LIMIT_REACHED', `the subscriber holds ${o.maxPlansPerSubscriber} plans`);
  const balance = await chargeLockedSubscriber(trx, sub, def.price);
  if (!balance) throw new PurchaseRefusal('INSUFFICIENT_FUNDS', 'the balance does not cover the price');
  await recordCharge(trx, clock, cdrs, o, sub, def, balance);
  const nowMs = clock.nowMs();
  const planId = await insertSubscriberPlan(
    trx,
    { tenantId: o.tenantId, msisdn: o.msisdn, planDefinitionId: def.id, remaining: def.unitAmount },
    nowMs,
  );
  return {
    plan: {
      planId,
      name: def.name,
      unitMeteringType: def.unitMeteringType,
      unitAmount: def.unitAmount,
      remaining: def.unitAmount,
      period: 1,
      renewed: new Date(nowMs).toISOString(),
    },
    balance: balance.toString(),
  };
}

/** The ledger entry, outbox event and charging CDR of a purchase's charge (as a rating writes them). */
async function recordCharge(
  trx: Knex.Transaction,
  clock: Clock,
  cdrs: CdrRecorder,
  o: PurchaseOrder,
  sub: Subscriber,
  def: PlanDefinitionRow,
  balance: Money,
): Promise<void> {
  const price = def.price!;
  await insertCharge(trx, {
    tenantId: o.tenantId,
    kind: 'charge',
    operationId: o.operationId,
    msisdn: o.msisdn,
    fingerprint: null,
    returnCode: ReturnCode.SUCCESS,
    amount: price,
    balanceAfter: balance,
    currency: sub.currency,
    reason: `portal purchase: ${def.name}`.slice(0, 255),
    createdAt: clock.nowMs(),
  });
  await recordEvent(trx, clock, {
    tenantId: o.tenantId,
    type: EventType.chargeCompleted,
    subject: o.msisdn,
    payload: {
      operationId: o.operationId,
      msisdn: o.msisdn,
      amount: price.toString(),
      balance: balance.toString(),
      currency: sub.currency,
      occurredAt: occurredAt(clock.nowMs()),
    },
  });
  await cdrs.charging(
    trx,
    { tenantId: o.tenantId, actor: PORTAL_ACTOR },
    {
      kind: 'rating',
      operationId: o.operationId,
      msisdn: o.msisdn,
      returnCode: ReturnCode.SUCCESS,
      amount: price,
      currency: sub.currency,
      balanceAfter: balance,
      lookup: {
        providerId: 'portal',
        applicationId: 'purchasePlan',
        serviceId: String(def.id),
        originId: null,
        bundleId: null,
      },
    },
  );
}
