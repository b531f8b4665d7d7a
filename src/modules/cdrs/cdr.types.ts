import { Field, ID, Int, ObjectType, registerEnumType } from 'type-graphql';
import type { Money } from '../../lib/money';
import { NodeInterface } from '../../graphql/node';
import { PageInfoType } from '../../graphql/relay';
import { DateTimeScalar, DecimalScalar, MsisdnScalar, SafeIntScalar } from '../../graphql/scalars';
import { QuotaType, UnitMeteringType } from '../sharing/sharing.enums';
import { ChargingTx, DonationTx, GroupTx, RecurringTx, TokenTx } from './cdr.layouts';

/** The CDR types of the GraphQL `cdrs` query (CONTRACT §8). */
export enum CdrTypeName {
  DONATION = 'donation',
  GROUP = 'group',
  RECURRING_DONATION = 'recurringDonation',
  CHARGING = 'charging',
  TOKEN = 'token',
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
    TOKEN: {
      description:
        'Token web service CDR, service ID 102: one per token created, validated (introspection, portal link opened) or found expired.',
    },
  },
});

/** Donation CDR transaction types (published, service ID 96): the `transactionType` numbers. */
export enum DonationCdrTransaction {
  START = DonationTx.START,
  END = DonationTx.END,
  DEDUCT_QUOTA = DonationTx.DEDUCT_QUOTA,
  ADD_QUOTA = DonationTx.ADD_QUOTA,
  ROLLBACK_QUOTA = DonationTx.ROLLBACK_QUOTA,
  GET_DONOR_PLAN = DonationTx.GET_DONOR_PLAN,
}

registerEnumType(DonationCdrTransaction, {
  name: 'DonationCdrTransaction',
  description: 'The step of a donation a donation CDR records (published transaction types 0-5).',
  valuesConfig: {
    START: { description: '0: donation start.' },
    END: { description: "1: donation end, with the donation's overall errorCode." },
    DEDUCT_QUOTA: { description: '2: quota deducted from the donor plan for one recipient.' },
    ADD_QUOTA: { description: '3: quota added to one recipient.' },
    ROLLBACK_QUOTA: { description: "4: a failed recipient's deducted quota given back to the donor plan." },
    GET_DONOR_PLAN: { description: '5: the donor plan read.' },
  },
});

/** Group CDR transaction types (published, service ID 98). */
export enum GroupCdrTransaction {
  CREATED = GroupTx.CREATED,
  UPDATED = GroupTx.UPDATED,
  DELETED = GroupTx.DELETED,
  MEMBER_ADDED = GroupTx.MEMBER_ADDED,
  MEMBER_UPDATED = GroupTx.MEMBER_UPDATED,
  MEMBER_DELETED = GroupTx.MEMBER_DELETED,
}

registerEnumType(GroupCdrTransaction, {
  name: 'GroupCdrTransaction',
  description: 'The change a groups CDR records (published transaction types 0-5).',
  valuesConfig: {
    CREATED: { description: '0: group created.' },
    UPDATED: { description: '1: group updated.' },
    DELETED: { description: '2: group deleted.' },
    MEMBER_ADDED: { description: '3: member added.' },
    MEMBER_UPDATED: { description: '4: member updated.' },
    MEMBER_DELETED: { description: '5: member deleted.' },
  },
});

/** Recurring donation CDR transaction types (published, service ID 99). */
export enum RecurringDonationCdrTransaction {
  CREATED = RecurringTx.CREATED,
  UPDATED = RecurringTx.UPDATED,
  DELETED = RecurringTx.DELETED,
}

registerEnumType(RecurringDonationCdrTransaction, {
  name: 'RecurringDonationCdrTransaction',
  description: 'The change a recurring donation CDR records (published transaction types 0-2).',
  valuesConfig: {
    CREATED: { description: '0: recurring donation created.' },
    UPDATED: { description: '1: recurring donation updated.' },
    DELETED: { description: '2: recurring donation deleted (actor cause 0: its plan ended).' },
  },
});

