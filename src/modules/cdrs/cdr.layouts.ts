/**
 * CDR layouts (CONTRACT §8): the field order, names and codes of the source product's
 * published SQS CDRs (SQS docs 1.1.0/1.2.0 "SQS donation CDR", "SQS groups CDR", "SQS recurring
 * donation CDR" — the layouts with the tenant ID field), of the published token web service CDR,
 * and the gateway's own charging CDR. Every layout but the token one starts with the same eight
 * fields (record id, service ID, transaction type, tenant ID, CDR generation date `DD/MM/YYYY`,
 * CDR generation time `hh:mm:ss`, both UTC, actor, actor cause); the rest is per type and stored
 * as JSON (see {@link CdrFields}).
 */

/** The five kinds of CDR, as the `type` column, the CLI `--type` and the GraphQL `CdrType` name them. */
export type CdrKind = 'donation' | 'group' | 'recurringDonation' | 'charging' | 'token';

/** Every {@link CdrKind}, in the order docs/events.md documents them. */
export const CDR_KINDS: readonly CdrKind[] = ['donation', 'group', 'recurringDonation', 'charging', 'token'];

/**
 * Service IDs: published 96 (donation), 98 (group), 99 (recurring donation), 102 (token web
 * service); 200 is the gateway's charging CDR.
 */
export const SERVICE_ID: Record<CdrKind, number> = {
  donation: 96,
  group: 98,
  recurringDonation: 99,
  charging: 200,
  token: 102,
};

/** The actor of an internal change (published: "simply sqs if the change is triggered by an internal call"). */
export const SQS_ACTOR = 'sqs';

/** Donation CDR transaction types (published, service ID 96). */
export const DonationTx = {
  START: 0,
  END: 1,
  DEDUCT_QUOTA: 2,
  ADD_QUOTA: 3,
  ROLLBACK_QUOTA: 4,
  GET_DONOR_PLAN: 5,
} as const;

/** Donation type (published field 9): 0 one-time, 1 recurring. */
export const DonationType = { ONE_TIME: 0, RECURRING: 1 } as const;

/** Group CDR transaction types (published, service ID 98). */
export const GroupTx = {
  CREATED: 0,
  UPDATED: 1,
  DELETED: 2,
  MEMBER_ADDED: 3,
  MEMBER_UPDATED: 4,
  MEMBER_DELETED: 5,
} as const;

/** Group quota type (published field 11: 0 = share; 1 = amount is the gateway's addition). */
export const GroupQuotaType = { share: 0, amount: 1 } as const;

/** Recurring donation CDR transaction types (published, service ID 99). */
export const RecurringTx = { CREATED: 0, UPDATED: 1, DELETED: 2 } as const;

/** Recurring donation actor cause (published field 8): 0 = deleted because its plan was terminated. */
export const ActorCause = { PLAN_TERMINATED: 0 } as const;

/** Charging CDR transaction types (the gateway's own): 0 rating (`processRating`), 1 refund (`processRefund`). */
export const ChargingTx = { RATING: 0, REFUND: 1 } as const;

/** Token CDR transaction types (published token web service CDR, service ID 102). */
export const TokenTx = { CREATE: 1, VALIDATE: 2, EXPIRE: 3 } as const;

/**
 * Token CDR transaction status (published field 7): `successful`; `error`, an unexpected error
 * (the database failed); `validation_failed`, the token is unknown, revoked or expired.
 */
export type TokenCdrStatus = 'successful' | 'error' | 'validation_failed';

/** A stored field value: text, an integer, or absent (an empty CSV cell). */
export type CdrValue = string | number | null;

/** The per-type fields of a CDR (after the eight common ones), keyed as {@link LAYOUTS} names them. */
export type CdrFields = Record<string, CdrValue>;

/** One field of a layout: its published name (the CSV header) and its key in {@link CdrFields}. */
export interface LayoutField {
  name: string;
  key: string;
}

/** The eight fields every layout starts with; the first one's name differs per type. */
const COMMON_TAIL: LayoutField[] = [
  { name: 'service ID', key: 'serviceId' },
  { name: 'transaction type', key: 'transactionType' },
  { name: 'tenant ID', key: 'tenantId' },
  { name: 'cdr generation date', key: 'date' },
  { name: 'cdr generation time', key: 'time' },
  { name: 'actor', key: 'actor' },
  { name: 'actor cause', key: 'actorCause' },
];

