import { Knex } from 'knex';
import { InTransaction, lockingTransaction } from '../../db/knex';
import { domainErrorOf } from '../../errors';
import { Clock } from '../../lib/clock';
import { recordEvent } from '../events/outbox.store';
import { planRenewedEvent } from '../events/sharing-events';
import { SqsCode } from './error-codes';
import { DonationService } from './donation.service';
import { PlanCaller, PlanService } from './plan.service';
import { RecurringDonationService } from './recurring-donation.service';
import { DonationRequest } from './sharing-request';
import { sqsError } from './sharing-errors';
import { DonationRow, SubscriberPlanRow } from './sharing.rows';

/** The outcome of a plan renewal: the renewed plan and the recurring donation it executed, if any. */
export interface RenewalOutcome {
  plan: SubscriberPlanRow;
  donation: DonationRow | null;
}

/** Plan renewal (CONTRACT §5): a new period, then the plan's recurring donation. */
export class PlanRenewalService {
  constructor(
    private readonly db: Knex,
    private readonly plans: PlanService,
    private readonly recurring: RecurringDonationService,
    private readonly donations: DonationService,
    private readonly clock: Clock,
  ) {}

  /**
   * Renews a subscriber plan (CONTRACT §5): `remaining` back to `unitAmount`, a new period (so
   * `maxRecipients` counts afresh), then the plan's recurring donation, if any, runs with the
   * quotas in force now (a group's current members). All in one transaction; when the donation
   * as a whole is refused (e.g. the plan is no longer shareable) the renewal still happens and
   * the refusal is recorded as a donation with that errorCode and no recipients.
   * With `opts.trx` the renewal joins the caller's transaction (the renewal consumer records the
   * event id in it) instead of opening its own.
   * @throws NotFoundError (errorCode 8) when the plan is not the tenant's.
   */
  renewPlan(caller: PlanCaller, planId: number, opts: InTransaction = {}): Promise<RenewalOutcome> {
    if (!Number.isSafeInteger(planId) || planId <= 0)
      throw sqsError.invalid('planId', 'must be a positive integer');
    const run = async (trx: Knex.Transaction): Promise<RenewalOutcome> => {
      const before = await this.plans.subscriberPlan(caller, planId, { trx, forUpdate: true });
      if (!before) throw sqsError.notFound(SqsCode.PLAN_NOT_FOUND, `plan ${planId} not found`);
      await this.plans.resetPeriod(trx, before);
      const plan = (await this.plans.subscriberPlan(caller, planId, { trx }))!;
      await recordEvent(trx, this.clock, planRenewedEvent(plan, this.clock));
      const rec = await this.recurring.forPlan(caller, planId, { trx });
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
        donation = await trx.transaction((sp) =>
          this.donations.execute(sp, caller.tenantId, request, rec.id),
        );
      } catch (err) {
        const refused = domainErrorOf(err);
        if (!refused) throw err;
        donation = await this.donations.recordRefusal(trx, plan, rec, refused);
      }
      return { plan: (await this.plans.subscriberPlan(caller, planId, { trx }))!, donation };
    };
    return opts.trx ? run(opts.trx) : lockingTransaction(this.db, run);
  }
}
