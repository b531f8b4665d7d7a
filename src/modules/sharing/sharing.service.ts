import DataLoader from 'dataloader';
import { Knex } from 'knex';
import { groupsCommits } from '../../db/knex';
import { Clock } from '../../lib/clock';
import { Logger } from '../../logger';
import { IdempotencyService } from '../idempotency/idempotency.service';
import { SubscriberService } from '../subscribers/subscriber.service';
import { DonationService } from './donation.service';
import { GroupMemberService } from './group-member.service';
import { GroupService } from './group.service';
import { SharingLanes } from './lanes';
import { PlanRenewalService } from './plan-renewal.service';
import { PlanService } from './plan.service';
import { RecurringDonationService } from './recurring-donation.service';
import { DonationRow, GroupRow, MemberRow, RecurringRow } from './sharing.rows';

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
  /** Donations by id, with their recipients' results (`node(id:)`, `_entities`). */
  donations: DataLoader<string, DonationRow | undefined>;
  /** Groups by id (`node(id:)`, `_entities`). */
  groups: DataLoader<string, GroupRow | undefined>;
  /** Recurring donations by id (`node(id:)`, `_entities`). */
  recurring: DataLoader<string, RecurringRow | undefined>;
  members: DataLoader<string, MemberRow[]>;
  recurringByPlan: DataLoader<number, RecurringRow | null>;
}

/**
 * Quota sharing (CONTRACT §5), wired by noun: donations,
 * groups and members, recurring donations, plans and renewal. The services share one set of
 * lanes ({@link SharingLanes}). The delegating methods keep the entry points the REST rows,
 * resolvers, CLI and metrics use; their documentation is the noun service's.
 */
export class SharingService {
  /** Subscriber lookups. */
  readonly subscriberService: SubscriberService;
  /** Plan definitions and subscriber plans. */
  readonly planService: PlanService;
  /** Groups. */
  readonly groupService: GroupService;
  /** Group renames and member writes under the group's lane. */
  readonly memberService: GroupMemberService;
  /** Donations. */
  readonly donationService: DonationService;
  /** Recurring donations. */
  readonly recurringService: RecurringDonationService;
  /** Plan renewal. */
  readonly renewalService: PlanRenewalService;

  constructor(
    db: Knex,
    clock: Clock,
    limits: SharingLimits,
    logger: Logger,
    idempotency: IdempotencyService,
    /** One write per donor plan or group at a time holds a connection (not needed under SQLite's group commit). */
    lanes = new SharingLanes(!groupsCommits(db)),
  ) {
    this.subscriberService = new SubscriberService(db);
    this.planService = new PlanService(db, clock, this.subscriberService);
    this.memberService = new GroupMemberService(
      db,
      clock,
      limits,
      idempotency,
      lanes,
      this.subscriberService,
    );
    this.groupService = new GroupService(db, clock, idempotency, this.subscriberService, this.memberService);
    this.donationService = new DonationService(
      db,
      clock,
      limits,
      logger,
      idempotency,
      lanes,
      this.subscriberService,
      this.planService,
      this.groupService,
    );
    this.recurringService = new RecurringDonationService(
      db,
      clock,
      idempotency,
      this.planService,
      this.groupService,
      this.donationService,
    );
    this.renewalService = new PlanRenewalService(
      db,
      this.planService,
      this.recurringService,
      this.donationService,
      clock,
    );
  }