const f = (name: string, key: string): LayoutField => ({ name, key });

/**
 * The field order of each CDR type (published field order; the names are the published ones).
 * The donation layout ends at field 31 (recipient plan ID): the last field the published page
 * shows that this gateway can fill.
 */
export const LAYOUTS: Record<CdrKind, readonly LayoutField[]> = {
  donation: [
    f('donation ID', 'recordId'),
    ...COMMON_TAIL,
    f('donation type', 'donationType'),
    f('donation error code', 'donationErrorCode'),
    f('donor ID', 'donorId'),
    f('donor plan ID', 'donorPlanId'),
    f('group ID', 'groupId'),
    f('group name', 'groupName'),
    f('get donor plan SPCM http status code', 'getDonorPlanHttpStatus'),
    f('donor plan expiry timestamp', 'donorPlanExpiry'),
    f('donor plan definition id', 'planDefinitionId'),
    f('donor plan definition name', 'planDefinitionName'),
    f('donor plan definition max recipients', 'planDefinitionMaxRecipients'),
    f('deduct quota type', 'deductQuotaType'),
    f('deduct quota value', 'deductQuotaValue'),
    f('deduct quota SPCM http status code', 'deductHttpStatus'),
    f('deduct quota SPCM error code', 'deductErrorCode'),
    f('deducted unit amount', 'deductedAmount'),
    f('add quota type', 'addQuotaType'),
    f('add quota value', 'addQuotaValue'),
    f('recipient ID', 'recipientId'),
    f('added unit amount', 'addedAmount'),
    f('add quota SPCM http status code', 'addHttpStatus'),
    f('add quota SPCM error code', 'addErrorCode'),
    f('recipient plan ID', 'recipientPlanId'),
  ],
  group: [
    f('group ID', 'recordId'),
    ...COMMON_TAIL,
    f('group owner ID', 'groupOwnerId'),
    f('group name', 'groupName'),
    f('group quota type', 'groupQuotaType'),
    f('group member ID', 'groupMemberId'),
    f('group member quota', 'groupMemberQuota'),
  ],
  recurringDonation: [
    f('recurring donation ID', 'recordId'),
    ...COMMON_TAIL,
    f('donor plan ID', 'donorPlanId'),
    f('group ID', 'groupId'),
    f('group name', 'groupName'),
    f('donor ID', 'donorId'),
    f('plan name', 'planName'),
  ],
  charging: [
    f('operationId', 'recordId'),
    ...COMMON_TAIL,
    f('msisdn', 'msisdn'),
    f('returnCode', 'returnCode'),
    f('amount', 'amount'),
    f('currency', 'currency'),
    f('balance after', 'balanceAfter'),
    f('providerId', 'providerId'),
    f('applicationId', 'applicationId'),
    f('serviceId', 'ratingServiceId'),
    f('originId', 'originId'),
    f('bundleId', 'bundleId'),
  ],
  // Published fields 1-7 (no tenant or actor there; the date is YYYY/MM/DD), then the gateway's
  // tenant ID and actor. Field 6 is the token id (see cdr.recorder.ts tokenId), never the token.
  token: [
    f('msisdn', 'msisdn'),
    f('service ID', 'serviceId'),
    f('transaction type', 'transactionType'),
    f('CDR generation date', 'dateYmd'),
    f('CDR generation time', 'time'),
    f('token', 'recordId'),
    f('transaction status', 'status'),
    f('tenant ID', 'tenantId'),
    f('actor', 'actor'),
  ],
};

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** The published CDR generation date of epoch milliseconds `ms`: `DD/MM/YYYY`, UTC. */
export function cdrDate(ms: number): string {
  const d = new Date(ms);
  return `${pad(d.getUTCDate())}/${pad(d.getUTCMonth() + 1)}/${pad(d.getUTCFullYear(), 4)}`;
}

/** The token CDR's generation date of epoch milliseconds `ms`: `YYYY/MM/DD`, UTC (published format). */
export function cdrDateYmd(ms: number): string {
  const d = new Date(ms);
  return `${pad(d.getUTCFullYear(), 4)}/${pad(d.getUTCMonth() + 1)}/${pad(d.getUTCDate())}`;
}

/** The published CDR generation time of epoch milliseconds `ms`: `hh:mm:ss` (24-hour), UTC. */
export function cdrTime(ms: number): string {
  const d = new Date(ms);
  return `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
}
