import DataLoader from 'dataloader';
import { Knex } from 'knex';
import { isUniqueViolation, lockingTransaction, retryingTransaction } from '../../db/knex';
import {
  BadUserInputError,
  ConflictError,
  DomainError,
  NotFoundError,
  UnprocessableError,
  domainErrorOf,
  invalidField,
} from '../../errors';
import { Clock } from '../../lib/clock';
import { newId } from '../../lib/ids';
import { MSISDN_RULE, normalizeMsisdn } from '../../lib/msisdn';
import { Logger } from '../../logger';
import { IdempotencyService } from '../idempotency/idempotency.service';
import { Subscriber, findSubscriber } from '../subscribers/subscriber.store';
import { SqsCode, SqsCodeValue } from './error-codes';
import { GroupService, checkPage } from './group.service';
import { SharingLanes } from './lanes';
import {
  DonationRequest,
  RecipientQuota,
  SHARE_QUOTA_MAX,
  parseDonationRequest,
  parseGroupRequest,
  parseMsisdnParam,
} from './sharing-request';
import {
  AllowanceRow,
  DonationRow,
  GroupRow,
  MemberRow,
  PlanDefinitionRow,
  RecurringRow,
  ShareQuotaType,
  SubscriberPlanRow,
  debitPlan,
  deleteGroup,
  deleteMember,
  deleteRecurring,
  findDonations,
  findGroup,
  findPlanDefinition,
  findRecurring,
  findSubscriberPlan,
  insertDonation,
  insertGroup,
  insertRecurring,
  listAllowances,
  listGroups,
  listPlanDefinitions,
  listRecurring,
  listSubscriberPlans,
  lockSubscribers,
  membersOf,
  plansHeld,
  recipientsInPeriod,
  recurringByPlanIds,
  renewPlan,
  subscriberPlanTenant,
  upsertPlanDefinition,
  upsertSubscriberPlan,
} from './sharing.store';

/** The caller's tenant. */
export interface SharingCaller {
  tenantId: number;
}

/** Limits of CONTRACT §5/§8 (MAX_GROUP_SIZE, MAX_PLANS_PER_SUBSCRIBER). */
export interface SharingLimits {
  maxGroupSize: number;
  maxPlansPerSubscriber: number;
}

/** Batched reads of one request (members by group id, recurring donation by plan id). */
export interface SharingLoaders {
  members: DataLoader<string, MemberRow[]>;
  recurringByPlan: DataLoader<number, RecurringRow | null>;
}

/** Groups per page of `GET /sqs/api/groups` (CONTRACT §5). */
export const GROUP_PAGE_SIZE = 100;

/** Recurring donations per page of `GET /sqs/api/recurringDonations` (published). */
export const RECURRING_PAGE_SIZE = 100;

/** The outcome of a plan renewal: the renewed plan and the recurring donation it executed, if any. */
export interface RenewalOutcome {
  plan: SubscriberPlanRow;
  donation: DonationRow | null;
}

const sqsError = {
  notFound: (code: SqsCodeValue, message: string) => new NotFoundError(message, { errorCode: code }),
  conflict: (code: SqsCodeValue, message: string) => new ConflictError(message, { errorCode: code }),
  unprocessable: (code: SqsCodeValue, message: string) =>
    new UnprocessableError(message, { errorCode: code }),
  invalid: invalidField,
  groupNotFound: (id: string) =>
    new NotFoundError(`group ${id} not found`, { errorCode: SqsCode.GROUP_NOT_FOUND }),
  recurringNotFound: (id: string) =>
    new NotFoundError(`recurring donation ${id} not found`, { errorCode: SqsCode.GENERAL }),
};

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
 * Quota sharing (CONTRACT §5, spec 2.6, 2.7, 4.4, 4.5, 4.8, 7.2): donations to recipients or to
 * a group's members, groups and members, recurring donations, plan renewal, plan provisioning.
 * Each write runs in one transaction; donations lock the donor plan row and recipients' rows
 * (MySQL, READ COMMITTED; SQLite transactions exclude each other) and take quota with a
 * conditional update, so `remaining` never goes below zero and `remaining + Σ granted` holds.
 * Whole-request failures raise DomainErrors whose `httpStatus` and `errorCode` the REST layer
 * renders; per-recipient outcomes are data.
 */
