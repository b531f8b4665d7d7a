/**
 * Quota-sharing `errorCode`s (published values). Where each is produced (CONTRACT §5,
 * docs/quota-sharing.md):
 * - 0 no error; 1 a recipient already holding MAX_PLANS_PER_SUBSCRIBER plans (422 with a single
 *   recipient), a member already in the group (409), a recurring donation not found (404);
 * - 2 group owner+name taken (409); 3 owner as member (422) or donor as recipient (per recipient);
 * - 4 share quotas of a group over 10^7 (422); 5 group not found (404); 6 group full (422);
 * - 7 donor not found (404); 8 plan not found or not the donor's (404); 9 plan not recurring (422);
 * - 10 reserved: this service has no charging-group owners, so it never produces it;
 * - 11 a recurring donation exists for the plan (409); 12 recipient or member not a subscriber;
 * - 13 more distinct recipients in the plan's period than `maxRecipients` (422);
 * - 14 a subscriber that is not active (a donor 422, a recipient per recipient, a member set by a
 *   PUT row 422), an unknown group owner (422), a member not in the group (404);
 * - 15 the donor plan's `remaining` does not cover the quota (per recipient);
 * - 16 donor plan not shareable (422).
 */
export const SqsCode = {
  OK: 0,
  GENERAL: 1,
  GROUP_NOT_UNIQUE: 2,
  OWNER_AS_MEMBER: 3,
  GROUP_QUOTA_EXCEEDED: 4,
  GROUP_NOT_FOUND: 5,
  GROUP_SIZE_EXCEEDED: 6,
  DONOR_NOT_FOUND: 7,
  PLAN_NOT_FOUND: 8,
  PLAN_NOT_RECURRING: 9,
  CHARGING_GROUP_OWNER_UNSUPPORTED: 10,
  RECURRING_EXISTS: 11,
  RECIPIENT_NOT_FOUND: 12,
  MAX_RECIPIENTS_EXCEEDED: 13,
  SUBSCRIBER_NOT_FOUND: 14,
  QUOTA_UNAVAILABLE: 15,
  NOT_SHAREABLE: 16,
} as const;

/** One of the numeric quota-sharing codes. */
export type SqsCodeValue = (typeof SqsCode)[keyof typeof SqsCode];

const NAMES = new Map<number, string>(Object.entries(SqsCode).map(([name, code]) => [code, name]));

/** The symbolic name of an errorCode (`errorName` in GraphQL), e.g. `QUOTA_UNAVAILABLE`. */
export function sqsCodeName(code: number): string {
  return NAMES.get(code) ?? 'GENERAL';
}
