import { NotFoundError } from '../../errors';
import type { Services } from '../../services';
import { globalId } from '../../graphql/node';
import { OutboxEvent } from './outbox.store';
import { ChargeKindValue } from '../charging/charging.types';
import { UnitMeteringType } from '../sharing/sharing.enums';
import { BalanceChangeType, QuotaReceivedType } from './event.types';

/** The outbox event types `balanceChanged` delivers, with the kind each is shown as. */
export const BALANCE_EVENT_KINDS: Readonly<Record<string, ChargeKindValue>> = {
  'charge.completed': ChargeKindValue.CHARGE,
  'refund.completed': ChargeKindValue.REFUND,
  'balance.adjusted': ChargeKindValue.ADJUSTMENT,
};

/** The outbox event types `quotaReceived` delivers. */
export const QUOTA_EVENT_TYPES: readonly string[] = ['quota.received'];

/**
 * Opens a subscription to the tenant's events of `types` about the subscriber `msisdn`
 * (canonical digits, as the MSISDN scalar gives it). A subscription delivers only what happens to
 * a subscriber of the caller's tenant, so one that could never deliver is refused rather than
 * left silent.
 * @throws NotFoundError (`NOT_FOUND`) when `msisdn` names no subscriber of the tenant (another
 *   tenant's subscriber included: the answer is the same, so nothing leaks across tenants); the
 *   database's error when the lookup or the feed's start fails.
 */
export async function subscribeToSubscriber(
  services: Pick<Services, 'events' | 'sharing'>,
  tenantId: number,
  msisdn: string,
  types: readonly string[],
): Promise<AsyncIterable<OutboxEvent>> {
  const subscriber = await services.sharing.subscriberService.find(tenantId, msisdn);
  if (!subscriber)
    throw new NotFoundError(`subscriber ${msisdn} not found`, {
      fields: [{ field: 'msisdn', description: 'names no subscriber of your tenant' }],
    });
  return services.events.subscribe({ tenantId, types, subject: msisdn });
}

const text = (v: unknown): string => (v === null || v === undefined ? '' : String(v));

/** The `BalanceChange` view of an outbox event of one of {@link BALANCE_EVENT_KINDS}' types. */
export function toBalanceChange(event: OutboxEvent): BalanceChangeType {
  const p = event.payload;
  return {
    id: globalId('BalanceChange', event.eventId),
    eventId: event.eventId,
    kind: BALANCE_EVENT_KINDS[event.type],
    operationId: p.operationId === undefined || p.operationId === null ? null : text(p.operationId),
    msisdn: text(p.msisdn),
    amount: text(p.amount),
    balance: text(p.balance),
    currency: text(p.currency),
    occurredAt: new Date(Number(p.occurredAt) * 1000).toISOString(),
  };
}

/** The `QuotaReceived` view of a `quota.received` outbox event. */
export function toQuotaReceived(event: OutboxEvent): QuotaReceivedType {
  const p = event.payload;
  return {
    id: globalId('QuotaReceived', event.eventId),
    eventId: event.eventId,
    donationId: text(p.donationId),
    recipient: text(p.recipient),
    donor: text(p.donor),
    amount: Number(p.amount),
    unit: text(p.unit) as UnitMeteringType,
    planName: text(p.planName),
    planDefinitionId: Number(p.planDefinitionId),
    donorPlanId: Number(p.donorPlanId),
    occurredAt: new Date(Number(p.occurredAt) * 1000).toISOString(),
  };
}