export class SharingService {
  /** Groups and members; shares this service's lanes. */
  readonly groupService: GroupService;

  constructor(
    private readonly db: Knex,
    private readonly clock: Clock,
    private readonly limits: SharingLimits,
    private readonly logger: Logger,
    private readonly idempotency: IdempotencyService,
    /** One write per donor plan or group at a time holds a connection. */
    private readonly lanes = new SharingLanes(),
  ) {
    this.groupService = new GroupService(db, clock, limits, idempotency, lanes);
  }

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
  donate(caller: SharingCaller, input: unknown, idempotencyKey?: string | null): Promise<DonationRow> {
    const request = parseDonationRequest(input);
    return this.lanes.oneAtATime(SharingLanes.plan(caller.tenantId, request.donorPlanId), () =>
      this.idempotency.run(
        { tenantId: caller.tenantId, key: idempotencyKey, operation: 'shareQuota', request: input },
        (scope) => lockingTransaction(this.db, scope),
        (trx) => this.execute(trx, caller.tenantId, request, null),
      ),
    );
  }

  /** Executes a parsed donation inside `trx`; see {@link donate}. */
  private async execute(
    trx: Knex.Transaction,
    tenantId: number,
    request: DonationRequest,
    recurringDonationId: string | null,
  ): Promise<DonationRow> {
    // The plan row is locked first, before any plain read, so every later read sees the
    // donations committed before this one.
    const locked = await findSubscriberPlan(trx, tenantId, request.donorPlanId, true);
    let donorId: string;
    let quotaType: ShareQuotaType;
    let recipients: RecipientQuota[];
    let groupId: string | null = null;
    if (request.form === 'group') {
      const group = await findGroup(trx, tenantId, request.groupId);
      if (!group) throw sqsError.groupNotFound(request.groupId);
      if (request.donorId !== null && request.donorId !== group.ownerMsisdn)
        throw sqsError.invalid('donorId', 'must be the group owner');
      donorId = group.ownerMsisdn;
      groupId = group.id;
      quotaType = request.quotaType ?? group.quotaType ?? 'share';
      if (group.quotaType !== null && quotaType !== group.quotaType)
        throw sqsError.invalid('quotaType', `must be the group's quota type ${group.quotaType}`);
      recipients = (await membersOf(trx, [group.id])).map((m) => ({
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
    return donation;
  }

  /**
   * The donor of a donation or recurring donation, checked in the order of spec 4.8: the donor
   * (404/7), then its plan (404/8 when absent or another subscriber's). Returns both.
   */
  private async donorOf(
    trx: Knex.Transaction,
    tenantId: number,
    donorId: string,
    plan: SubscriberPlanRow | undefined,
    donorPlanId: number,
  ): Promise<{ donor: Subscriber; plan: SubscriberPlanRow }> {
    const donor = await findSubscriber(trx, tenantId, donorId);
    if (!donor) throw sqsError.notFound(SqsCode.DONOR_NOT_FOUND, `donor ${donorId} not found`);
    if (!plan || plan.msisdn !== donorId)
      throw sqsError.notFound(SqsCode.PLAN_NOT_FOUND, `plan ${donorPlanId} of donor ${donorId} not found`);
    return { donor, plan };
  }

  /** `quotaType` must be the plan's (412 on `field`); the plan must be shareable (422/16). */
  private checkShareable(plan: SubscriberPlanRow, quotaType: ShareQuotaType, field: string): void {
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
    const sub = await findSubscriber(trx, tenantId, recipientId);
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

  /**
   * `POST /sqs/api/groups`: creates a group owned by an existing subscriber (unknown owner
   * 422/14); owner+name taken 409/2. `idempotencyKey` as for {@link donate}.
   * @throws BadUserInputError (400/412), UnprocessableError, ConflictError.
   */
  createGroup(caller: SharingCaller, input: unknown, idempotencyKey?: string | null): Promise<GroupRow> {
    const g = parseGroupRequest(input);
    return this.idempotency.run(
      { tenantId: caller.tenantId, key: idempotencyKey, operation: 'createGroup', request: input },
      (scope) => retryingTransaction(this.db, scope),
      async (trx) => {
        if (!(await findSubscriber(trx, caller.tenantId, g.ownerId)))
          throw sqsError.unprocessable(
            SqsCode.SUBSCRIBER_NOT_FOUND,
            `owner ${g.ownerId} is not a subscriber`,
          );
        const now = this.clock.nowMs();
        const row: GroupRow = {
          id: newId(),
          tenantId: caller.tenantId,
          ownerMsisdn: g.ownerId,
          name: g.name,
          quotaType: g.quotaType,
          createdAt: now,
          updatedAt: now,
        };
        try {
          await insertGroup(trx, row);
        } catch (err) {
          if (isUniqueViolation(err))
            throw sqsError.conflict(
              SqsCode.GROUP_NOT_UNIQUE,
              `owner ${g.ownerId} already has a group named ${g.name}`,
            );
          throw err;
        }
        return row;
      },
    );
  }

  /**
   * A group by id.
   * @throws NotFoundError (errorCode 5).
   */
  async group(caller: SharingCaller, id: string): Promise<GroupRow> {
    const g = await findGroup(this.db, caller.tenantId, id);
    if (!g) throw sqsError.groupNotFound(id);
    return g;
  }

  /**
   * Groups owned by `ownerId` and/or having `memberId` as member, oldest first, page `page`
   * (0-based) of {@link GROUP_PAGE_SIZE}.
   * @throws BadUserInputError 412 when neither is given, or one is not an MSISDN or page is invalid.
   */
  async groups(
    caller: SharingCaller,
    by: { ownerId: string | null; memberId: string | null },
    page: number,
  ): Promise<{ rows: GroupRow[]; total: number; page: number; size: number }> {
    if (by.ownerId === null && by.memberId === null)
      throw sqsError.invalid('ownerId', 'give ownerId or memberId');
    checkPage(page);
    const ownerMsisdn = by.ownerId === null ? undefined : parseMsisdnParam(by.ownerId, 'ownerId');
    const memberMsisdn = by.memberId === null ? undefined : parseMsisdnParam(by.memberId, 'memberId');
    const r = await listGroups(
      this.db,
      caller.tenantId,
      { ownerMsisdn, memberMsisdn },
      page * GROUP_PAGE_SIZE,
      GROUP_PAGE_SIZE,
    );
    return { ...r, page, size: GROUP_PAGE_SIZE };
  }

  /**
   * Deletes a group with its members and its recurring donation; quota already shared stays.
   * @throws NotFoundError (errorCode 5).
   */
  async deleteGroup(caller: SharingCaller, id: string): Promise<void> {
    await retryingTransaction(this.db, async (trx) => {
      if (!(await findGroup(trx, caller.tenantId, id, true))) throw sqsError.groupNotFound(id);
      await deleteGroup(trx, id);
    });
  }

  /**
   * `POST /sqs/api/groups/<id>/members`: group 404/5; quota range by the group's quota type 412;
   * the owner 422/3; not a subscriber 422/12; already a member 409/1; group full
   * (MAX_GROUP_SIZE) 422/6; share quotas over 10^7 in total 422/4. The group row is locked, so
   * simultaneous additions cannot pass either limit. `idempotencyKey` as for {@link donate}.
   */
  addMember(
    caller: SharingCaller,
    groupId: string,
    input: unknown,
    idempotencyKey?: string | null,
  ): Promise<MemberRow> {
    const opts = { mode: 'add' as const, operation: 'addGroupMember', request: { groupId, body: input } };
    return this.groupService.putMember(caller, groupId, input, opts, idempotencyKey);
  }

  /**
   * Removes a member: group 404/5, member not in the group 404/14.
   */
  async removeMember(caller: SharingCaller, groupId: string, memberId: string): Promise<void> {
    const m = parseMsisdnParam(memberId, 'memberId');
    await retryingTransaction(this.db, async (trx) => {
      if (!(await findGroup(trx, caller.tenantId, groupId, true))) throw sqsError.groupNotFound(groupId);
      if (!(await deleteMember(trx, groupId, m, this.clock.nowMs())))
        throw sqsError.notFound(SqsCode.SUBSCRIBER_NOT_FOUND, `${m} is not a member of group ${groupId}`);
    });
  }

  /**
   * `POST /sqs/api/recurringDonations` (either form): body 400/412, donor 404/7, plan 404/8,
   * quotaType 412, shareable 422/16, recurring 422/9, group 404/5 (and owned by the donor,
   * else 412 on groupId), more recipients than `maxRecipients` 422/13, one per plan 409/11.
   * `idempotencyKey` as for {@link donate}.
   */
  createRecurring(
    caller: SharingCaller,
    input: unknown,
    idempotencyKey?: string | null,
  ): Promise<RecurringRow> {
    const r = parseDonationRequest(input, true);
    return this.idempotency.run(
      {
        tenantId: caller.tenantId,
        key: idempotencyKey,
        operation: 'createRecurringDonation',
        request: input,
      },
      (scope) => lockingTransaction(this.db, scope),
      async (trx) => {
        const locked = await findSubscriberPlan(trx, caller.tenantId, r.donorPlanId, true);
        // Published group form `{donorPlanId, groupId}`: the donor is the group owner.
        const group = r.form === 'group' ? await findGroup(trx, caller.tenantId, r.groupId) : undefined;
        if (r.form === 'group' && r.donorId === null && !group) throw sqsError.groupNotFound(r.groupId);
        const donorId = r.donorId ?? group!.ownerMsisdn;
        const { plan } = await this.donorOf(trx, caller.tenantId, donorId, locked, r.donorPlanId);
        let quotaType = plan.definition.shareQuotaType;
        if (r.form === 'group') {
          if (!group) throw sqsError.groupNotFound(r.groupId);
          if (group.ownerMsisdn !== donorId)
            throw sqsError.invalid('groupId', 'must be a group the donor owns');
          quotaType = r.quotaType ?? group.quotaType ?? quotaType;
        } else {
          quotaType = r.quotaType;
        }
        this.checkShareable(plan, quotaType, 'quotaType');
        if (!plan.definition.recurring)
          throw sqsError.unprocessable(SqsCode.PLAN_NOT_RECURRING, `plan ${plan.id} is not a recurring plan`);
        if (r.form === 'recipients' && r.recipients.length > plan.definition.maxRecipients)
          throw sqsError.unprocessable(
            SqsCode.MAX_RECIPIENTS_EXCEEDED,
            `plan ${plan.id} may share with ${plan.definition.maxRecipients} recipients`,
          );
        const row: RecurringRow = {
          id: newId(),
          tenantId: caller.tenantId,
          donorMsisdn: donorId,
          donorPlanId: plan.id,
          quotaType,
          groupId: r.form === 'group' ? r.groupId : null,
          recipients: r.form === 'recipients' ? r.recipients : null,
          createdAt: this.clock.nowMs(),
          planName: plan.definition.name,
        };
        const exists = () =>
          sqsError.conflict(SqsCode.RECURRING_EXISTS, `plan ${plan.id} already has a recurring donation`);
        if (await findRecurring(trx, caller.tenantId, { donorPlanId: plan.id })) throw exists();
        try {
          await insertRecurring(trx, row);
        } catch (err) {
          if (isUniqueViolation(err)) throw exists();
          throw err;
        }
        return row;
      },
    );
  }

  /**
   * A recurring donation by id.
   * @throws NotFoundError (errorCode 1).
   */
  async recurring(caller: SharingCaller, id: string): Promise<RecurringRow> {
    const r = await findRecurring(this.db, caller.tenantId, { id });
    if (!r) throw sqsError.recurringNotFound(id);
    return r;
  }

  /**
   * `GET /sqs/api/recurringDonations?donorId=&groupId=`: a donor's and/or a group's recurring
   * donations, oldest first, page `page` (0-based) of {@link RECURRING_PAGE_SIZE}.
   * @throws BadUserInputError 412 when neither is given (on `donorId`), `donorId` is not an
   *   MSISDN, or `page` is not 0-1000000.
   */
  async recurringDonations(
    caller: SharingCaller,
    by: { donorId: string | null; groupId: string | null },
    page: number,
  ): Promise<{ rows: RecurringRow[]; total: number; page: number; size: number }> {
    if (by.donorId === null && by.groupId === null)
      throw sqsError.invalid('donorId', 'give donorId or groupId');
    checkPage(page);
    const donorMsisdn = by.donorId === null ? undefined : parseMsisdnParam(by.donorId, 'donorId');
    const r = await listRecurring(
      this.db,
      caller.tenantId,
      { donorMsisdn, groupId: by.groupId ?? undefined },
      page * RECURRING_PAGE_SIZE,
      RECURRING_PAGE_SIZE,
    );
    return { ...r, page, size: RECURRING_PAGE_SIZE };
  }

  /** Per-request DataLoaders (CONTRACT §7): group members and plans' recurring donations. */
  loaders(caller: SharingCaller): SharingLoaders {
    return {
      members: new DataLoader<string, MemberRow[]>(async (ids) => {
        const rows = await membersOf(this.db, ids);
        return ids.map((id) => rows.filter((m) => m.groupId === id));
      }),
      recurringByPlan: new DataLoader<number, RecurringRow | null>(async (ids) => {
        const rows = await recurringByPlanIds(this.db, caller.tenantId, ids);
        return ids.map((id) => rows.find((r) => r.donorPlanId === id) ?? null);
      }),
    };
  }

  /**
   * Cancels a recurring donation.
   * @throws NotFoundError (errorCode 1).
   */
  async deleteRecurring(caller: SharingCaller, id: string): Promise<void> {
    if (!(await deleteRecurring(this.db, caller.tenantId, id))) throw sqsError.recurringNotFound(id);
  }

  /**
   * Renews a subscriber plan (CONTRACT §5): `remaining` back to `unitAmount`, a new period (so
   * `maxRecipients` counts afresh), then the plan's recurring donation, if any, runs with the
   * quotas in force now (a group's current members). All in one transaction; when the donation
   * as a whole is refused (e.g. the plan is no longer shareable) the renewal still happens and
   * the refusal is recorded as a donation with that errorCode and no recipients.
   * @throws NotFoundError (errorCode 8) when the plan is not the tenant's.
   */
  renewPlan(caller: SharingCaller, planId: number): Promise<RenewalOutcome> {
    if (!Number.isSafeInteger(planId) || planId <= 0)
      throw sqsError.invalid('planId', 'must be a positive integer');
    return lockingTransaction(this.db, async (trx) => {
      const before = await findSubscriberPlan(trx, caller.tenantId, planId, true);
      if (!before) throw sqsError.notFound(SqsCode.PLAN_NOT_FOUND, `plan ${planId} not found`);
      await renewPlan(trx, planId, before.definition.unitAmount, this.clock.nowMs());
      const plan = (await findSubscriberPlan(trx, caller.tenantId, planId))!;
      const rec = await findRecurring(trx, caller.tenantId, { donorPlanId: planId });
      if (!rec) return { plan, donation: null };
      const request: DonationRequest = rec.groupId
        ? {
            form: 'group',
            groupId: rec.groupId,
            donorPlanId: planId,
            donorId: rec.donorMsisdn,
            quotaType: rec.quotaType,
          }
        : {
            form: 'recipients',
            donorId: rec.donorMsisdn,
            donorPlanId: planId,
            quotaType: rec.quotaType,
            recipients: rec.recipients ?? [],
          };
      let donation: DonationRow;
      try {
        donation = await trx.transaction((sp) => this.execute(sp, caller.tenantId, request, rec.id));
      } catch (err) {
        const refused = domainErrorOf(err);
        if (!refused) throw err;
        donation = await this.recordRefusal(trx, plan, rec, refused);
      }
      return { plan: (await findSubscriberPlan(trx, caller.tenantId, planId))!, donation };
    });
  }

  private async recordRefusal(
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
    return donation;
  }

  /** The tenant owning a plan id, for the CLI (`plan renew <planId>`), or undefined. */
  planTenant(planId: number): Promise<number | undefined> {
    return subscriberPlanTenant(this.db, planId);
  }

  /** The tenant's plan definitions. */
  planDefinitions(caller: SharingCaller): Promise<PlanDefinitionRow[]> {
    return listPlanDefinitions(this.db, caller.tenantId);
  }

  /** A subscriber's plans (MSISDN with or without `+`; malformed gives 412 on `msisdn`). */
  subscriberPlans(caller: SharingCaller, msisdn: string): Promise<SubscriberPlanRow[]> {
    return listSubscriberPlans(this.db, caller.tenantId, parseMsisdnParam(msisdn, 'msisdn'));
  }

  /** A plan by id, or undefined. */
  subscriberPlan(caller: SharingCaller, id: number): Promise<SubscriberPlanRow | undefined> {
    return findSubscriberPlan(this.db, caller.tenantId, id);
  }

  /** A donation by id, or undefined. */
  async donation(caller: SharingCaller, id: string): Promise<DonationRow | undefined> {
    return (await findDonations(this.db, caller.tenantId, { id }, 1))[0];
  }

  /** A donor's donations, newest first, at most `first` (1-500). */
  donations(caller: SharingCaller, donorId: string, first: number): Promise<DonationRow[]> {
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
  allowances(caller: SharingCaller, msisdn: string): Promise<AllowanceRow[]> {
    return listAllowances(this.db, caller.tenantId, parseMsisdnParam(msisdn, 'msisdn'));
  }

  /**
   * ADMIN: creates or updates a plan definition by name. `unitAmount` is a non-negative safe
   * integer in the metering unit; `maxRecipients` 1-1000 (default 5).
   * @throws BadUserInputError naming each offending field.
   */
  async upsertPlanDefinition(caller: SharingCaller, input: PlanDefinitionInput): Promise<PlanDefinitionRow> {
    const d = validatePlanDefinition(input);
    return (await upsertPlanDefinition(this.db, { tenantId: caller.tenantId, ...d })).row;
  }

  /**
   * ADMIN: creates or updates a subscriber plan with its id: the subscriber and plan definition
   * must exist in the tenant; an id used by another tenant is a conflict.
   * @throws BadUserInputError, NotFoundError, ConflictError.
   */
  async upsertSubscriberPlan(caller: SharingCaller, input: SubscriberPlanInput): Promise<SubscriberPlanRow> {
    const p = validateSubscriberPlan(input);
    return retryingTransaction(this.db, async (trx) => {
      if (!(await findSubscriber(trx, caller.tenantId, p.msisdn)))
        throw new NotFoundError(`subscriber ${p.msisdn} not found`);
      const def = await findPlanDefinition(trx, caller.tenantId, p.planDefinition);
      if (!def) throw new NotFoundError(`plan definition ${p.planDefinition} not found`);
      const owner = await subscriberPlanTenant(trx, p.id);
      if (owner !== undefined && owner !== caller.tenantId)
        throw new ConflictError(`plan id ${p.id} is taken`);
      await upsertSubscriberPlan(
        trx,
        {
          id: p.id,
          tenantId: caller.tenantId,
          msisdn: p.msisdn,
          planDefinitionId: def.id,
          remaining: p.remaining,
        },
        this.clock.nowMs(),
      );
      return (await findSubscriberPlan(trx, caller.tenantId, p.id))!;
    });
  }
}

/** ADMIN input of a plan definition (CONTRACT §5, §9). */
export interface PlanDefinitionInput {
  name: string;
  unitMeteringType: string;
  unitAmount: number;
  shareable: boolean;
  recurring: boolean;
  shareQuotaType: string;
  maxRecipients?: number | null;
}

/** ADMIN input of a subscriber plan (CONTRACT §9): `remaining` in the plan's unit. */
export interface SubscriberPlanInput {
  id: number;
  msisdn: string;
  planDefinition: string;
  remaining: number;
}

/** Largest plan id: fits the INT UNSIGNED key on MySQL and a GraphQL Int. */
export const MAX_PLAN_ID = 2_147_483_647;

/**
 * Checks a plan definition; returns it with the default `maxRecipients` (5).
 * @throws BadUserInputError naming each offending field.
 */
export function validatePlanDefinition(
  input: PlanDefinitionInput,
): Omit<PlanDefinitionRow, 'id' | 'tenantId'> {
  const fields: { field: string; description: string }[] = [];
  if (!input.name.trim() || input.name.length > 128)
    fields.push({ field: 'name', description: '1-128 characters' });
  if (!['volume', 'time', 'credit'].includes(input.unitMeteringType))
    fields.push({ field: 'unitMeteringType', description: 'volume, time or credit' });
  if (!Number.isSafeInteger(input.unitAmount) || input.unitAmount < 0)
    fields.push({ field: 'unitAmount', description: 'non-negative integer (bytes, seconds or minor units)' });
  if (!['amount', 'share'].includes(input.shareQuotaType))
    fields.push({ field: 'shareQuotaType', description: 'amount or share' });
  const maxRecipients = input.maxRecipients ?? 5;
  if (!Number.isInteger(maxRecipients) || maxRecipients < 1 || maxRecipients > 1000)
    fields.push({ field: 'maxRecipients', description: '1-1000' });
  if (fields.length) throw new BadUserInputError(`invalid plan definition: ${fields[0].field}`, fields);
  return {
    name: input.name,
    unitMeteringType: input.unitMeteringType as PlanDefinitionRow['unitMeteringType'],
    unitAmount: input.unitAmount,
    shareable: input.shareable,
    recurring: input.recurring,
    shareQuotaType: input.shareQuotaType as ShareQuotaType,
    maxRecipients,
  };
}

/**
 * Checks a subscriber plan; returns it with the canonical MSISDN.
 * @throws BadUserInputError naming each offending field.
 */
export function validateSubscriberPlan(input: SubscriberPlanInput): SubscriberPlanInput {
  const fields: { field: string; description: string }[] = [];
  if (!Number.isSafeInteger(input.id) || input.id < 1 || input.id > MAX_PLAN_ID)
    fields.push({ field: 'id', description: `integer 1-${MAX_PLAN_ID}` });
  const msisdn = normalizeMsisdn(input.msisdn);
  if (!msisdn) fields.push({ field: 'msisdn', description: MSISDN_RULE });
  if (!Number.isSafeInteger(input.remaining) || input.remaining < 0)
    fields.push({ field: 'remaining', description: 'non-negative integer in the plan unit' });
  if (fields.length) throw new BadUserInputError(`invalid subscriber plan: ${fields[0].field}`, fields);
  return { ...input, msisdn: msisdn! };
}
