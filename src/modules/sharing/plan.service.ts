import { Knex } from 'knex';
import { requireMsisdn } from '../../lib/msisdn';
import type { KeysetPage } from '../../db/keyset';
import { InTransaction, retryingTransaction } from '../../db/knex';
import { ConflictError, DomainError, NotFoundError } from '../../errors';
import { Clock } from '../../lib/clock';
import { SubscriberService } from '../subscribers/subscriber.service';
import {
  findPlanDefinition,
  findPlanDefinitionsByIds,
  findSubscriberPlan,
  findSubscriberPlans,
  listPlanDefinitions,
  listPlanDefinitionsByKey,
  listSubscriberPlans,
  renewPlan,
  subscriberPlanTenant,
  upsertPlanDefinition,
  upsertSubscriberPlan,
} from './plan.store';
import {
  PlanDefinitionInput,
  SubscriberPlanInput,
  validatePlanDefinition,
  validateSubscriberPlan,
} from './plan.validation';

import { PlanDefinitionRow, SubscriberPlanRow } from './sharing.rows';

/** The caller's tenant. */
export interface PlanCaller {
  tenantId: number;
}

/** What an upsert did: the row as stored now, whether it was created or changed. */
export interface UpsertOutcome<T> {
  row: T;
  created: boolean;
  changed: boolean;
}

/** The field of a subscriber plan a refusal is about (`msisdn`, `planDefinition` or `id`). */
export type SubscriberPlanField = 'msisdn' | 'planDefinition' | 'id';

/**
 * Options of {@link PlanService.writeSubscriberPlan}: the caller's transaction, and how to turn
 * a refusal into the caller's error (the dataset import names the JSON path); by default the
 * API's NotFoundError / ConflictError is thrown.
 */
export interface SubscriberPlanWriteOptions extends InTransaction {
  refuse?: (field: SubscriberPlanField, error: DomainError) => Error;
}

/**
 * Plan definitions and subscriber plans (CONTRACT §5, §9): reads, the ADMIN upserts and the
 * period reset of a renewal. The ADMIN API and the dataset import share these rules; every
 * write joins the caller's transaction when given one.
 */
export class PlanService {
  constructor(
    private readonly db: Knex,
    private readonly clock: Clock,
    private readonly subscribers: SubscriberService,
  ) {}

  /** The tenant owning a plan id, for the CLI (`plan renew <planId>`), or undefined. */
  planTenant(planId: number): Promise<number | undefined> {
    return subscriberPlanTenant(this.db, planId);
  }

  /** The tenant's plan definitions. */
  planDefinitions(caller: PlanCaller): Promise<PlanDefinitionRow[]> {
    return listPlanDefinitions(this.db, caller.tenantId);
  }

  /**
   * One keyset page (GraphQL `planDefinitions` connection) of the tenant's plan definitions in id
   * order: up to `page.limit + 1` rows in paging order past the cursor's id, and how many there are.
   */
  planDefinitionsByKey(
    caller: PlanCaller,
    page: KeysetPage<number>,
  ): Promise<{ rows: PlanDefinitionRow[]; total: number }> {
    return listPlanDefinitionsByKey(this.db, caller.tenantId, page);
  }

  /** The caller's tenant's plan definitions with these ids, in one statement (any order; ids naming none left out). */
  planDefinitionsByIds(caller: PlanCaller, ids: readonly number[]): Promise<PlanDefinitionRow[]> {
    return findPlanDefinitionsByIds(this.db, caller.tenantId, ids);
  }

  /** The caller's tenant's subscriber plans with these plan ids, in one statement (any order; ids naming none left out). */
  subscriberPlansByIds(caller: PlanCaller, ids: readonly number[]): Promise<SubscriberPlanRow[]> {
    return findSubscriberPlans(this.db, caller.tenantId, ids);
  }