  /** See {@link DonationService.donate}. */
  donate: DonationService['donate'] = (...a) => this.donationService.donate(...a);
  /** See {@link DonationService.donation}. */
  donation: DonationService['donation'] = (...a) => this.donationService.donation(...a);
  /** See {@link DonationService.donations}. */
  donations: DonationService['donations'] = (...a) => this.donationService.donations(...a);
  /** See {@link DonationService.allowances}. */
  allowances: DonationService['allowances'] = (...a) => this.donationService.allowances(...a);
  /** See {@link DonationService.allowancesByIds}. */
  allowancesByIds: DonationService['allowancesByIds'] = (...a) => this.donationService.allowancesByIds(...a);
  /** See {@link GroupService.createGroup}. */
  createGroup: GroupService['createGroup'] = (...a) => this.groupService.createGroup(...a);
  /** See {@link GroupService.group}. */
  group: GroupService['group'] = (...a) => this.groupService.group(...a);
  /** See {@link GroupService.groups}. */
  groups: GroupService['groups'] = (...a) => this.groupService.groups(...a);
  /** See {@link GroupService.deleteGroup}. */
  deleteGroup: GroupService['deleteGroup'] = (...a) => this.groupService.deleteGroup(...a);
  /** See {@link GroupService.addMember}. */
  addMember: GroupService['addMember'] = (...a) => this.groupService.addMember(...a);
  /** See {@link GroupService.removeMember}. */
  removeMember: GroupService['removeMember'] = (...a) => this.groupService.removeMember(...a);
  /** See {@link RecurringDonationService.createRecurring}. */
  createRecurring: RecurringDonationService['createRecurring'] = (...a) =>
    this.recurringService.createRecurring(...a);
  /** See {@link RecurringDonationService.recurring}. */
  recurring: RecurringDonationService['recurring'] = (...a) => this.recurringService.recurring(...a);
  /** See {@link RecurringDonationService.recurringDonations}. */
  recurringDonations: RecurringDonationService['recurringDonations'] = (...a) =>
    this.recurringService.recurringDonations(...a);
  /** See {@link RecurringDonationService.recurringDonationsPage}. */
  recurringDonationsPage: RecurringDonationService['recurringDonationsPage'] = (...a) =>
    this.recurringService.recurringDonationsPage(...a);
  /** See {@link RecurringDonationService.deleteRecurring}. */
  deleteRecurring: RecurringDonationService['deleteRecurring'] = (...a) =>
    this.recurringService.deleteRecurring(...a);
  /** See {@link PlanRenewalService.renewPlan}. */
  renewPlan: PlanRenewalService['renewPlan'] = (...a) => this.renewalService.renewPlan(...a);
  /** See {@link PlanService.planTenant}. */
  planTenant: PlanService['planTenant'] = (...a) => this.planService.planTenant(...a);
  /** See {@link PlanService.planDefinitions}. */
  planDefinitions: PlanService['planDefinitions'] = (...a) => this.planService.planDefinitions(...a);
  /** See {@link PlanService.subscriberPlans}. */
  subscriberPlans: PlanService['subscriberPlans'] = (...a) => this.planService.subscriberPlans(...a);
  /** See {@link PlanService.subscriberPlan}. */
  subscriberPlan = (caller: SharingCaller, id: number) => this.planService.subscriberPlan(caller, id);
  /** See {@link PlanService.subscriberPlansByIds}. */
  subscriberPlansByIds: PlanService['subscriberPlansByIds'] = (...a) =>
    this.planService.subscriberPlansByIds(...a);
  /** See {@link PlanService.upsertPlanDefinition}. */
  upsertPlanDefinition = (caller: SharingCaller, input: Parameters<PlanService['upsertPlanDefinition']>[1]) =>
    this.planService.upsertPlanDefinition(caller, input);
  /** See {@link PlanService.upsertSubscriberPlan}. */
  upsertSubscriberPlan = (caller: SharingCaller, input: Parameters<PlanService['upsertSubscriberPlan']>[1]) =>
    this.planService.upsertSubscriberPlan(caller, input);

  /** Per-request DataLoaders (CONTRACT §7): group members, plans' recurring donations, and donations, groups and recurring donations by id. */
  loaders(caller: SharingCaller): SharingLoaders {
    return {
      donations: this.donationService.donationsLoader(caller),
      groups: this.groupService.groupsLoader(caller),
      recurring: this.recurringService.byIdLoader(caller),
      members: this.groupService.membersLoader(),
      recurringByPlan: this.recurringService.byPlanLoader(caller),
    };
  }
}