/** Charging CDR transaction types (the gateway's own, service ID 200). */
export enum ChargingCdrTransaction {
  RATING = ChargingTx.RATING,
  REFUND = ChargingTx.REFUND,
}

registerEnumType(ChargingCdrTransaction, {
  name: 'ChargingCdrTransaction',
  description: 'The operation a charging CDR records (transaction types 0-1).',
  valuesConfig: {
    RATING: { description: '0: a rating (`processRating`).' },
    REFUND: { description: '1: a refund (`processRefund`).' },
  },
});

/** Token CDR transaction types (published, service ID 102). */
export enum TokenCdrTransaction {
  CREATE = TokenTx.CREATE,
  VALIDATE = TokenTx.VALIDATE,
  EXPIRE = TokenTx.EXPIRE,
}

registerEnumType(TokenCdrTransaction, {
  name: 'TokenCdrTransaction',
  description: 'The token operation a token CDR records (published transaction types 1-3).',
  valuesConfig: {
    CREATE: { description: '1: token created (issued).' },
    VALIDATE: { description: '2: token validated (introspected, or its portal link opened).' },
    EXPIRE: {
      description: '3: token expired (recorded once, by the first validation that finds it expired).',
    },
  },
});

/** Token CDR transaction status (published field 7). */
export enum TokenCdrStatusValue {
  SUCCESSFUL = 'successful',
  ERROR = 'error',
  VALIDATION_FAILED = 'validation_failed',
}

registerEnumType(TokenCdrStatusValue, {
  name: 'TokenCdrStatus',
  description: 'The outcome a token CDR records (published field 7).',
  valuesConfig: {
    SUCCESSFUL: { description: '`successful`.' },
    ERROR: { description: '`error`: an unexpected error occurred (the database failed).' },
    VALIDATION_FAILED: { description: '`validation_failed`: the token is unknown, revoked or expired.' },
  },
});

/** Token CDR fields (published fields 1, 6 and 7). */
@ObjectType('TokenCdrFields', {
  description: 'The fields of a token web service CDR besides the common ones (published fields 1, 6 and 7).',
})
export class TokenCdrFieldsType {
  @Field(() => TokenCdrTransaction, {
    description: 'The operation this CDR records (the `transactionType` number as an enum).',
  })
  transaction!: TokenCdrTransaction;
  @Field(() => MsisdnScalar, {
    nullable: true,
    description: "The token's subscriber MSISDN; null when the token resolves to none (unknown token).",
  })
  msisdn!: string | null;
  @Field(() => String, {
    description:
      "The token id: the first 16 hex digits of the token's SHA-256 (the token itself is never recorded); the same as `recordId`.",
  })
  tokenId!: string;
  @Field(() => TokenCdrStatusValue, { description: 'Published field 7: the transaction status.' })
  status!: TokenCdrStatusValue;
}