  /** A subscriber's plans (MSISDN with or without `+`; malformed gives 412 on `msisdn`). */
  subscriberPlans(caller: PlanCaller, msisdn: string): Promise<SubscriberPlanRow[]> {
    return listSubscriberPlans(this.db, caller.tenantId, requireMsisdn(msisdn, 'msisdn'));
  }

  /**
   * A plan by id, or undefined; with `forUpdate` (inside `opts.trx`) the plan row is locked
   * until the transaction ends.
   */
  subscriberPlan(
    caller: PlanCaller,
    id: number,
    opts: InTransaction & { forUpdate?: boolean } = {},
  ): Promise<SubscriberPlanRow | undefined> {
    return findSubscriberPlan(opts.trx ?? this.db, caller.tenantId, id, opts.forUpdate);
  }

  /** Starts a new period of a plan inside `trx`: `remaining` back to `unitAmount`, period + 1. */
  resetPeriod(trx: Knex.Transaction, plan: SubscriberPlanRow): Promise<void> {
    return renewPlan(trx, plan.id, plan.definition.unitAmount, this.clock.nowMs());
  }

  /**
   * ADMIN: creates or updates a plan definition by name. `unitAmount` is a non-negative safe
   * integer in the metering unit; `maxRecipients` 1-1000 (default 5).
   * @throws BadUserInputError naming each offending field.
   */
  async upsertPlanDefinition(
    caller: PlanCaller,
    input: PlanDefinitionInput,
    opts: InTransaction = {},
  ): Promise<PlanDefinitionRow> {
    return (await this.writePlanDefinition(caller, input, opts)).row;
  }

  /** {@link upsertPlanDefinition} with what it did (the dataset import counts it). */
  async writePlanDefinition(
    caller: PlanCaller,
    input: PlanDefinitionInput,
    opts: InTransaction = {},
  ): Promise<UpsertOutcome<PlanDefinitionRow>> {
    const d = validatePlanDefinition(input);
    return upsertPlanDefinition(opts.trx ?? this.db, { tenantId: caller.tenantId, ...d });
  }

  /**
   * ADMIN: creates or updates a subscriber plan with its id: the subscriber and plan definition
   * must exist in the tenant; an id used by another tenant is a conflict.
   * @throws BadUserInputError, NotFoundError, ConflictError.
   */
  async upsertSubscriberPlan(
    caller: PlanCaller,
    input: SubscriberPlanInput,
    opts: SubscriberPlanWriteOptions = {},
  ): Promise<SubscriberPlanRow> {
    return (await this.writeSubscriberPlan(caller, input, opts)).row;
  }

  /**
   * {@link upsertSubscriberPlan} with what it did. Without `opts.trx` it runs in its own
   * retrying transaction.
   */
  async writeSubscriberPlan(
    caller: PlanCaller,
    input: SubscriberPlanInput,
    opts: SubscriberPlanWriteOptions = {},
  ): Promise<UpsertOutcome<SubscriberPlanRow>> {
    const p = validateSubscriberPlan(input);
    const refuse = opts.refuse ?? ((_field: SubscriberPlanField, error: DomainError) => error);
    const write = async (trx: Knex.Transaction): Promise<UpsertOutcome<SubscriberPlanRow>> => {
      if (!(await this.subscribers.find(caller.tenantId, p.msisdn, { trx })))
        throw refuse('msisdn', new NotFoundError(`subscriber ${p.msisdn} not found`));
      const def = await findPlanDefinition(trx, caller.tenantId, p.planDefinition);
      if (!def)
        throw refuse('planDefinition', new NotFoundError(`plan definition ${p.planDefinition} not found`));
      const owner = await subscriberPlanTenant(trx, p.id);
      if (owner !== undefined && owner !== caller.tenantId)
        throw refuse('id', new ConflictError(`plan id ${p.id} is taken`));
      const { created, changed } = await upsertSubscriberPlan(
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
      return { row: (await findSubscriberPlan(trx, caller.tenantId, p.id))!, created, changed };
    };
    return opts.trx ? write(opts.trx) : retryingTransaction(this.db, write);
  }
}
