import { Knex } from 'knex';
import { lockingTransaction } from '../../db/knex';
import { DomainError } from '../../errors';
import { Clock } from '../../lib/clock';
import { newId } from '../../lib/ids';
import { Logger } from '../../logger';
import { recordEvents } from '../events/outbox.store';
import { donationEvents } from '../events/sharing-events';
import { IdempotencyService } from '../idempotency/idempotency.service';
import { Subscriber, SubscriberService } from '../subscribers/subscriber.service';
import { SqsCode, SqsCodeValue } from './error-codes';
import {
  debitPlan,
  findDonations,
  insertDonation,
  listAllowances,
  lockSubscribers,
  plansHeld,
  recipientsInPeriod,
} from './donation.store';
import { GroupService } from './group.service';
import { SharingLanes } from './lanes';
import { PlanService } from './plan.service';
import {
  DonationRequest,
  RecipientQuota,
  SHARE_QUOTA_MAX,
  parseDonationRequest,
  parseMsisdnParam,
} from './sharing-request';
import { sqsError } from './sharing-errors';
import { AllowanceRow, DonationRow, RecurringRow, ShareQuotaType, SubscriberPlanRow } from './sharing.rows';

/** The caller's tenant. */
export interface DonationCaller {
  tenantId: number;
}

/**
 * What a `share` quota grants: `unitAmount × quota / 10^7`, rounded down (CONTRACT §5), in the
 * plan's unit; an `amount` quota is granted as is. Exact (BigInt) for any safe integers.
 */
export function grantFor(type: ShareQuotaType, unitAmount: number, quota: number): number {
  if (type === 'amount') return quota;
  return Number((BigInt(unitAmount) * BigInt(quota)) / BigInt(SHARE_QUOTA_MAX));
}

/** Overall errorCode of a donation (spec 2.7): 0 when any recipient received quota (or none was listed), else the first failure's. */
export function overallCode(codes: number[]): number {
  return codes.length === 0 || codes.includes(SqsCode.OK) ? SqsCode.OK : codes[0];
}

/**
 * Donations (CONTRACT §5, spec 2.6, 2.7, 4.4, 4.5, 4.8): to recipients or to a group's members.
 * Each donation runs in one transaction; it locks the donor plan row and recipients' rows
 * (MySQL, READ COMMITTED; SQLite transactions exclude each other) and takes quota with a
 * conditional update, so `remaining` never goes below zero and `remaining + Σ granted` holds.
 * Whole-request failures raise DomainErrors whose `httpStatus` and `errorCode` the REST layer
 * renders; per-recipient outcomes are data.
 */
export class DonationService {
  constructor(
    private readonly db: Knex,
    private readonly clock: Clock,
    private readonly limits: { maxPlansPerSubscriber: number },
    private readonly logger: Logger,
    private readonly idempotency: IdempotencyService,
    private readonly lanes: SharingLanes,
    private readonly subscribers: SubscriberService,
    private readonly plans: PlanService,
    private readonly groups: GroupService,
  ) {}

  /**
   * `POST /sqs/api/donations` in either form (spec 4.4/4.5). Checks in order: body (400/412),
   * group 404/5 (group form), donor 404/7, plan 404/8 (absent or not the donor's), donor active
   * 422/14, `quotaType` = the plan's 412, shareable 422/16, `maxRecipients` 422/13, then each
   * recipient in request order: donor itself 3, unknown 12, not active 14, plan count 1, quota
   * unavailable 15. A single recipient refused with 1 makes the request 422/1 (spec §8). The
   * donation is recorded with every recipient's result. With `idempotencyKey`, a repeat of the
   * same body returns the recorded donation (see {@link IdempotencyService.run}).
   * @throws BadUserInputError, NotFoundError, UnprocessableError as above; ConflictError and
   *   UnprocessableError (errorCode 1) for a key in flight or reused.
   */
  donate(caller: DonationCaller, input: unknown, idempotencyKey?: string | null): Promise<DonationRow> {
    const request = parseDonationRequest(input);
    return this.lanes.oneAtATime(SharingLanes.plan(caller.tenantId, request.donorPlanId), () =>
      this.idempotency.run(
        { tenantId: caller.tenantId, key: idempotencyKey, operation: 'shareQuota', request: input },
        (scope) => lockingTransaction(this.db, scope),
        (trx) => this.execute(trx, caller.tenantId, request, null),
      ),
    );
  }

