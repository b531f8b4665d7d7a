import { ArgsType, Field, ID, ObjectType, registerEnumType } from 'type-graphql';
import type { GatewayContext } from '../../graphql/context';
import { mutationPayload, userErrorType } from '../../graphql/payload';
import { ConnectionArgs, connectionTypes, cursorCodec } from '../../graphql/relay';
import { MsisdnScalar } from '../../graphql/scalars';
import { DomainError } from '../../errors';
import { SqsCode } from './error-codes';
import { AllowanceType, DonationType, RecurringDonationType } from './sharing.types';

/**
 * The donation and allowance lists, cursors, payloads and user errors of the graph (docs/graphql.md):
 * `donations` and `allowances` are Relay connections; `shareQuota`, `createRecurringDonation`
 * and `deleteRecurringDonation` return payloads whose `userErrors` carry a {@link DonationErrorCode}.
 */

/** `donations`: a donor's donations, newest first (Relay connection). */
export const DonationConnections = connectionTypes(DonationType, 'Donation', {
  description: "A page of a donor's donations, newest first.",
});

/** `allowances`: what a subscriber received, newest first (Relay connection). */
export const AllowanceConnections = connectionTypes(AllowanceType, 'Allowance', {
  description: 'A page of the allowances a subscriber received, newest first.',
});

/** Cursor of a donation in a donor's list: its creation time (epoch ms) and id. */
export const donationCursor = cursorCodec<{ createdAt: number; id: string }>(
  'donation',
  (k) => `${k.createdAt}:${k.id}`,
  (text) => {
    const m = /^(\d{1,15}):([A-Za-z0-9_-]{20})$/.exec(text);
    return m ? { createdAt: Number(m[1]), id: m[2] } : undefined;
  },
);

/** Cursor of an allowance in a recipient's list: its row id. */
export const allowanceCursor = cursorCodec<number>(
  'allowance',
  (id) => String(id),
  (text) => (/^[1-9]\d{0,14}$/.test(text) ? Number(text) : undefined),
);

/** Arguments of `donations`: the donor and the paging. */
@ArgsType()
export class DonationsArgs extends ConnectionArgs {
  @Field(() => MsisdnScalar, { description: 'The donor.' })
  donorId!: string;
}

/** Arguments of `allowances`: the recipient and the paging. */
@ArgsType()
export class AllowancesArgs extends ConnectionArgs {
  @Field(() => MsisdnScalar, { description: 'The recipient.' })
  msisdn!: string;
}

/** What a donation or recurring donation mutation refused (CONTRACT §5; legacy errorCode and REST status in brackets). */
export enum DonationErrorCode {
  INVALID = 'INVALID',
  GROUP_NOT_FOUND = 'GROUP_NOT_FOUND',
  DONOR_NOT_FOUND = 'DONOR_NOT_FOUND',
  PLAN_NOT_FOUND = 'PLAN_NOT_FOUND',
  DONOR_NOT_ACTIVE = 'DONOR_NOT_ACTIVE',
  PLAN_NOT_SHAREABLE = 'PLAN_NOT_SHAREABLE',
  PLAN_NOT_RECURRING = 'PLAN_NOT_RECURRING',
  MAX_RECIPIENTS_EXCEEDED = 'MAX_RECIPIENTS_EXCEEDED',
  RECIPIENT_PLAN_LIMIT = 'RECIPIENT_PLAN_LIMIT',
  RECURRING_DONATION_EXISTS = 'RECURRING_DONATION_EXISTS',
  RECURRING_DONATION_NOT_FOUND = 'RECURRING_DONATION_NOT_FOUND',
  IDEMPOTENCY_KEY_REUSED = 'IDEMPOTENCY_KEY_REUSED',
  IDEMPOTENCY_KEY_IN_USE = 'IDEMPOTENCY_KEY_IN_USE',
  GENERAL = 'GENERAL',
}