/** Donation CDR fields 9-31 (published). */
@ObjectType('DonationCdrFields', {
  description:
    'The fields of an SQS donation CDR after the common ones (published fields 9-31; the SPCM status and error codes, the donor plan expiry and the recipient plan ID, always empty in this gateway, are left out).',
})
export class DonationCdrFieldsType {
  @Field(() => DonationCdrTransaction, {
    description: 'The step this CDR records (the `transactionType` number as an enum).',
  })
  transaction!: DonationCdrTransaction;
  @Field(() => Int, {
    description: '0 one-time donation, 1 recurring donation (the published number).',
    deprecationReason: 'use recurring',
  })
  donationType!: number;
  @Field(() => Boolean, {
    description: "True for a recurring donation's run (donationType 1), false for a one-time donation (0).",
  })
  recurring!: boolean;
  @Field(() => Int, {
    description:
      "The errorCode as in the HTTP response: the step's recipient's on deduct/add/rollback steps, the donation's overall one on the end step, 0 on start and get donor plan.",
  })
  donationErrorCode!: number;
  @Field(() => MsisdnScalar, { nullable: true, description: 'Donor MSISDN.' })
  donorId!: string | null;
  @Field(() => Int, { nullable: true, description: 'Donor plan id.' })
  donorPlanId!: number | null;
  @Field(() => ID, { nullable: true, description: 'Group id, its `Group.id` (group donations).' })
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
  @Field(() => UnitMeteringType, {
    nullable: true,
    description: "Deduct and rollback steps: the plan's unit metering type.",
  })
  deductQuotaType!: UnitMeteringType | null;
  @Field(() => SafeIntScalar, {
    nullable: true,
    description:
      'Deduct and rollback steps: the requested quota (share of 10^7, or an amount in the plan unit).',
  })
  deductQuotaValue!: number | null;
  @Field(() => SafeIntScalar, {
    nullable: true,
    description:
      'Deduct step: the amount taken from the donor plan; rollback step: the amount given back (plan unit: bytes, seconds or credit minor units).',
  })
  deductedAmount!: number | null;
  @Field(() => UnitMeteringType, { nullable: true, description: "Add step: the plan's unit metering type." })
  addQuotaType!: UnitMeteringType | null;
  @Field(() => SafeIntScalar, {
    nullable: true,
    description: 'Add step: the requested quota (share of 10^7, or an amount).',
  })
  addQuotaValue!: number | null;
  @Field(() => MsisdnScalar, {
    nullable: true,
    description: 'Deduct, add and rollback steps: the recipient MSISDN.',
  })
  recipientId!: string | null;
  @Field(() => SafeIntScalar, {
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
  @Field(() => GroupCdrTransaction, {
    description: 'The change this CDR records (the `transactionType` number as an enum).',
  })
  transaction!: GroupCdrTransaction;
  @Field(() => MsisdnScalar, { description: 'Group owner MSISDN.' })
  groupOwnerId!: string;
  @Field(() => String, { description: 'Group name (after the change).' })
  groupName!: string;
  @Field(() => Int, {
    nullable: true,
    description: 'Group quota type: 0 share, 1 amount (the published number); null when the group has none.',
    deprecationReason: 'use quotaType',
  })
  groupQuotaType!: number | null;
  @Field(() => QuotaType, {
    nullable: true,
    description: "The group's quota type; null when the group has none.",
  })
  quotaType!: QuotaType | null;
  @Field(() => MsisdnScalar, { nullable: true, description: 'Member MSISDN (member transactions 3, 4, 5).' })
  groupMemberId!: string | null;
  @Field(() => SafeIntScalar, {
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
  @Field(() => RecurringDonationCdrTransaction, {
    description: 'The change this CDR records (the `transactionType` number as an enum).',
  })
  transaction!: RecurringDonationCdrTransaction;
  @Field(() => Int, { description: 'Donor plan id.' })
  donorPlanId!: number;
  @Field(() => ID, {
    nullable: true,
    description: 'Group id, its `Group.id` (group recurring donations).',
  })
  groupId!: string | null;
  @Field(() => String, { nullable: true, description: 'Group name.' })
  groupName!: string | null;
  @Field(() => MsisdnScalar, { description: 'Donor MSISDN.' })
  donorId!: string;
  @Field(() => String, { nullable: true, description: "The donor plan's definition name." })
  planName!: string | null;
}

/** Charging CDR fields (the gateway's own layout). */
@ObjectType('ChargingCdrFields', {
  description: "The fields of the gateway's charging CDR after the common ones.",
})
export class ChargingCdrFieldsType {
  @Field(() => ChargingCdrTransaction, {
    description: 'The operation this CDR records (the `transactionType` number as an enum).',
  })
  transaction!: ChargingCdrTransaction;
  @Field(() => String, {
    nullable: true,
    description:
      'Subscriber MSISDN as the request gave it (digits only once validated; a String, not an MSISDN, since a refused request may have sent anything).',
  })
  msisdn!: string | null;
  @Field(() => Int, { description: 'The returnCode answered (CONTRACT §4).' })
  returnCode!: number;
  @Field(() => DecimalScalar, {
    nullable: true,
    description:
      'Exact amount in `currency` this request moved (charged or refunded); null when nothing moved.',
  })
  amount!: Money | string | null;
  @Field(() => String, { nullable: true, description: 'ISO 4217 currency of the amounts.' })
  currency!: string | null;
  @Field(() => DecimalScalar, {
    nullable: true,
    description: 'Exact balance in `currency` after the operation; null when no balance was involved.',
  })
  balanceAfter!: Money | string | null;
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

/** One CDR: the eight common fields and the fields of its type. An entity (Node by its row id). */
@ObjectType('Cdr', {
  implements: NodeInterface,
  description:
    'A CDR: the common fields, and the fields of its type under the field named after it. CDRs are immutable records; `id` refetches one with `node(id:)` (ADMIN).',
})
export class CdrType {
  @Field(() => ID, { description: 'Opaque, stable global id of this CDR.' })
  id!: string;
  @Field(() => CdrTypeName, { description: 'The kind of CDR.' })
  type!: CdrTypeName;
  @Field(() => String, {
    description:
      'Field 1: the donation, group or recurring donation id, or the operationId (empty when the request had none); for a token CDR its token id (published field 6).',
  })
  recordId!: string;
  @Field(() => Int, {
    description: 'Service ID: 96 donation, 98 group, 99 recurring donation, 102 token, 200 charging.',
  })
  serviceId!: number;
  @Field(() => Int, {
    description: 'Transaction type number (docs/events.md "CDRs", the published number).',
    deprecationReason:
      'use `transaction` of the field group of its kind (charging, donation, group, recurringDonation, token)',
  })
  transactionType!: number;
  @Field(() => String, { description: 'Tenant ID: the tenant name.' })
  tenantId!: string;
  @Field(() => String, {
    description: 'When it was generated, ISO-8601 UTC with milliseconds.',
    deprecationReason: 'use `generatedAt` (the same instant as a DateTime)',
  })
  generated!: string;
  @Field(() => DateTimeScalar, { description: 'When it was generated (the same instant as `generated`).' })
  generatedAt!: Date;
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
  @Field(() => TokenCdrFieldsType, { nullable: true, description: 'Token CDR fields (type TOKEN).' })
  token!: TokenCdrFieldsType | null;
}

/** One CDR of a page, with its cursor. */
@ObjectType('CdrEdge', { description: 'One Cdr of a page, with its cursor.' })
export class CdrEdgeType {
  @Field(() => String, { description: 'Opaque cursor of this item; pass it as `after` or `before`.' })
  cursor!: string;
  @Field(() => CdrType, { description: 'The Cdr.' })
  node!: CdrType;
}

/**
 * A page of CDRs: a Relay connection (as src/graphql/relay.ts's `connectionTypes` builds them),
 * with the fields of its earlier shape (`nodes`, `endCursor`, `hasNextPage`) kept, deprecated.
 */
@ObjectType('CdrConnection', { description: 'CDRs in list order: oldest first (by time, then write order).' })
export class CdrConnectionType {
  @Field(() => [CdrEdgeType], { description: 'The items of this page, in list order.' })
  edges!: CdrEdgeType[];
  @Field(() => PageInfoType, { description: 'Where this page stands in the whole list.' })
  pageInfo!: PageInfoType;
  @Field(() => [CdrType], {
    description: 'The CDRs of this page.',
    deprecationReason: 'use `edges { node }`',
  })
  nodes!: CdrType[];
  @Field(() => String, {
    nullable: true,
    description: 'Cursor of the last CDR of this page; null when the page is empty.',
    deprecationReason: 'use `pageInfo { endCursor }`',
  })
  endCursor!: string | null;
  @Field(() => Boolean, {
    description: 'True when more CDRs follow in the window.',
    deprecationReason: 'use `pageInfo { hasNextPage }`',
  })
  hasNextPage!: boolean;
}
