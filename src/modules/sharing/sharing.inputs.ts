import { Field, Float, InputType } from 'type-graphql';

/**
 * Typed inputs of the quota-sharing writes (issue 11 Part 1). Fields are nullable so that a
 * missing one is refused by the service naming it (REST 412, GraphQL BAD_USER_INPUT with
 * `fields`), as the legacy paths do; numbers are `Float` so that a fractional or huge value is
 * refused by the same rule with the same description (`must be an integer`), not by coercion.
 * The REST rows map legacy bodies onto them (`src/rest/sqs-input.ts`).
 */
const REQUIRED = 'Required.';
const MSISDN = 'MSISDN, optional + then 5-15 digits';
const QUOTA =
  'Quota, an integer: for `share` 0-10000000 (percent x 100000, granting unitAmount x quota / 10^7 rounded down), for `amount` 1-9007199254740991 in the plan unit (bytes, seconds or minor currency units).';

/** A recipient and its quota. */
@InputType('RecipientInput', { description: 'A recipient of a donation and its quota.' })
export class RecipientInputType {
  @Field(() => String, { nullable: true, description: `${REQUIRED} Recipient ${MSISDN}; listed once.` })
  recipientId?: string | null;
  @Field(() => Float, { nullable: true, description: `${REQUIRED} ${QUOTA}` })
  quota?: number | null;
}

/** `POST /sqs/api/donations` in either form (spec 4.4/4.5). */
@InputType('DonationInput', {
  description:
    "A donation: to explicit recipients (donorId, donorPlanId, quotaType, recipients) or to a group's members (donorPlanId, groupId; the donor is the group owner).",
})
export class DonationInputType {
  @Field(() => String, {
    nullable: true,
    description: `Donor ${MSISDN}. Required with recipients; with groupId optional, and then it must be the group owner.`,
  })
  donorId?: string | null;
  @Field(() => Float, {
    nullable: true,
    description: `${REQUIRED} The donor's plan id (a positive integer), holding the quota to share.`,
  })
  donorPlanId?: number | null;
  @Field(() => String, {
    nullable: true,
    description:
      "`amount` or `share`; must be the plan's shareQuotaType. Required with recipients; with groupId it defaults to the group's.",
  })
  quotaType?: string | null;
  @Field(() => [RecipientInputType], {
    nullable: 'itemsAndList',
    description: '1-100 recipients, each once, processed in order. Give recipients or groupId, not both.',
  })
  recipients?: (RecipientInputType | null)[] | null;
  @Field(() => String, {
    nullable: true,
    description: 'A group of the donor: each current member receives its member quota.',
  })
  groupId?: string | null;
}

/** `POST /sqs/api/recurringDonations` (CONTRACT §5, issue 11). */
@InputType('RecurringDonationInput', {
  description:
    'A recurring donation, executed at every renewal of its plan: the fields of DonationInput; with groupId and no donorId the donor is the group owner (published form {donorPlanId, groupId}).',
})
export class RecurringDonationInputType extends DonationInputType {}
