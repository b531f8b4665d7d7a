import { Field, Int, ObjectType, registerEnumType } from 'type-graphql';

/** The CDR types of the GraphQL `cdrs` query (issue 12 part 5). */
export enum CdrTypeName {
  DONATION = 'donation',
  GROUP = 'group',
  RECURRING_DONATION = 'recurringDonation',
  CHARGING = 'charging',
}

registerEnumType(CdrTypeName, {
  name: 'CdrType',
  description: 'A kind of CDR.',
  valuesConfig: {
    DONATION: { description: 'SQS donation CDR, service ID 96: one per donation step.' },
    GROUP: { description: 'SQS groups CDR, service ID 98: one per group or member change.' },
    RECURRING_DONATION: { description: 'SQS recurring donation CDR, service ID 99: one per change.' },
    CHARGING: {
      description: "The gateway's charging CDR, service ID 200: one per rating or refund outcome.",
    },
  },
});

/** Donation CDR fields 9-31 (published). */
@ObjectType('DonationCdrFields', {
  description:
    'The fields of an SQS donation CDR after the common ones (published fields 9-31; the SPCM status and error codes, the donor plan expiry and the recipient plan ID, always empty in this gateway, are left out).',
})
export class DonationCdrFieldsType {
  @Field(() => Int, { description: '0 one-time donation, 1 recurring donation.' })
  donationType!: number;
  @Field(() => Int, {
    description:
      "The errorCode as in the HTTP response: the step's recipient's on deduct/add/rollback steps, the donation's overall one on the end step, 0 on start and get donor plan.",
  })
  donationErrorCode!: number;
  @Field(() => String, { nullable: true, description: 'Donor MSISDN, digits only.' })
  donorId!: string | null;
  @Field(() => Int, { nullable: true, description: 'Donor plan id.' })
  donorPlanId!: number | null;
  @Field(() => String, { nullable: true, description: 'Group id (group donations).' })
  groupId!: string | null;
  @Field(() => String, { nullable: true, description: 'Group name (group donations).' })
  groupName!: string | null;
  @Field(() => Int, {
    nullable: true,
    description: "The donor plan's plan definition id (from get donor plan on).",
  })
  planDefinitionId!: number | null;
  @Field(() => String, { nullable: true, description: "The plan definition's name." })
  planDefinitionName!: string | null;
  @Field(() => Int, { nullable: true, description: "The plan definition's maxRecipients." })
  planDefinitionMaxRecipients!: number | null;
  @Field(() => String, {
    nullable: true,
    description: 'Deduct and rollback steps: the unit metering type (`volume`, `time`, `credit`).',
  })
  deductQuotaType!: string | null;
  @Field(() => Int, {
    nullable: true,
    description:
      'Deduct and rollback steps: the requested quota (share of 10^7, or an amount in the plan unit).',
  })
  deductQuotaValue!: number | null;
  @Field(() => Int, {
    nullable: true,
    description:
      'Deduct step: the amount taken from the donor plan; rollback step: the amount given back (plan unit: bytes, seconds or credit minor units).',
  })
  deductedAmount!: number | null;
  @Field(() => String, { nullable: true, description: 'Add step: the unit metering type.' })
  addQuotaType!: string | null;
  @Field(() => Int, {
    nullable: true,
    description: 'Add step: the requested quota (share of 10^7, or an amount).',
  })
  addQuotaValue!: number | null;
  @Field(() => String, {
    nullable: true,
    description: 'Deduct, add and rollback steps: the recipient MSISDN.',
  })
  recipientId!: string | null;
  @Field(() => Int, {
    nullable: true,
    description: 'Add step: the amount the recipient received (plan unit; 0 when the add failed).',
  })
  addedAmount!: number | null;
}

/** Group CDR fields 9-13 (published). */
@ObjectType('GroupCdrFields', {
  description: 'The fields of an SQS groups CDR after the common ones (published fields 9-13).',
})
export class GroupCdrFieldsType {
  @Field(() => String, { description: 'Group owner MSISDN.' })
  groupOwnerId!: string;
  @Field(() => String, { description: 'Group name (after the change).' })
  groupName!: string;
  @Field(() => Int, {
    nullable: true,
    description: 'Group quota type: 0 share, 1 amount; null when the group has none.',
  })
  groupQuotaType!: number | null;
  @Field(() => String, { nullable: true, description: 'Member MSISDN (member transactions 3, 4, 5).' })
  groupMemberId!: string | null;
  @Field(() => Int, {
    nullable: true,
    description: "Member's quota (share of 10^7, or an amount in the plan unit).",
  })
  groupMemberQuota!: number | null;
}