  /** Executes a parsed donation inside `trx` (a donation, or a renewal's recurring donation); see {@link donate}. */
  async execute(
    trx: Knex.Transaction,
    tenantId: number,
    request: DonationRequest,
    recurringDonationId: string | null,
  ): Promise<DonationRow> {
    // The plan row is locked first, before any plain read, so every later read sees the
    // donations committed before this one.
    const locked = await this.plans.subscriberPlan({ tenantId }, request.donorPlanId, {
      trx,
      forUpdate: true,
    });
    let donorId: string;
    let quotaType: ShareQuotaType;
    let recipients: RecipientQuota[];
    let groupId: string | null = null;
    if (request.form === 'group') {
      const group = await this.groups.find({ tenantId }, request.groupId, { trx });
      if (!group) throw sqsError.groupNotFound(request.groupId);
      if (request.donorId !== null && request.donorId !== group.ownerMsisdn)
        throw sqsError.invalid('donorId', 'must be the group owner');
      donorId = group.ownerMsisdn;
      groupId = group.id;
      quotaType = request.quotaType ?? group.quotaType ?? 'share';
      if (group.quotaType !== null && quotaType !== group.quotaType)
        throw sqsError.invalid('quotaType', `must be the group's quota type ${group.quotaType}`);
      recipients = (await this.groups.membersOf([group.id], { trx })).map((m) => ({
        recipientId: m.memberMsisdn,
        quota: m.quota,
      }));
    } else {
      ({ donorId, quotaType, recipients } = request);
    }
    const { donor, plan } = await this.donorOf(trx, tenantId, donorId, locked, request.donorPlanId);
    if (donor.status !== 'active')
      throw sqsError.unprocessable(SqsCode.SUBSCRIBER_NOT_FOUND, `donor ${donorId} is ${donor.status}`);
    this.checkShareable(plan, quotaType, request.form === 'group' ? 'groupId' : 'quotaType');
    const seen = await recipientsInPeriod(trx, plan.id, plan.period);
    for (const r of recipients) seen.add(r.recipientId);
    if (seen.size > plan.definition.maxRecipients)
      throw sqsError.unprocessable(
        SqsCode.MAX_RECIPIENTS_EXCEEDED,
        `plan ${plan.id} may share with ${plan.definition.maxRecipients} distinct recipients per period`,
      );
    await lockSubscribers(
      trx,
      tenantId,
      recipients.map((r) => r.recipientId),
    );
    const results: DonationRow['recipients'] = [];
    for (const r of recipients) {
      const granted = grantFor(quotaType, plan.definition.unitAmount, r.quota);
      const errorCode = await this.grant(trx, tenantId, plan, donorId, r.recipientId, granted);
      results.push({
        recipientId: r.recipientId,
        quota: r.quota,
        granted: errorCode === SqsCode.OK ? granted : 0,
        errorCode,
      });
    }
    if (request.form === 'recipients' && results.length === 1 && results[0].errorCode === SqsCode.GENERAL)
      throw sqsError.unprocessable(
        SqsCode.GENERAL,
        `recipient ${results[0].recipientId} already holds ${this.limits.maxPlansPerSubscriber} plans`,
      );
    const donation: DonationRow = {
      id: newId(),
      tenantId,
      donorMsisdn: donorId,
      donorPlanId: plan.id,
      quotaType,
      groupId,
      recurringDonationId,
      period: plan.period,
      errorCode: overallCode(results.map((r) => r.errorCode)),
      createdAt: this.clock.nowMs(),
      recipients: results,
    };
    await insertDonation(trx, donation, plan.definition.unitMeteringType);
    await recordEvents(trx, this.clock, donationEvents(donation, plan, this.clock));
    return donation;
  }

