import type DataLoader from 'dataloader';
import { Knex } from 'knex';
import { requireMsisdn } from '../../lib/msisdn';
import type { KeysetPage } from '../../db/keyset';
import { lockingTransaction } from '../../db/knex';
import { DomainError } from '../../errors';
import { Clock } from '../../lib/clock';
import { newId } from '../../lib/ids';
import { keyedLoader } from '../../lib/keyed-loader';
import { Logger } from '../../logger';
import { CdrRecorder } from '../cdrs/cdr.recorder';
import { recordEvents } from '../events/outbox.store';
import { donationEvents } from '../events/sharing-events';
import { IdempotencyService } from '../idempotency/idempotency.service';
import { Subscriber, SubscriberService } from '../subscribers/subscriber.service';
import { SqsCode } from './error-codes';
import {
  DonationKey,
  addPeriodRecipients,
  allowancesPage,
  debitPlan,
  donationsPage,
  findAllowances,
  findDonation,
  findDonations,
  insertDonation,
  plansHeld,
  recipientsAlreadyInPeriod,
} from './donation.store';
import { GroupService } from './group.service';
import { SharingLanes } from './lanes';
import { PlanService } from './plan.service';
import { DonationRequest, RecipientQuota, SHARE_QUOTA_MAX, parseDonationRequest } from './sharing-request';
import { sqsError } from './sharing-errors';
import { AllowanceRow, DonationRow, RecurringRow, ShareQuotaType, SubscriberPlanRow } from './sharing.rows';

/** The caller's tenant and API client username (`actor`, named by the CDRs; absent: `sqs`). */
export interface DonationCaller {
  tenantId: number;
  actor?: string;
}

/**
 * What a `share` quota grants: `unitAmount × quota / 10^7`, rounded down (CONTRACT §5), in the
 * plan's unit; an `amount` quota is granted as is. Exact (BigInt) for any safe integers.
 */
export function grantFor(type: ShareQuotaType, unitAmount: number, quota: number): number {
  if (type === 'amount') return quota;
  return Number((BigInt(unitAmount) * BigInt(quota)) / BigInt(SHARE_QUOTA_MAX));
}

/** Overall errorCode of a donation (CONTRACT §5): 0 when any recipient received quota (or none was listed), else the first failure's. */
export function overallCode(codes: number[]): number {
  return codes.length === 0 || codes.includes(SqsCode.OK) ? SqsCode.OK : codes[0];
}

/** Who gives what to whom in a donation, once its form (recipients or group) is resolved. */
export interface DonationTarget {
  donorId: string;
  quotaType: ShareQuotaType;
  recipients: RecipientQuota[];
  /** The group of a group-form donation, else null. */
  groupId: string | null;
  /** That group's name (for the donation CDRs), else null. */
  groupName: string | null;
}

/** One recipient's outcome in a donation: `granted` in the plan's unit (0 unless errorCode is 0). */
export type RecipientResult = DonationRow['recipients'][number];

