/**
 * The event catalogue (docs/events.md "Events"): every event type the gateway
 * writes to the outbox, with its payload shape. Routing key `<tenant>.<type>`. Money is a
 * decimal string (exact, see src/lib/money.ts), quota an integer in the plan's unit, times
 * epoch seconds. Payloads may gain fields; existing fields are never renamed (the GraphQL
 * subscriptions and outside consumers read them).
 */
export const EventType = {
  chargeCompleted: 'charge.completed',
  refundCompleted: 'refund.completed',
  balanceAdjusted: 'balance.adjusted',
  quotaReceived: 'quota.received',
  donationCompleted: 'donation.completed',
  groupCreated: 'group.created',
  groupUpdated: 'group.updated',
  groupDeleted: 'group.deleted',
  groupMemberAdded: 'group.member.added',
  groupMemberUpdated: 'group.member.updated',
  groupMemberRemoved: 'group.member.removed',
  recurringDonationCreated: 'recurring-donation.created',
  recurringDonationUpdated: 'recurring-donation.updated',
  recurringDonationDeleted: 'recurring-donation.deleted',
  planRenewed: 'plan.renewed',
  planQuotaReset: 'plan.quota.reset',
} as const;

/** One of the catalogue's event type names. */
export type EventTypeName = (typeof EventType)[keyof typeof EventType];

/**
 * `charge.completed` (subject: msisdn) and `refund.completed` (subject: msisdn): a successful
 * rating (amount charged) or refund (amount credited back).
 */
export interface BalanceOperationPayload {
  /** The operation's operationId (CONTRACT §4). */
  operationId: string;
  /** The subscriber, canonical digits. */
  msisdn: string;
  /** Amount charged (charge) or credited (refund), decimal string, non-negative. */
  amount: string;
  /** Balance after the operation, decimal string (negative for a postpaid account in debt). */
  balance: string;
  /** ISO 4217 currency of amount and balance. */
  currency: string;
  /** When the operation was committed, epoch seconds. */
  occurredAt: number;
}

/** `balance.adjusted` (subject: msisdn): an ADMIN balance adjustment. */
export interface BalanceAdjustedPayload {
  msisdn: string;
  /** The signed delta applied, decimal string. */
  amount: string;
  /** Balance after the adjustment, decimal string. */
  balance: string;
  currency: string;
  /** The adjustment's stated reason. */
  reason: string;
  /** Epoch seconds. */
  occurredAt: number;
}

/**
 * `quota.received` (subject: recipient msisdn): one per recipient granted by a
 * donation (one-time or recurring), what a notification service needs to tell the recipient.
 */
export interface QuotaReceivedPayload {
  donationId: string;
  /** The recipient, canonical digits. */
  recipient: string;
  /** The donor, canonical digits. */
  donor: string;
  /** Quota granted, integer in `unit`. */
  amount: number;
  /** The plan definition's quota unit, as the schema names it. */
  unit: string;
  /** The plan definition's name. */
  planName: string;
  /** The plan definition's id. */
  planDefinitionId: number;
  /** The donor's plan the quota came from (the donorPlanId). */
  donorPlanId: number;
  /** Epoch seconds. */
  occurredAt: number;
}

/** Epoch seconds of a clock reading in milliseconds, the catalogue's time unit. */
export function occurredAt(nowMs: number): number {
  return Math.floor(nowMs / 1000);
}