registerEnumType(DonationErrorCode, {
  name: 'DonationErrorCode',
  description:
    'Why a donation or recurring donation mutation was refused (the legacy errorCode and REST status in brackets).',
  valuesConfig: {
    INVALID: {
      description:
        'A field is missing, out of range, listed twice or inconsistent; `field` names it (REST 412).',
    },
    GROUP_NOT_FOUND: { description: 'No such group in your tenant (5, REST 404).' },
    DONOR_NOT_FOUND: { description: 'The donor is not a subscriber of your tenant (7, REST 404).' },
    PLAN_NOT_FOUND: { description: "The donor plan does not exist or is not the donor's (8, REST 404)." },
    DONOR_NOT_ACTIVE: { description: 'The donor is not an active subscriber (14, REST 422).' },
    PLAN_NOT_SHAREABLE: { description: 'The donor plan may not be shared (16, REST 422).' },
    PLAN_NOT_RECURRING: {
      description: 'A recurring donation needs a recurring (renewing) plan (9, REST 422).',
    },
    MAX_RECIPIENTS_EXCEEDED: {
      description: "More distinct recipients in the plan's period than its maxRecipients (13, REST 422).",
    },
    RECIPIENT_PLAN_LIMIT: {
      description:
        'The single recipient already holds MAX_PLANS_PER_SUBSCRIBER plans; with several recipients this is a per-recipient outcome instead (1, REST 422).',
    },
    RECURRING_DONATION_EXISTS: { description: 'The plan already has a recurring donation (11, REST 409).' },
    RECURRING_DONATION_NOT_FOUND: { description: 'No such recurring donation in your tenant (1, REST 404).' },
    IDEMPOTENCY_KEY_REUSED: {
      description:
        'The idempotency key was used in the last 24 h for another operation or other arguments (1, REST 422).',
    },
    IDEMPOTENCY_KEY_IN_USE: {
      description: 'A request with this idempotency key is still running; retry later (1, REST 409).',
    },
    GENERAL: { description: 'Any other refusal (REST 404, 409 or 422 with its errorCode).' },
  },
});

/** The user error of the donation and recurring donation mutations. */
export const DonationUserError = userErrorType<DonationErrorCode>(
  'DonationUserError',
  DonationErrorCode,
  'A refusal of shareQuota, createRecurringDonation or deleteRecurringDonation; nothing was changed.',
);

const NOT_FOUND: Record<number, DonationErrorCode> = {
  [SqsCode.GENERAL]: DonationErrorCode.RECURRING_DONATION_NOT_FOUND,
  [SqsCode.GROUP_NOT_FOUND]: DonationErrorCode.GROUP_NOT_FOUND,
  [SqsCode.DONOR_NOT_FOUND]: DonationErrorCode.DONOR_NOT_FOUND,
  [SqsCode.PLAN_NOT_FOUND]: DonationErrorCode.PLAN_NOT_FOUND,
};

const UNPROCESSABLE: Record<number, DonationErrorCode> = {
  [SqsCode.PLAN_NOT_RECURRING]: DonationErrorCode.PLAN_NOT_RECURRING,
  [SqsCode.MAX_RECIPIENTS_EXCEEDED]: DonationErrorCode.MAX_RECIPIENTS_EXCEEDED,
  [SqsCode.SUBSCRIBER_NOT_FOUND]: DonationErrorCode.DONOR_NOT_ACTIVE,
  [SqsCode.NOT_SHAREABLE]: DonationErrorCode.PLAN_NOT_SHAREABLE,
};

/**
 * The {@link DonationErrorCode} of a refusal of the donation services: by its GraphQL code and
 * its legacy `errorCode` (CONTRACT §5). errorCode 1 under UNPROCESSABLE is the single recipient's plan limit
 * when the error names the recipient (`recipientId`), else a reused idempotency key; under
 * CONFLICT a key in flight.
 */