/**
 * Donations (CONTRACT §5): to recipients or to a group's members.
 * Each donation runs in one transaction of a constant number of statements whatever the number
 * of recipients and whatever the plan's history ({@link DonationService.execute}).
 * Lock order, the same in every donation and renewal: (1) the donor plan row, (2) the
 * recipients' subscriber rows, in MSISDN order, in one statement (MySQL/MariaDB, READ
 * COMMITTED; SQLite transactions exclude each other). Every later statement reads without
 * locking or writes rows already locked or new, so two donations never wait on each other in a
 * cycle; a deadlock or certification conflict that still happens reruns the transaction within
 * the request's deadline (`lockingTransaction`), and a lock wait past
 * `DB_LOCK_WAIT_TIMEOUT_SECONDS` is a 503. `remaining` never goes below zero and
 * `remaining + Σ granted` holds. Whole-request failures raise DomainErrors whose `httpStatus`
 * and `errorCode` the REST layer renders; per-recipient outcomes are data.
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
    /** Donation CDRs (service ID 96, CONTRACT §8). */
    private readonly cdrs: CdrRecorder = new CdrRecorder(clock),
  ) {}

  /**
   * `POST /sqs/api/donations` in either form (explicit recipients or a group; CONTRACT §5). Checks in order: body (400/412),
   * group 404/5 (group form), donor 404/7, plan 404/8 (absent or not the donor's), donor active
   * 422/14, `quotaType` = the plan's 412, shareable 422/16, `maxRecipients` 422/13, then each
   * recipient in request order: donor itself 3, unknown 12, not active 14, plan count 1, quota
   * unavailable 15. A single recipient refused with 1 makes the request 422/1 (CONTRACT §5). The
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
        (trx) => this.execute(trx, caller.tenantId, request, null, caller.actor),
      ),
    );
  }

  /**
   * Executes a parsed donation inside `trx` (a donation, or a renewal's recurring donation); see
   * {@link donate}. One function per step, in the order of the checks; statements: the plan
   * lock, the donor (the group and its members first in the group form), the request's
   * recipients already counted in the period, the recipients' rows (locked), their plans held
   * (2), then the debit and 4 inserts: 11 in all for any number of recipients.
   * The per-recipient results are known, in request order, once {@link outcomes} returns,
   * before anything is written. `actor` is the API client's username for the donation CDRs
   * (absent: `sqs`).
   */
  async execute(
    trx: Knex.Transaction,
    tenantId: number,
    request: DonationRequest,
    recurringDonationId: string | null,
    actor?: string,
  ): Promise<DonationRow> {
    const locked = await this.lockDonorPlan(trx, tenantId, request.donorPlanId);
    const target = await this.targetOf(trx, tenantId, request);
    const { donor, plan } = await this.donorOf(trx, tenantId, target.donorId, locked, request.donorPlanId);
    if (donor.status !== 'active')
      throw sqsError.unprocessable(
        SqsCode.SUBSCRIBER_NOT_FOUND,
        `donor ${target.donorId} is ${donor.status}`,
      );
    this.checkShareable(plan, target.quotaType, request.form === 'group' ? 'groupId' : 'quotaType');
    const counted = await this.checkMaxRecipients(trx, plan, target.recipients);
    const results = await this.outcomes(trx, tenantId, plan, target);
    const donationId = newId();
    const cdr = this.cdrs.donationTrail({ tenantId, actor }, donationId, recurringDonationId !== null);
    cdr.start({
      donorId: target.donorId,
      donorPlanId: plan.id,
      groupId: target.groupId,
      groupName: target.groupName,
    });
    cdr.donorPlan(plan);
    for (const r of results)
      cdr.recipient({
        recipientId: r.recipientId,
        quota: r.quota,
        amount: grantFor(target.quotaType, plan.definition.unitAmount, r.quota),
        unit: plan.definition.unitMeteringType,
        errorCode: r.errorCode,
      });
    if (request.form === 'recipients' && results.length === 1 && results[0].errorCode === SqsCode.GENERAL)
      throw sqsError.unprocessable(
        SqsCode.GENERAL,
        `recipient ${results[0].recipientId} already holds ${this.limits.maxPlansPerSubscriber} plans`,
      );
    const donation: DonationRow = {
      id: donationId,
      tenantId,
      donorMsisdn: target.donorId,
      donorPlanId: plan.id,
      quotaType: target.quotaType,
      groupId: target.groupId,
      recurringDonationId,
      period: plan.period,
      errorCode: overallCode(results.map((r) => r.errorCode)),
      createdAt: this.clock.nowMs(),
      recipients: results,
    };
    await this.record(trx, plan, donation, counted);
    await recordEvents(trx, this.clock, donationEvents(donation, plan, this.clock));
    cdr.end(donation.errorCode);
    await cdr.write(trx);
    return donation;
  }

  /**
   * Step 1, lock 1: the donor plan row, before any other read, so every later read sees the
   * donations committed before this one. Undefined when the tenant has no such plan.
   */
  private lockDonorPlan(
    trx: Knex.Transaction,
    tenantId: number,
    planId: number,
  ): Promise<SubscriberPlanRow | undefined> {
    return this.plans.subscriberPlan({ tenantId }, planId, { trx, forUpdate: true });
  }

  /**
   * Step 2: the donor, quota type and recipients of the request; in the group form the group
   * (404/5), the owner as donor (412 on `donorId` when another is named), the group's quota
   * type (412 on `quotaType`) and its members with their member quotas.
   */
  private async targetOf(
    trx: Knex.Transaction,
    tenantId: number,
    request: DonationRequest,
  ): Promise<DonationTarget> {
    if (request.form !== 'group')
      return {
        donorId: request.donorId,
        quotaType: request.quotaType,
        recipients: request.recipients,
        groupId: null,
        groupName: null,
      };
    const group = await this.groups.find({ tenantId }, request.groupId, { trx });
    if (!group) throw sqsError.groupNotFound(request.groupId);
    if (request.donorId !== null && request.donorId !== group.ownerMsisdn)
      throw sqsError.invalid('donorId', 'must be the group owner');
    const quotaType = request.quotaType ?? group.quotaType ?? 'share';
    if (group.quotaType !== null && quotaType !== group.quotaType)
      throw sqsError.invalid('quotaType', `must be the group's quota type ${group.quotaType}`);
    const members = await this.groups.membersOf([group.id], { trx });
    return {
      donorId: group.ownerMsisdn,
      quotaType,
      recipients: members.map((m) => ({ recipientId: m.memberMsisdn, quota: m.quota })),
      groupId: group.id,
      groupName: group.name,
    };
  }

  /**
   * Step 3, CONTRACT §5 `maxRecipients` (422/13): the plan's distinct recipients in its period
   * (its counter, read with the locked row) plus this request's recipients not yet among them
   * (one primary-key read) must not exceed the definition's `maxRecipients`. Returns the
   * request's recipients already counted, for {@link record}.
   */
  private async checkMaxRecipients(
    trx: Knex.Transaction,
    plan: SubscriberPlanRow,
    recipients: RecipientQuota[],
  ): Promise<Set<string>> {
    const msisdns = recipients.map((r) => r.recipientId);
    const counted = await recipientsAlreadyInPeriod(trx, plan.id, plan.period, msisdns);
    const distinct = plan.recipientsInPeriod + msisdns.filter((m) => !counted.has(m)).length;
    if (distinct > plan.definition.maxRecipients)
      throw sqsError.unprocessable(
        SqsCode.MAX_RECIPIENTS_EXCEEDED,
        `plan ${plan.id} may share with ${plan.definition.maxRecipients} distinct recipients per period`,
      );
    return counted;
  }

  /**
   * Step 4, lock 2: every recipient's outcome, in request order. Locks the recipients'
   * subscriber rows (MSISDN order; the donor's own row is not locked) and reads their plans held
   * in constant statements, then decides in memory with the plan row locked: donor itself 3,
   * unknown 12, not active 14, `MAX_PLANS_PER_SUBSCRIBER` reached 1, the quota not covered by
   * what earlier recipients left of `remaining` 15, else granted.
   */
  private async outcomes(
    trx: Knex.Transaction,
    tenantId: number,
    plan: SubscriberPlanRow,
    target: DonationTarget,
  ): Promise<RecipientResult[]> {
    const others = target.recipients.map((r) => r.recipientId).filter((m) => m !== target.donorId);
    const subscribers = await this.subscribers.findManyForUpdate(trx, tenantId, others);
    const held = await plansHeld(
      trx,
      tenantId,
      others.filter((m) => subscribers.has(m)),
    );
    let remaining = plan.remaining;
    return target.recipients.map((r): RecipientResult => {
      const granted = grantFor(target.quotaType, plan.definition.unitAmount, r.quota);
      const refused = (errorCode: number): RecipientResult => ({ ...r, granted: 0, errorCode });
      if (r.recipientId === target.donorId) return refused(SqsCode.OWNER_AS_MEMBER);
      const sub = subscribers.get(r.recipientId);
      if (!sub) return refused(SqsCode.RECIPIENT_NOT_FOUND);
      if (sub.status !== 'active') return refused(SqsCode.SUBSCRIBER_NOT_FOUND);
      const plans = held.get(r.recipientId)!;
      if (
        !plans.donorPlanIds.has(plan.id) &&
        plans.own + plans.donorPlanIds.size >= this.limits.maxPlansPerSubscriber
      )
        return refused(SqsCode.GENERAL);
      if (granted > remaining) return refused(SqsCode.QUOTA_UNAVAILABLE);
      remaining -= granted;
      return { ...r, granted, errorCode: SqsCode.OK };
    });
  }

  /**
   * Step 5: writes a decided donation: the debit of Σ granted with the new distinct recipients
   * counted (one UPDATE of the locked plan row), the donation, its recipients' results, the
   * allowances and the plan's new period recipients (one multi-row INSERT each).
   * `counted`: the request's recipients already in the period ({@link checkMaxRecipients}).
   * @throws Error if the locked plan row no longer covers the debit (cannot happen while the
   *   lock holds; a conflict on a cluster shows as a deadlock and reruns the transaction).
   */
  private async record(
    trx: Knex.Transaction,
    plan: SubscriberPlanRow,
    donation: DonationRow,
    counted: Set<string>,
  ): Promise<void> {
    const granted = donation.recipients.filter((r) => r.errorCode === SqsCode.OK);
    const total = granted.reduce((sum, r) => sum + r.granted, 0);
    const newcomers = granted.map((r) => r.recipientId).filter((m) => !counted.has(m));
    if (granted.length > 0 && !(await debitPlan(trx, plan.id, total, newcomers.length)))
      throw new Error(`plan ${plan.id} no longer covers ${total} under its lock`);
    await insertDonation(trx, donation, plan.definition.unitMeteringType);
    await addPeriodRecipients(trx, donation.tenantId, plan.id, plan.period, newcomers);
  }

  /**
   * The donor of a donation or recurring donation, checked in the order of CONTRACT §5: the donor
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

  /** A donation by id in the caller's tenant, or undefined. */
  async donation(caller: DonationCaller, id: string): Promise<DonationRow | undefined> {
    return findDonation(this.db, caller.tenantId, id);
  }

  /**
   * A DataLoader of the caller's tenant's donations by id (undefined for an id that names none):
   * the lookups of one tick are two statements ({@link findDonations}), so `nodes(ids:)` and
   * `_entities` with N donations read them at once. An id matches exactly as the service
   * assigned it. Build one per request (it caches what it read).
   */
  donationsLoader(caller: DonationCaller): DataLoader<string, DonationRow | undefined> {
    return keyedLoader(
      (ids) => findDonations(this.db, caller.tenantId, ids),
      (d) => d.id,
    );
  }

  /**
   * One page of a donor's donations, newest first (ties by id): `page.limit + 1` rows at most in
   * the paging direction's order past its keys, the extra one saying that more follow (a Relay
   * connection page, src/graphql/relay.ts). Every donation is reachable, whatever the history.
   * @throws BadUserInputError 412 on `donorId` when it is not an MSISDN.
   */
  donations(caller: DonationCaller, donorId: string, page: KeysetPage<DonationKey>): Promise<DonationRow[]> {
    return donationsPage(this.db, caller.tenantId, requireMsisdn(donorId, 'donorId'), page);
  }

  /**
   * One page of what a subscriber received, newest first, read like {@link donations}
   * (`page.limit + 1` rows at most).
   * @throws BadUserInputError 412 on `msisdn` when it is not an MSISDN.
   */
  allowances(caller: DonationCaller, msisdn: string, page: KeysetPage<number>): Promise<AllowanceRow[]> {
    return allowancesPage(this.db, caller.tenantId, requireMsisdn(msisdn, 'msisdn'), page);
  }

  /** The caller's tenant's allowances with these row ids, in one statement (any order; ids naming none left out). */
  allowancesByIds(caller: DonationCaller, ids: readonly number[]): Promise<AllowanceRow[]> {
    return findAllowances(this.db, caller.tenantId, ids);
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
    // Donation CDRs of the refused renewal donation (internal: actor sqs).
    const cdr = this.cdrs.donationTrail({ tenantId: plan.tenantId }, donation.id, true);
    cdr.start({ donorId: rec.donorMsisdn, donorPlanId: plan.id, groupId: rec.groupId, groupName: null });
    cdr.donorPlan(plan);
    cdr.end(donation.errorCode);
    await cdr.write(trx);
    await recordEvents(trx, this.clock, donationEvents(donation, plan, this.clock));
    return donation;
  }
}