  /**
   * The donor of a donation or recurring donation, checked in the order of spec 4.8: the donor
   * (404/7), then its plan (404/8 when absent or another subscriber's). Returns both.
   */
  async donorOf(
    trx: Knex.Transaction,
    tenantId: number,
    donorId: string,
    plan: SubscriberPlanRow | undefined,
    donorPlanId: number,
  ): Promise<{ donor: Subscriber; plan: SubscriberPlanRow }> {
    const donor = await this.subscribers.find(tenantId, donorId, { trx });
    if (!donor) throw sqsError.notFound(SqsCode.DONOR_NOT_FOUND, `donor ${donorId} not found`);
    if (!plan || plan.msisdn !== donorId)
      throw sqsError.notFound(SqsCode.PLAN_NOT_FOUND, `plan ${donorPlanId} of donor ${donorId} not found`);
    return { donor, plan };
  }

  /** `quotaType` must be the plan's (412 on `field`); the plan must be shareable (422/16). */
  checkShareable(plan: SubscriberPlanRow, quotaType: ShareQuotaType, field: string): void {
    if (quotaType !== plan.definition.shareQuotaType)
      throw sqsError.invalid(
        field,
        `quota type ${quotaType} is not the plan's ${plan.definition.shareQuotaType}`,
      );
    if (!plan.definition.shareable)
      throw sqsError.unprocessable(SqsCode.NOT_SHAREABLE, `plan ${plan.id} is not shareable`);
  }

  /** One recipient's outcome; on 0 the quota has been taken from the plan. */
  private async grant(
    trx: Knex.Transaction,
    tenantId: number,
    plan: SubscriberPlanRow,
    donorId: string,
    recipientId: string,
    granted: number,
  ): Promise<SqsCodeValue> {
    if (recipientId === donorId) return SqsCode.OWNER_AS_MEMBER;
    const sub = await this.subscribers.find(tenantId, recipientId, { trx });
    if (!sub) return SqsCode.RECIPIENT_NOT_FOUND;
    if (sub.status !== 'active') return SqsCode.SUBSCRIBER_NOT_FOUND;
    const held = await plansHeld(trx, tenantId, recipientId);
    if (
      !held.donorPlanIds.has(plan.id) &&
      held.own + held.donorPlanIds.size >= this.limits.maxPlansPerSubscriber
    )
      return SqsCode.GENERAL;
    if (!(await debitPlan(trx, plan.id, granted))) return SqsCode.QUOTA_UNAVAILABLE;
    return SqsCode.OK;
  }

  /** A donation by id, or undefined. */
  async donation(caller: DonationCaller, id: string): Promise<DonationRow | undefined> {
    return (await findDonations(this.db, caller.tenantId, { id }, 1))[0];
  }

  /** A donor's donations, newest first, at most `first` (1-500). */
  donations(caller: DonationCaller, donorId: string, first: number): Promise<DonationRow[]> {
    if (!Number.isInteger(first) || first < 1 || first > 500)
      throw sqsError.invalid('first', 'must be 1-500');
    return findDonations(
      this.db,
      caller.tenantId,
      { donorMsisdn: parseMsisdnParam(donorId, 'donorId') },
      first,
    );
  }

  /** What a subscriber received, newest first (at most 500). */
  allowances(caller: DonationCaller, msisdn: string): Promise<AllowanceRow[]> {
    return listAllowances(this.db, caller.tenantId, parseMsisdnParam(msisdn, 'msisdn'));
  }

  /** Records a recurring donation refused as a whole at renewal: a donation with the refusal's errorCode and no recipients. */
  async recordRefusal(
    trx: Knex.Transaction,
    plan: SubscriberPlanRow,
    rec: RecurringRow,
    err: DomainError,
  ): Promise<DonationRow> {
    const code = err.extensions.errorCode;
    this.logger.warn(
      { planId: plan.id, recurringDonationId: rec.id, reason: err.message },
      'recurring donation refused at renewal',
    );
    const donation: DonationRow = {
      id: newId(),
      tenantId: plan.tenantId,
      donorMsisdn: rec.donorMsisdn,
      donorPlanId: plan.id,
      quotaType: rec.quotaType,
      groupId: rec.groupId,
      recurringDonationId: rec.id,
      period: plan.period,
      errorCode: typeof code === 'number' ? code : SqsCode.GENERAL,
      createdAt: this.clock.nowMs(),
      recipients: [],
    };
    await insertDonation(trx, donation, plan.definition.unitMeteringType);
    await recordEvents(trx, this.clock, donationEvents(donation, plan, this.clock));
    return donation;
  }
}