/** Recurring donation CDR fields 9-13 (published). */
@ObjectType('RecurringDonationCdrFields', {
  description: 'The fields of an SQS recurring donation CDR after the common ones (published fields 9-13).',
})
export class RecurringDonationCdrFieldsType {
  @Field(() => Int, { description: 'Donor plan id.' })
  donorPlanId!: number;
  @Field(() => String, { nullable: true, description: 'Group id (group recurring donations).' })
  groupId!: string | null;
  @Field(() => String, { nullable: true, description: 'Group name.' })
  groupName!: string | null;
  @Field(() => String, { description: 'Donor MSISDN.' })
  donorId!: string;
  @Field(() => String, { nullable: true, description: "The donor plan's definition name." })
  planName!: string | null;
}

/** Charging CDR fields (the gateway's own layout). */
@ObjectType('ChargingCdrFields', {
  description: "The fields of the gateway's charging CDR after the common ones.",
})
export class ChargingCdrFieldsType {
  @Field(() => String, {
    nullable: true,
    description: 'Subscriber MSISDN as given (digits only once validated).',
  })
  msisdn!: string | null;
  @Field(() => Int, { description: 'The returnCode answered (CONTRACT §4).' })
  returnCode!: number;
  @Field(() => String, {
    nullable: true,
    description: 'Exact decimal amount this request moved (charged or refunded); null when nothing moved.',
  })
  amount!: string | null;
  @Field(() => String, { nullable: true, description: 'ISO 4217 currency of the amounts.' })
  currency!: string | null;
  @Field(() => String, {
    nullable: true,
    description: 'Exact decimal balance after the operation; null when no balance was involved.',
  })
  balanceAfter!: string | null;
  @Field(() => String, { nullable: true, description: 'Lookup key providerId.' })
  providerId!: string | null;
  @Field(() => String, { nullable: true, description: 'Lookup key applicationId.' })
  applicationId!: string | null;
  @Field(() => String, { nullable: true, description: 'Lookup key serviceId.' })
  serviceId!: string | null;
  @Field(() => String, { nullable: true, description: 'Lookup key originId.' })
  originId!: string | null;
  @Field(() => String, { nullable: true, description: 'Lookup key bundleId.' })
  bundleId!: string | null;
}

/** One CDR: the eight common fields and the fields of its type. */
@ObjectType('Cdr', {
  description: 'A CDR: the common fields, and the fields of its type under the field named after it.',
})
export class CdrType {
  @Field(() => CdrTypeName, { description: 'The kind of CDR.' })
  type!: CdrTypeName;
  @Field(() => String, {
    description:
      'Field 1: the donation, group or recurring donation id, or the operationId (empty when the request had none).',
  })
  recordId!: string;
  @Field(() => Int, {
    description: 'Service ID: 96 donation, 98 group, 99 recurring donation, 200 charging.',
  })
  serviceId!: number;
  @Field(() => Int, { description: 'Transaction type (README "CDRs" tables).' })
  transactionType!: number;
  @Field(() => String, { description: 'Tenant ID: the tenant name.' })
  tenantId!: string;
  @Field(() => String, { description: 'When it was generated, ISO-8601 UTC with milliseconds.' })
  generated!: string;
  @Field(() => String, { description: 'CDR generation date, `DD/MM/YYYY` UTC (published format).' })
  date!: string;
  @Field(() => String, { description: 'CDR generation time, `hh:mm:ss` UTC, 24-hour (published format).' })
  time!: string;
  @Field(() => String, { description: "The API client's username, or `sqs` for internal changes." })
  actor!: string;
  @Field(() => Int, {
    nullable: true,
    description: 'Actor cause: 0 = recurring donation deleted because its plan ended; null otherwise.',
  })
  actorCause!: number | null;
  @Field(() => DonationCdrFieldsType, { nullable: true, description: 'Donation CDR fields (type DONATION).' })
  donation!: DonationCdrFieldsType | null;
  @Field(() => GroupCdrFieldsType, { nullable: true, description: 'Group CDR fields (type GROUP).' })
  group!: GroupCdrFieldsType | null;
  @Field(() => RecurringDonationCdrFieldsType, {
    nullable: true,
    description: 'Recurring donation CDR fields (type RECURRING_DONATION).',
  })
  recurringDonation!: RecurringDonationCdrFieldsType | null;
  @Field(() => ChargingCdrFieldsType, { nullable: true, description: 'Charging CDR fields (type CHARGING).' })
  charging!: ChargingCdrFieldsType | null;
}

/** A page of CDRs. */
@ObjectType('CdrConnection', { description: 'CDRs, oldest first.' })
export class CdrConnectionType {
  @Field(() => [CdrType], { description: 'The CDRs of this page.' })
  nodes!: CdrType[];
  @Field(() => String, {
    nullable: true,
    description: 'Pass as `after` for the next page; null when there are no CDRs on this page.',
  })
  endCursor!: string | null;
  @Field(() => Boolean, { description: 'True when more CDRs follow in the window.' })
  hasNextPage!: boolean;
}
