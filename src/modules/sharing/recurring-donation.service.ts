import DataLoader from 'dataloader';
import { requireMsisdn } from '../../lib/msisdn';
import { Knex } from 'knex';
import { InTransaction, isUniqueViolation, lockingTransaction, retryingTransaction } from '../../db/knex';
import { Clock } from '../../lib/clock';
import { newId } from '../../lib/ids';
import { keyedLoader } from '../../lib/keyed-loader';
import { CdrRecorder } from '../cdrs/cdr.recorder';
import { RecurringTx } from '../cdrs/cdr.layouts';
import { EventType } from '../events/event-catalogue';
import { recordEvent } from '../events/outbox.store';
import { recurringEvent } from '../events/sharing-events';
import { IdempotencyService } from '../idempotency/idempotency.service';
import { SqsCode } from './error-codes';
import { DonationService } from './donation.service';
import { checkPage } from './group-member.service';
import { GroupService } from './group.service';
import { PlanService } from './plan.service';
import type { KeysetPage } from '../../db/keyset';
import {
  RecurringFilter,
  RecurringKey,
  countRecurring,
  deleteRecurring,
  findRecurring,
  insertRecurring,
  listRecurring,
  recurringByIds,
  recurringByPlanIds,
  recurringPage,
} from './recurring-donation.store';
import { parseDonationRequest } from './sharing-request';
import { sqsError } from './sharing-errors';
import { RecurringRow } from './sharing.rows';

/** The caller's tenant and API client username (`actor`, named by the CDRs; absent: `sqs`). */
export interface RecurringCaller {
  tenantId: number;
  actor?: string;
}

/** Recurring donations per page of `GET /sqs/api/recurringDonations` (published). */
export const RECURRING_PAGE_SIZE = 100;

/**
 * Recurring donations (CONTRACT §5): one per donor plan, executed at each renewal
 * ({@link PlanRenewalService}); created, read, listed and cancelled here.
 */
export class RecurringDonationService {
  constructor(
    private readonly db: Knex,
    private readonly clock: Clock,
    private readonly idempotency: IdempotencyService,
    private readonly plans: PlanService,
    private readonly groups: GroupService,
    private readonly donations: DonationService,
    /** Recurring donation CDRs (service ID 99, CONTRACT §8). */
    private readonly cdrs: CdrRecorder = new CdrRecorder(clock),
  ) {}

  /** The recurring donation of a plan, or undefined. */
  forPlan(
    caller: RecurringCaller,
    planId: number,
    opts: InTransaction = {},
  ): Promise<RecurringRow | undefined> {
    return findRecurring(opts.trx ?? this.db, caller.tenantId, { donorPlanId: planId });
  }

  /**
   * A DataLoader of the caller's tenant's recurring donations by id (undefined for an id that
   * names none), one statement per tick; see {@link keyedLoader}. Build one per request.
   */
  byIdLoader(caller: RecurringCaller): DataLoader<string, RecurringRow | undefined> {
    return keyedLoader(
      (ids) => recurringByIds(this.db, caller.tenantId, ids),
      (r) => r.id,
    );
  }

  /** A per-request DataLoader of plans' recurring donations by plan id (CONTRACT §7). */
  byPlanLoader(caller: RecurringCaller): DataLoader<number, RecurringRow | null> {
    return new DataLoader<number, RecurringRow | null>(async (ids) => {
      const rows = await recurringByPlanIds(this.db, caller.tenantId, ids);
      return ids.map((id) => rows.find((r) => r.donorPlanId === id) ?? null);
    });
  }

