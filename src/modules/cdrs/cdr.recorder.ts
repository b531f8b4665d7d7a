import { Knex } from 'knex';
import { Clock } from '../../lib/clock';
import { Money } from '../../lib/money';
import type { GroupRow, MemberRow, RecurringRow, SubscriberPlanRow } from '../sharing/sharing.rows';
import {
  CdrFields,
  CdrKind,
  ChargingTx,
  DonationTx,
  DonationType,
  GroupQuotaType,
  GroupTx,
  RecurringTx,
  SERVICE_ID,
  SQS_ACTOR,
  TokenCdrStatus,
  TokenTx,
} from './cdr.layouts';
import { CdrInsert, insertCdrs } from './cdr.store';

/** Who made a change: the API client's username, or {@link SQS_ACTOR} for internal changes. */
export interface CdrActor {
  tenantId: number;
  /** The API client's username; absent for internal changes (renewal), which record `sqs`. */
  actor?: string;
}

const actorOf = (a: CdrActor) => a.actor ?? SQS_ACTOR;

/** SQS error code of a recipient refused for want of quota (deduct fails; see {@link DonationCdrTrail.recipient}). */
const QUOTA_UNAVAILABLE = 15;

/**
 * The donation CDR steps of one donation (published service ID 96), collected in memory and
 * written with one insert by {@link write} inside the donation's transaction. The steps follow
 * the published flow: start (0), get donor plan (5), per recipient deduct quota (2) and add
 * quota (3) — and, for a recipient that failed after the deduction, rollback quota (4) —, end
 * (1). The gateway takes quota with one conditional update, so a failed recipient moves nothing;
 * its trail still shows deduct, failed add and rollback of the same amount, so that
 * Σ deducted − Σ rolled back = Σ added = what moved. A recipient refused for want of quota (15)
 * gets a failed deduct (0 deducted) and nothing else. Amounts are in the plan's unit.
 */
export class DonationCdrTrail {
  private readonly rows: CdrInsert[] = [];
  private readonly context: CdrFields;

  constructor(
    private readonly nowMs: number,
    private readonly actor: CdrActor,
    private readonly donationId: string,
    recurring: boolean,
  ) {
    this.context = {
      donationType: recurring ? DonationType.RECURRING : DonationType.ONE_TIME,
      donationErrorCode: 0,
    };
  }

  private push(transactionType: number, fields: CdrFields): void {
    this.rows.push({
      tenantId: this.actor.tenantId,
      type: 'donation',
      serviceId: SERVICE_ID.donation,
      transactionType,
      createdAt: this.nowMs,
      actor: actorOf(this.actor),
      actorCause: null,
      recordId: this.donationId,
      fields: { ...this.context, ...fields },
    });
  }

  /** Step 0, donation start: the donor, its plan and the group (group donations). */
  start(donor: {
    donorId: string;
    donorPlanId: number;
    groupId: string | null;
    groupName: string | null;
  }): void {
    Object.assign(this.context, donor);
    this.push(DonationTx.START, {});
  }

  /** Step 5, get donor plan: the donor plan's definition (id, name, max recipients) from here on. */
  donorPlan(plan: SubscriberPlanRow): void {
    Object.assign(this.context, {
      planDefinitionId: plan.definition.id,
      planDefinitionName: plan.definition.name,
      planDefinitionMaxRecipients: plan.definition.maxRecipients,
    });
    this.push(DonationTx.GET_DONOR_PLAN, {});
  }

  /**
   * One recipient's steps. `quota` is the requested value (share of 10^7 or an amount), `amount`
   * what it is worth in the plan's unit, `unit` the plan's unit metering type (the published
   * "usage type such as volume or time"), `errorCode` the recipient's result.
   */
  recipient(r: {
    recipientId: string;
    quota: number;
    amount: number;
    unit: string;
    errorCode: number;
  }): void {
    const deduct = { deductQuotaType: r.unit, deductQuotaValue: r.quota, recipientId: r.recipientId };
    if (r.errorCode === QUOTA_UNAVAILABLE) {
      this.push(DonationTx.DEDUCT_QUOTA, { ...deduct, donationErrorCode: r.errorCode, deductedAmount: 0 });
      return;
    }
    this.push(DonationTx.DEDUCT_QUOTA, { ...deduct, deductedAmount: r.amount });
    const ok = r.errorCode === 0;
    this.push(DonationTx.ADD_QUOTA, {
      donationErrorCode: r.errorCode,
      addQuotaType: r.unit,
      addQuotaValue: r.quota,
      recipientId: r.recipientId,
      addedAmount: ok ? r.amount : 0,
    });
    if (!ok)
      this.push(DonationTx.ROLLBACK_QUOTA, {
        ...deduct,
        donationErrorCode: r.errorCode,
        deductedAmount: r.amount,
      });
  }

  /** Step 1, donation end, with the donation's overall errorCode (as in the HTTP response). */
  end(errorCode: number): void {
    this.push(DonationTx.END, { donationErrorCode: errorCode });
  }

  /** Writes the collected steps, in order, inside the donation's transaction. */
  write(trx: Knex.Transaction): Promise<void> {
    return insertCdrs(trx, this.rows);
  }
}

/** A rating or refund outcome for the charging CDR (the gateway's own layout, service ID 200). */
export interface ChargingCdr {
  kind: 'rating' | 'refund';
  operationId: string | null;
  msisdn: string | null;
  returnCode: number;
  /** Exact amount moved by this request (charged or credited); null when nothing moved. */
  amount: Money | null;
  currency: string | null;
  balanceAfter: Money | null;
  lookup: {
    providerId: string | null;
    applicationId: string | null;
    serviceId: string | null;
    originId: string | null;
    bundleId: string | null;
  };
}

