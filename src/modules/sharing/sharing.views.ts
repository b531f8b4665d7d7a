import { Arg } from 'type-graphql';
import { domainErrorOf } from '../../errors';
import { GatewayContext, callerOf, perRequest } from '../../graphql/context';
import { globalId } from '../../graphql/node';
import { recipientOutcome } from './donation-outcome';
import { sqsCodeName } from './error-codes';
import { QuotaType, UnitMeteringType } from './sharing.enums';
import { SharingLoaders } from './sharing.service';
import { AllowanceRow, DonationRow, RecurringRow } from './sharing.rows';
import { AllowanceType, DonationType, RecurringDonationType } from './sharing.types';

/** Milliseconds as ISO-8601 UTC. */
const iso = (ms: number) => new Date(ms).toISOString();

/** Row → GraphQL views (times as ISO-8601 UTC, MSISDNs as the public ids); groups and plans: group.types.ts, plan.types.ts. */
export const view = {
  donation: (d: DonationRow): DonationType => ({
    id: d.id,
    donorId: d.donorMsisdn,
    donorPlanId: d.donorPlanId,
    quotaType: d.quotaType as QuotaType,
    groupId: d.groupId,
    recurringDonationId: d.recurringDonationId,
    period: d.period,
    errorCode: d.errorCode,
    created: iso(d.createdAt),
    recipients: d.recipients.map((r) => ({
      ...r,
      outcome: recipientOutcome(r.errorCode),
      errorName: sqsCodeName(r.errorCode),
    })),
  }),
  allowance: (a: AllowanceRow): AllowanceType => ({
    id: globalId('Allowance', a.id),
    recipientId: a.recipientMsisdn,
    donorPlanId: a.donorPlanId,
    donationId: a.donationId,
    unitMeteringType: a.unitMeteringType as UnitMeteringType,
    amount: a.amount,
    period: a.period,
    created: iso(a.createdAt),
  }),
  recurring: (r: RecurringRow): RecurringDonationType => ({
    id: r.id,
    donorId: r.donorMsisdn,
    donorPlanId: r.donorPlanId,
    quotaType: r.quotaType as QuotaType,
    groupId: r.groupId,
    recipients: r.recipients,
    planName: r.planName ?? null,
    created: iso(r.createdAt),
    updated: iso(r.createdAt),
  }),
};

/** Resolves to null where the service reports NOT_FOUND; other failures propagate. */
export function nullIfNotFound<T>(p: Promise<T>): Promise<T | null> {
  return p.catch((err: unknown) => {
    if (domainErrorOf(err)?.code === 'NOT_FOUND') return null;
    throw err;
  });
}

/** The request's sharing DataLoaders, built once per request. */
export function loaders(ctx: GatewayContext): SharingLoaders {
  const caller = callerOf(ctx);
  return perRequest(ctx, 'sharing', () => ctx.services.sharing.loaders(caller));
}

const IDEMPOTENCY_KEY_DOC =
  'Idempotency key (IETF draft-ietf-httpapi-idempotency-key-header; over REST the Idempotency-Key header), 1-255 visible ASCII characters, per tenant. The same key with the same arguments within 24 h returns the first result without doing anything again; with other arguments (or another operation) the userError IDEMPOTENCY_KEY_REUSED; while the first request is still running IDEMPOTENCY_KEY_IN_USE; a malformed key INVALID on `idempotencyKey`. Only committed results are remembered: after a refusal or a failure the key is free again.';

/** The optional `idempotencyKey` argument of the quota-sharing writes (their payloads' codes). */
export const idempotencyKeyArg = () =>
  Arg('idempotencyKey', () => String, { nullable: true, description: IDEMPOTENCY_KEY_DOC });
