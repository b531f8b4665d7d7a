import type { Money } from '../../lib/money';

/** Rows of quota sharing (CONTRACT §5) as the stores return them; shared by the noun services, resolvers and REST views. */

/** How a plan's quota is counted (CONTRACT §5): bytes, seconds or credit minor units. */
export type UnitMeteringType = 'volume' | 'time' | 'credit';
/** How a plan's quota is shared: absolute amounts or shares of 10^7. */
export type ShareQuotaType = 'amount' | 'share';

/**
 * A plan definition (CONTRACT §5). `unitAmount` is granted per period. `price` (exact, in the
 * subscriber's currency) puts it on offer in its tenant's captive portal (docs/portal.md); null:
 * not offered.
 */
export interface PlanDefinitionRow {
  id: number;
  tenantId: number;
  name: string;
  unitMeteringType: UnitMeteringType;
  unitAmount: number;
  shareable: boolean;
  recurring: boolean;
  shareQuotaType: ShareQuotaType;
  maxRecipients: number;
  price: Money | null;
}

/** A subscriber's instance of a plan (`donorPlanId`), with what remains of its current period. */
export interface SubscriberPlanRow {
  id: number;
  tenantId: number;
  msisdn: string;
  remaining: number;
  period: number;
  renewedAt: number;
  /**
   * Distinct recipients that received from this plan in its current period (the
   * `plan_period_recipients` rows of the period, not the donation history), for the `maxRecipients` check.
   */
  recipientsInPeriod: number;
  definition: PlanDefinitionRow;
}

/** A group of recipients owned by a donor. */
export interface GroupRow {
  id: string;
  tenantId: number;
  ownerMsisdn: string;
  name: string;
  quotaType: ShareQuotaType | null;
  createdAt: number;
  updatedAt: number;
}

/** A group member and its quota. */
export interface MemberRow {
  /** Row number of the membership (joining order), as the store reads it; absent on a row just built. */
  seq?: number;
  groupId: string;
  memberMsisdn: string;
  quota: number;
  createdAt: number;
}

/** What a donation and a recurring donation both record: who gives, from which plan, to a group or not. */
export interface DonorFields {
  id: string;
  tenantId: number;
  donorMsisdn: string;
  donorPlanId: number;
  quotaType: ShareQuotaType;
  groupId: string | null;
}

/** The {@link DonorFields} of a `donations` or `recurring_donations` row. */
export function donorFieldsOf(r: Record<string, unknown>): DonorFields {
  return {
    id: String(r.id),
    tenantId: Number(r.tenant_id),
    donorMsisdn: String(r.donor_msisdn),
    donorPlanId: Number(r.donor_plan_id),
    quotaType: r.quota_type as ShareQuotaType,
    groupId: (r.group_id as string | null) ?? null,
  };
}

/** A recurring donation: explicit recipients or a group, executed at every plan renewal. */
export interface RecurringRow extends DonorFields {
  recipients: { recipientId: string; quota: number }[] | null;
  createdAt: number;
  /** The donor plan's definition name (read only; null if the plan is gone). */
  planName?: string | null;
}

/** A donation and its per-recipient results. */
export interface DonationRow extends DonorFields {
  recurringDonationId: string | null;
  period: number;
  /** Overall errorCode (CONTRACT §5): 0 when any recipient received quota, else the first failure's code. */
  errorCode: number;
  createdAt: number;
  /** Per-recipient results in request order; `granted` in the plan's unit. */
  recipients: { recipientId: string; quota: number; granted: number; errorCode: number }[];
}

/** What a recipient received from one donation. */
export interface AllowanceRow {
  id: number;
  recipientMsisdn: string;
  donorPlanId: number;
  donationId: string;
  unitMeteringType: UnitMeteringType;
  amount: number;
  period: number;
  createdAt: number;
}