/** One token operation for the token CDR (published token web service CDR, service ID 102). */
export interface TokenCdr {
  transaction: (typeof TokenTx)[keyof typeof TokenTx];
  status: TokenCdrStatus;
  /** SHA-256 hex of the token (the stored form); the CDR keeps only {@link tokenId} of it. */
  tokenHash: string;
  /** The token's subscriber (canonical digits); null when the token resolves to none (unknown). */
  msisdn: string | null;
}

/**
 * The id a token CDR names a token by: the first 16 hex digits of its SHA-256 (the stored
 * `token_hash` starts with it), so a CDR never holds the token, nor anything that opens the portal.
 */
export function tokenId(tokenHash: string): string {
  return tokenHash.slice(0, 16);
}

/**
 * Writes CDRs (CONTRACT §8) inside the transaction of the change they record, so a change
 * rolled back leaves none. One call per recorded step; the fields are those of `LAYOUTS` (cdr.layouts.ts).
 */
export class CdrRecorder {
  constructor(private readonly clock: Clock) {}

  /** A donation's trail of steps; call its steps in order, then `write(trx)`. */
  donationTrail(actor: CdrActor, donationId: string, recurring: boolean): DonationCdrTrail {
    return new DonationCdrTrail(this.clock.nowMs(), actor, donationId, recurring);
  }

  /** One CDR as written, stamped now. */
  private row(
    actor: CdrActor,
    type: CdrKind,
    transactionType: number,
    recordId: string,
    fields: CdrFields,
    actorCause: number | null = null,
  ): CdrInsert {
    return {
      tenantId: actor.tenantId,
      type,
      serviceId: SERVICE_ID[type],
      transactionType,
      createdAt: this.clock.nowMs(),
      actor: actorOf(actor),
      actorCause,
      recordId,
      fields,
    };
  }

  private one(
    db: Knex,
    actor: CdrActor,
    type: CdrKind,
    transactionType: number,
    recordId: string,
    fields: CdrFields,
    actorCause: number | null = null,
  ): Promise<void> {
    return insertCdrs(db, [this.row(actor, type, transactionType, recordId, fields, actorCause)]);
  }

  /**
   * A group CDR (published service ID 98): `transactionType` one of {@link GroupTx}; `member`
   * for the member transactions (3, 4, 5). Group quota type 0 share, 1 amount, empty when unset.
   */
  group(
    trx: Knex.Transaction,
    actor: CdrActor,
    transactionType: (typeof GroupTx)[keyof typeof GroupTx],
    group: GroupRow,
    member?: Pick<MemberRow, 'memberMsisdn' | 'quota'>,
  ): Promise<void> {
    return this.one(trx, actor, 'group', transactionType, group.id, {
      groupOwnerId: group.ownerMsisdn,
      groupName: group.name,
      groupQuotaType: group.quotaType === null ? null : GroupQuotaType[group.quotaType],
      groupMemberId: member?.memberMsisdn ?? null,
      groupMemberQuota: member?.quota ?? null,
    });
  }

  /**
   * A recurring donation CDR (published service ID 99): `transactionType` one of
   * {@link RecurringTx}; `actorCause` {@link ActorCause} for internal deletions.
   */
  recurring(
    trx: Knex.Transaction,
    actor: CdrActor,
    transactionType: (typeof RecurringTx)[keyof typeof RecurringTx],
    rec: RecurringRow,
    groupName: string | null,
    actorCause: number | null = null,
  ): Promise<void> {
    return this.one(
      trx,
      actor,
      'recurringDonation',
      transactionType,
      rec.id,
      {
        donorPlanId: rec.donorPlanId,
        groupId: rec.groupId,
        groupName,
        donorId: rec.donorMsisdn,
        planName: rec.planName ?? null,
      },
      actorCause,
    );
  }

  /**
   * A token CDR (create on issue, validate on introspection or a portal link opened, expire once
   * a validation finds the token past its expiry), inside `db` (the token write's transaction, or
   * the database). `actor` is the API client's username, or `portal` for a link opened.
   */
  token(db: Knex, actor: CdrActor, c: TokenCdr): Promise<void> {
    return insertCdrs(db, [this.tokenRow(actor, c)]);
  }

  /**
   * The token CDR of {@link token} as a row, stamped now, for a writer that inserts it later
   * (the buffered CDRs "validate", cdr.batch-writer.ts).
   */
  tokenRow(actor: CdrActor, c: TokenCdr): CdrInsert {
    return this.row(actor, 'token', c.transaction, tokenId(c.tokenHash), {
      msisdn: c.msisdn,
      status: c.status,
    });
  }

  /**
   * A charging CDR for one rating or refund outcome, inside `db` (the operation's transaction,
   * or the database itself when the outcome rolled that transaction back). Amounts are exact
   * decimals in `currency`.
   */
  charging(db: Knex, actor: CdrActor, c: ChargingCdr): Promise<void> {
    return this.one(
      db,
      actor,
      'charging',
      c.kind === 'rating' ? ChargingTx.RATING : ChargingTx.REFUND,
      c.operationId ?? '',
      {
        msisdn: c.msisdn,
        returnCode: c.returnCode,
        amount: c.amount?.toString() ?? null,
        currency: c.currency,
        balanceAfter: c.balanceAfter?.toString() ?? null,
        providerId: c.lookup.providerId,
        applicationId: c.lookup.applicationId,
        ratingServiceId: c.lookup.serviceId,
        originId: c.lookup.originId,
        bundleId: c.lookup.bundleId,
      },
    );
  }
}