  /**
   * `POST /sqs/api/recurringDonations` (either form): body 400/412, donor 404/7, plan 404/8,
   * quotaType 412, shareable 422/16, recurring 422/9, group 404/5 (and owned by the donor,
   * else 412 on groupId), more recipients than `maxRecipients` 422/13, one per plan 409/11.
   * `idempotencyKey` as for {@link DonationService.donate}.
   */
  createRecurring(
    caller: RecurringCaller,
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
        const locked = await this.plans.subscriberPlan(caller, r.donorPlanId, { trx, forUpdate: true });
        // Published group form `{donorPlanId, groupId}`: the donor is the group owner.
        const group = r.form === 'group' ? await this.groups.find(caller, r.groupId, { trx }) : undefined;
        if (r.form === 'group' && r.donorId === null && !group) throw sqsError.groupNotFound(r.groupId);
        const donorId = r.donorId ?? group!.ownerMsisdn;
        const { plan } = await this.donations.donorOf(trx, caller.tenantId, donorId, locked, r.donorPlanId);
        let quotaType = plan.definition.shareQuotaType;
        if (r.form === 'group') {
          if (!group) throw sqsError.groupNotFound(r.groupId);
          if (group.ownerMsisdn !== donorId)
            throw sqsError.invalid('groupId', 'must be a group the donor owns');
          quotaType = r.quotaType ?? group.quotaType ?? quotaType;
        } else {
          quotaType = r.quotaType;
        }
        this.donations.checkShareable(plan, quotaType, 'quotaType');
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
        await this.cdrs.recurring(trx, caller, RecurringTx.CREATED, row, group?.name ?? null);
        await recordEvent(
          trx,
          this.clock,
          recurringEvent(EventType.recurringDonationCreated, row, this.clock),
        );
        return row;
      },
    );
  }

  /**
   * A recurring donation by id.
   * @throws NotFoundError (errorCode 1).
   */
  async recurring(caller: RecurringCaller, id: string): Promise<RecurringRow> {
    const r = await findRecurring(this.db, caller.tenantId, { id });
    if (!r) throw sqsError.recurringNotFound(id);
    return r;
  }

  /**
   * The list a `donorId` and/or `groupId` select (at least one).
   * @throws BadUserInputError 412 on `donorId` when neither is given or `donorId` is not an MSISDN.
   */
  private filterOf(by: { donorId: string | null; groupId: string | null }): RecurringFilter {
    if (by.donorId === null && by.groupId === null)
      throw sqsError.invalid('donorId', 'give donorId or groupId');
    return {
      donorMsisdn: by.donorId === null ? undefined : requireMsisdn(by.donorId, 'donorId'),
      groupId: by.groupId ?? undefined,
    };
  }

  /**
   * `GET /sqs/api/recurringDonations?donorId=&groupId=`: a donor's and/or a group's recurring
   * donations, oldest first, page `page` (0-based) of {@link RECURRING_PAGE_SIZE}.
   * @throws BadUserInputError 412 when neither is given (on `donorId`), `donorId` is not an
   *   MSISDN, or `page` is not 0-1000000.
   */
  async recurringDonations(
    caller: RecurringCaller,
    by: { donorId: string | null; groupId: string | null },
    page: number,
  ): Promise<{ rows: RecurringRow[]; total: number; page: number; size: number }> {
    if (by.donorId === null && by.groupId === null) this.filterOf(by);
    checkPage(page);
    const filter = this.filterOf(by);
    const r = await listRecurring(
      this.db,
      caller.tenantId,
      filter,
      page * RECURRING_PAGE_SIZE,
      RECURRING_PAGE_SIZE,
    );
    return { ...r, page, size: RECURRING_PAGE_SIZE };
  }

  /**
   * One keyset page of a donor's and/or a group's recurring donations, oldest first (ties by
   * id): `page.limit + 1` rows at most in the paging direction's order past its keys (the extra
   * one says more follow), and the number matching.
   * @throws BadUserInputError 412 on `donorId` as {@link recurringDonations}.
   */
  async recurringDonationsPage(
    caller: RecurringCaller,
    by: { donorId: string | null; groupId: string | null },
    page: KeysetPage<RecurringKey>,
  ): Promise<{ rows: RecurringRow[]; total: number }> {
    const filter = this.filterOf(by);
    const [rows, total] = await Promise.all([
      recurringPage(this.db, caller.tenantId, filter, page),
      countRecurring(this.db, caller.tenantId, filter),
    ]);
    return { rows, total };
  }

  /**
   * Cancels a recurring donation (CDR: recurring donation deleted, in the same transaction).
   * @throws NotFoundError (errorCode 1).
   */
  async deleteRecurring(caller: RecurringCaller, id: string): Promise<void> {
    await retryingTransaction(this.db, async (trx) => {
      const rec = await findRecurring(trx, caller.tenantId, { id });
      if (!rec || !(await deleteRecurring(trx, caller.tenantId, id))) throw sqsError.recurringNotFound(id);
      const group = rec.groupId ? await this.groups.find(caller, rec.groupId, { trx }) : undefined;
      await this.cdrs.recurring(trx, caller, RecurringTx.DELETED, rec, group?.name ?? null);
      await recordEvent(trx, this.clock, recurringEvent(EventType.recurringDonationDeleted, rec, this.clock));
    });
  }
}