export function donationErrorCode(err: DomainError): DonationErrorCode {
  const errorCode = err.extensions.errorCode as number | undefined;
  switch (err.code) {
    case 'BAD_USER_INPUT':
      return DonationErrorCode.INVALID;
    case 'NOT_FOUND':
      return NOT_FOUND[errorCode ?? -1] ?? DonationErrorCode.GENERAL;
    case 'CONFLICT':
      if (errorCode === SqsCode.RECURRING_EXISTS) return DonationErrorCode.RECURRING_DONATION_EXISTS;
      return errorCode === SqsCode.GENERAL
        ? DonationErrorCode.IDEMPOTENCY_KEY_IN_USE
        : DonationErrorCode.GENERAL;
    default:
      if (errorCode === SqsCode.GENERAL)
        return err.extensions.recipientId !== undefined
          ? DonationErrorCode.RECIPIENT_PLAN_LIMIT
          : DonationErrorCode.IDEMPOTENCY_KEY_REUSED;
      return UNPROCESSABLE[errorCode ?? -1] ?? DonationErrorCode.GENERAL;
  }
}

/**
 * Runs a donation mutation's work into its payload ({@link mutationPayload} with
 * {@link donationErrorCode}); an error on the `idempotencyKey` argument names that argument
 * (`["idempotencyKey"]`), not a field of `input`.
 * @throws what {@link mutationPayload} throws.
 */
export async function donationPayload<R, P extends object>(
  ctx: GatewayContext,
  work: () => Promise<R>,
  ok: (result: R) => P,
  arg: string | null = 'input',
) {
  const payload = await mutationPayload(ctx, work, ok, 'DonationUserError', donationErrorCode, arg);
  for (const e of payload.userErrors)
    if (e.field?.[1] === 'idempotencyKey' && e.field.length === 2) e.field = ['idempotencyKey'];
  return payload;
}

/** How the donation inputs report bad fields, for the `input` argument descriptions. */
export const DONATION_INPUT_DOC =
  'Malformed values (MSISDN, integers, QuotaType) are refused before anything runs (BAD_USER_INPUT); missing, out-of-range, duplicate or inconsistent fields are `userErrors` with code INVALID naming each field.';

/** `shareQuota`'s result. */
@ObjectType('ShareQuotaPayload', {
  description:
    "The result of shareQuota: the donation (a donation where some recipients failed is a donation: see each recipient's `outcome`), or the userErrors of a refused request.",
})
export class ShareQuotaPayload {
  @Field(() => DonationType, { nullable: true, description: 'The donation made; null when refused.' })
  donation?: DonationType | null;
  @Field(() => [DonationUserError], { description: 'Why the request was refused; empty on success.' })
  userErrors!: InstanceType<typeof DonationUserError>[];
}

/** `createRecurringDonation`'s result. */
@ObjectType('CreateRecurringDonationPayload', {
  description:
    'The result of createRecurringDonation: the recurring donation, or the userErrors of a refusal.',
})
export class CreateRecurringDonationPayload {
  @Field(() => RecurringDonationType, {
    nullable: true,
    description: 'The recurring donation created; null when refused.',
  })
  recurringDonation?: RecurringDonationType | null;
  @Field(() => [DonationUserError], { description: 'Why the request was refused; empty on success.' })
  userErrors!: InstanceType<typeof DonationUserError>[];
}

/** `deleteRecurringDonation`'s result. */
@ObjectType('DeleteRecurringDonationPayload', {
  description: 'The result of deleteRecurringDonation: the id cancelled, or the userErrors of a refusal.',
})
export class DeleteRecurringDonationPayload {
  @Field(() => ID, {
    nullable: true,
    description: 'The id of the recurring donation cancelled; null when refused.',
  })
  deletedRecurringDonationId?: string | null;
  @Field(() => [DonationUserError], { description: 'Why the request was refused; empty on success.' })
  userErrors!: InstanceType<typeof DonationUserError>[];
}
