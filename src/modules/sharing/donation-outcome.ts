import { registerEnumType } from 'type-graphql';
import { SqsCode } from './error-codes';

/**
 * What happened to one recipient of a donation (CONTRACT §5): the enum beside the numeric
 * `errorCode` of `DonationRecipient`. A donation where some recipients failed is still a donation
 * (REST 207): each failure is an outcome here, not an error.
 */
export enum DonationRecipientOutcome {
  RECEIVED = 'RECEIVED',
  PLAN_LIMIT_REACHED = 'PLAN_LIMIT_REACHED',
  DONOR_ITSELF = 'DONOR_ITSELF',
  RECIPIENT_NOT_FOUND = 'RECIPIENT_NOT_FOUND',
  RECIPIENT_NOT_ACTIVE = 'RECIPIENT_NOT_ACTIVE',
  QUOTA_UNAVAILABLE = 'QUOTA_UNAVAILABLE',
}

registerEnumType(DonationRecipientOutcome, {
  name: 'DonationRecipientOutcome',
  description: 'What happened to one recipient of a donation (the legacy errorCode in brackets).',
  valuesConfig: {
    RECEIVED: { description: 'The recipient received its quota (0).' },
    PLAN_LIMIT_REACHED: {
      description: 'The recipient already holds MAX_PLANS_PER_SUBSCRIBER plans and allowances (1).',
    },
    DONOR_ITSELF: { description: 'The recipient is the donor (3).' },
    RECIPIENT_NOT_FOUND: { description: 'No subscriber with this MSISDN in the tenant (12).' },
    RECIPIENT_NOT_ACTIVE: { description: 'The recipient is not an active subscriber (14).' },
    QUOTA_UNAVAILABLE: {
      description: 'What the donor plan had left after the earlier recipients does not cover the quota (15).',
    },
  },
});

const BY_CODE = new Map<number, DonationRecipientOutcome>([
  [SqsCode.OK, DonationRecipientOutcome.RECEIVED],
  [SqsCode.GENERAL, DonationRecipientOutcome.PLAN_LIMIT_REACHED],
  [SqsCode.OWNER_AS_MEMBER, DonationRecipientOutcome.DONOR_ITSELF],
  [SqsCode.RECIPIENT_NOT_FOUND, DonationRecipientOutcome.RECIPIENT_NOT_FOUND],
  [SqsCode.SUBSCRIBER_NOT_FOUND, DonationRecipientOutcome.RECIPIENT_NOT_ACTIVE],
  [SqsCode.QUOTA_UNAVAILABLE, DonationRecipientOutcome.QUOTA_UNAVAILABLE],
]);

/**
 * The outcome of a recipient's numeric errorCode (the codes {@link DonationService} gives a
 * recipient: 0, 1, 3, 12, 14, 15).
 * @throws Error for any other code (a programming error: no recipient is recorded with one).
 */
export function recipientOutcome(errorCode: number): DonationRecipientOutcome {
  const outcome = BY_CODE.get(errorCode);
  if (!outcome) throw new Error(`no recipient outcome for errorCode ${errorCode}`);
  return outcome;
}
