import { Field, ID, InputType, Int } from 'type-graphql';
import { MsisdnScalar, SafeIntScalar } from '../../graphql/scalars';
import { QuotaType } from './sharing.enums';

/**
 * Typed inputs of the quota-sharing writes (CONTRACT §7). The donation inputs are
 * typed by scalars and enums, coerced before any resolver (MSISDN, SafeInt, Int, QuotaType), and
 * non-null where both donation forms need the field; what one form needs (donorId, quotaType and
 * recipients with recipients, groupId otherwise) and the ranges stay the service's rules. The
 * REST rows answer the legacy 400/412 of a body themselves before running the operation
 * (`src/rest/sqs-input.ts`). The group and plan inputs are in group.types.ts and plan.types.ts.
 */
const QUOTA =
  'The quota, a whole number: for `SHARE` 0-10000000 (percent x 100000, granting unitAmount x quota / 10^7 rounded down), for `AMOUNT` 1-9007199254740991 in the plan unit (bytes, seconds or minor currency units).';

/** A recipient and its quota. */
@InputType('RecipientInput', { description: 'A recipient of a donation and its quota.' })
export class RecipientInputType {
  @Field(() => MsisdnScalar, { description: 'Recipient MSISDN; listed once per donation.' })
  recipientId!: string;
  @Field(() => SafeIntScalar, { description: QUOTA })
  quota!: number;
}

/** `POST /sqs/api/donations` in either form: explicit recipients or a group (CONTRACT §5). */
@InputType('DonationInput', {
  description:
    "A donation: to explicit recipients (donorId, donorPlanId, quotaType, recipients) or to a group's members (donorPlanId, groupId; the donor is the group owner). Fields a form needs and misses are refused naming each (userErrors INVALID).",
})
export class DonationInputType {
  @Field(() => MsisdnScalar, {
    nullable: true,
    description:
      'Donor MSISDN. Required with recipients; with groupId optional, and then it must be the group owner.',
  })
  donorId?: string | null;
  @Field(() => Int, {
    description: "The donor's plan id (its SubscriberPlan's plan id), holding the quota to share; positive.",
  })
  donorPlanId!: number;
  @Field(() => QuotaType, {
    nullable: true,
    description:
      "How the quotas are read; must be the plan's shareQuotaType. Required with recipients; with groupId it defaults to the group's.",
  })
  quotaType?: QuotaType | null;
  @Field(() => [RecipientInputType], {
    nullable: true,
    description: '1-100 recipients, each once, processed in order. Give recipients or groupId, not both.',
  })
  recipients?: RecipientInputType[] | null;
  @Field(() => ID, {
    nullable: true,
    description: 'A group of the donor (its id): each current member receives its member quota.',
  })
  groupId?: string | null;
}

/** `POST /sqs/api/recurringDonations` (CONTRACT §5). */
@InputType('RecurringDonationInput', {
  description:
    'A recurring donation, executed at every renewal of its plan: the fields of DonationInput; with groupId and no donorId the donor is the group owner (published form {donorPlanId, groupId}).',
})
export class RecurringDonationInputType extends DonationInputType {}
