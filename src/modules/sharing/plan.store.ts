import { Knex } from 'knex';
import { KeysetPage, byId, keysetPage } from '../../db/keyset';
import { tenantRowsByIds } from '../../db/by-ids';
import { dialectOf, forUpdate as lock } from '../../db/knex';
import { Money } from '../../lib/money';
import { PlanDefinitionRow, ShareQuotaType, SubscriberPlanRow, UnitMeteringType } from './sharing.rows';

/** SQL of plan definitions and subscriber plans (CONTRACT §5, §9); used only by the plan services. */
const num = (v: unknown) => Number(v);

const toDefinition = (r: Record<string, unknown>, prefix = ''): PlanDefinitionRow => ({
  id: num(r[`${prefix}id`]),
  tenantId: num(r[`${prefix}tenant_id`]),
  name: String(r[`${prefix}name`]),
  unitMeteringType: r[`${prefix}unit_metering_type`] as UnitMeteringType,
  unitAmount: num(r[`${prefix}unit_amount`]),
  shareable: Boolean(r[`${prefix}shareable`]),
  recurring: Boolean(r[`${prefix}recurring`]),
  shareQuotaType: r[`${prefix}share_quota_type`] as ShareQuotaType,
  maxRecipients: num(r[`${prefix}max_recipients`]),
  price: priceOf(r[`${prefix}price_micros`]),
});

/** A `price_micros` column as Money; null (not on offer) when the column is null. */
function priceOf(v: unknown): Money | null {
  return v === null || v === undefined ? null : Money.fromMicros(v as number | string);
}

/** A tenant's plan definition by name. */
export async function findPlanDefinition(
  db: Knex,
  tenantId: number,
  name: string,
): Promise<PlanDefinitionRow | undefined> {
  const r = await db('plan_definitions').select('*').where({ tenant_id: tenantId, name }).first();
  return r ? toDefinition(r) : undefined;
}

/** A tenant's plan definitions ordered by id. */
export async function listPlanDefinitions(db: Knex, tenantId: number): Promise<PlanDefinitionRow[]> {
  return (await db('plan_definitions').select('*').where({ tenant_id: tenantId }).orderBy('id')).map((r) =>
    toDefinition(r),
  );
}

/** A tenant's plan definition by its numeric id. */
export async function findPlanDefinitionById(
  db: Knex,
  tenantId: number,
  id: number,
): Promise<PlanDefinitionRow | undefined> {
  const r = await db('plan_definitions').select('*').where({ tenant_id: tenantId, id }).first();
  return r ? toDefinition(r) : undefined;
}

/** A tenant's plan definitions by id, in one statement (see tenantRowsByIds). */
export async function findPlanDefinitionsByIds(
  db: Knex,
  tenantId: number,
  ids: readonly number[],
): Promise<PlanDefinitionRow[]> {
  return (await tenantRowsByIds(db, 'plan_definitions', tenantId, ids)).map((r) => toDefinition(r));
}

/**
 * One keyset page of a tenant's plan definitions in id order: up to `limit + 1` rows in the
 * paging direction (src/db/keyset.ts), and the count of all of them.
 */
export async function listPlanDefinitionsByKey(
  db: Knex,
  tenantId: number,
  page: KeysetPage<number>,
): Promise<{ rows: PlanDefinitionRow[]; total: number }> {
  const total = await db('plan_definitions').where({ tenant_id: tenantId }).count({ n: '*' }).first();
  const q = db('plan_definitions').select('*').where({ tenant_id: tenantId });
  const rows = await keysetPage(q, page, byId(), 'asc');
  return { rows: rows.map((r) => toDefinition(r)), total: num(total?.n ?? 0) };
}

/** Inserts or updates a plan definition by (tenant, name); returns it and whether it was created/changed. */
export async function upsertPlanDefinition(
  db: Knex,
  d: Omit<PlanDefinitionRow, 'id'>,
): Promise<{ row: PlanDefinitionRow; created: boolean; changed: boolean }> {
  const fields = {
    unit_metering_type: d.unitMeteringType,
    unit_amount: d.unitAmount,
    shareable: d.shareable,
    recurring: d.recurring,
    share_quota_type: d.shareQuotaType,
    max_recipients: d.maxRecipients,
    price_micros: d.price?.toDb() ?? null,
  };
  const existing = await findPlanDefinition(db, d.tenantId, d.name);
  if (!existing) {
    const [id] = await db('plan_definitions').insert({ tenant_id: d.tenantId, name: d.name, ...fields });
    return { row: { ...d, id: num(id) }, created: true, changed: true };
  }
  const same =
    existing.unitMeteringType === d.unitMeteringType &&
    existing.unitAmount === d.unitAmount &&
    existing.shareable === d.shareable &&
    existing.recurring === d.recurring &&
    existing.shareQuotaType === d.shareQuotaType &&
    existing.maxRecipients === d.maxRecipients &&
    (existing.price === null ? d.price === null : d.price !== null && existing.price.cmp(d.price) === 0);
  if (!same) await db('plan_definitions').where({ id: existing.id }).update(fields);
  return { row: { ...d, id: existing.id }, created: false, changed: !same };
}

function planQuery(db: Knex) {
  return db('subscriber_plans as p')
    .join('plan_definitions as d', 'd.id', 'p.plan_definition_id')
    .select(
      'p.id',
      'p.tenant_id',
      'p.msisdn',
      'p.remaining',
      'p.period',
      'p.renewed_at',
      'p.recipients_in_period',
      'd.id as d_id',
      'd.tenant_id as d_tenant_id',
      'd.name as d_name',
      'd.unit_metering_type as d_unit_metering_type',
      'd.unit_amount as d_unit_amount',
      'd.shareable as d_shareable',
      'd.recurring as d_recurring',
      'd.share_quota_type as d_share_quota_type',
      'd.max_recipients as d_max_recipients',
      'd.price_micros as d_price_micros',
    );
}

const toPlan = (r: Record<string, unknown>): SubscriberPlanRow => ({
  id: num(r.id),
  tenantId: num(r.tenant_id),
  msisdn: String(r.msisdn),
  remaining: num(r.remaining),
  period: num(r.period),
  renewedAt: num(r.renewed_at),
  recipientsInPeriod: num(r.recipients_in_period),
  definition: toDefinition(r, 'd_'),
});

/**
 * A tenant's subscriber plan by id, with its plan definition. `forUpdate` locks the plan's row
 * until the transaction ends (MySQL/MariaDB; SQLite transactions already exclude each other),
 * in a statement of its own before the read: a `FOR UPDATE` on the read's join would also lock
 * the plan definition's row, which every plan of that definition shares, so donations and
 * renewals of different plans of one product would wait for each other (one at a time
 * tenant-wide). The definition is read without a lock, as committed.
 */
export async function findSubscriberPlan(
  db: Knex,
  tenantId: number,
  id: number,
  forUpdate = false,
): Promise<SubscriberPlanRow | undefined> {
  if (forUpdate && dialectOf(db) === 'mysql') {
    const locked = await lock(
      db,
      db('subscriber_plans').select('id').where({ id, tenant_id: tenantId }),
    ).first();
    if (!locked) return undefined;
  }
  const r = await planQuery(db).where({ 'p.id': id, 'p.tenant_id': tenantId }).first();
  return r ? toPlan(r) : undefined;
}

/** A tenant's subscriber plans by plan id, each with its definition, in one statement (any order; ids naming none left out). */
export async function findSubscriberPlans(
  db: Knex,
  tenantId: number,
  ids: readonly number[],
): Promise<SubscriberPlanRow[]> {
  if (ids.length === 0) return [];
  return (await planQuery(db).where('p.tenant_id', tenantId).whereIn('p.id', ids)).map(toPlan);
}

/** A subscriber's plans ordered by id. */
export async function listSubscriberPlans(
  db: Knex,
  tenantId: number,
  msisdn: string,
): Promise<SubscriberPlanRow[]> {
  return (await planQuery(db).where({ 'p.tenant_id': tenantId, 'p.msisdn': msisdn }).orderBy('p.id')).map(
    toPlan,
  );
}

/** A subscriber plan by id in any tenant (to detect an id taken by another tenant). */
export async function subscriberPlanTenant(db: Knex, id: number): Promise<number | undefined> {
  const r = await db('subscriber_plans').select('tenant_id').where({ id }).first();
  return r ? num(r.tenant_id) : undefined;
}

/** Inserts (with its id) or updates a subscriber plan; returns whether anything changed. */
export async function upsertSubscriberPlan(
  db: Knex,
  p: { id: number; tenantId: number; msisdn: string; planDefinitionId: number; remaining: number },
  nowMs: number,
): Promise<{ created: boolean; changed: boolean }> {
  const existing = await db('subscriber_plans').select('*').where({ id: p.id }).first();
  if (!existing) {
    await db('subscriber_plans').insert({
      id: p.id,
      tenant_id: p.tenantId,
      msisdn: p.msisdn,
      plan_definition_id: p.planDefinitionId,
      remaining: p.remaining,
      period: 1,
      renewed_at: nowMs,
    });
    return { created: true, changed: true };
  }
  if (
    existing.msisdn === p.msisdn &&
    num(existing.plan_definition_id) === p.planDefinitionId &&
    num(existing.remaining) === p.remaining
  )
    return { created: false, changed: false };
  await db('subscriber_plans')
    .where({ id: p.id })
    .update({ msisdn: p.msisdn, plan_definition_id: p.planDefinitionId, remaining: p.remaining });
  return { created: false, changed: true };
}

/**
 * Starts a new period: `remaining` back to `unitAmount`, period + 1, no recipients counted in it
 * (`recipients_in_period` 0, the plan's `plan_period_recipients` rows of earlier periods deleted,
 * at most `maxRecipients` rows). Run with the plan row locked.
 */
export async function renewPlan(db: Knex, planId: number, unitAmount: number, nowMs: number): Promise<void> {
  await db('subscriber_plans')
    .where({ id: planId })
    .update({
      remaining: unitAmount,
      period: db.raw('period + 1'),
      renewed_at: nowMs,
      recipients_in_period: 0,
    });
  // Every row of the plan is of an earlier period now.
  await db('plan_period_recipients').where({ donor_plan_id: planId }).delete();
}

/**
 * One keyset page of a tenant's plan definitions on offer in its captive portal (those with a
 * price), in id order: up to `page.limit + 1` rows in the paging direction (src/db/keyset.ts).
 */
export async function listPricedPlanDefinitions(
  db: Knex,
  tenantId: number,
  page: KeysetPage<number>,
): Promise<PlanDefinitionRow[]> {
  const q = db('plan_definitions').select('*').where({ tenant_id: tenantId }).whereNotNull('price_micros');
  return (await keysetPage(q, page, byId(), 'asc')).map((r) => toDefinition(r));
}

/** How many plans a subscriber holds (the MAX_PLANS_PER_SUBSCRIBER check of a purchase). */
export async function countSubscriberPlans(db: Knex, tenantId: number, msisdn: string): Promise<number> {
  const r = await db('subscriber_plans').where({ tenant_id: tenantId, msisdn }).count({ n: '*' }).first();
  return num(r?.n ?? 0);
}

/**
 * Inserts a new subscriber plan (id assigned by the database) in its first period: `remaining`
 * in the plan unit, renewed at `nowMs`. Returns its id (the plan id, `donorPlanId`).
 */
export async function insertSubscriberPlan(
  db: Knex,
  p: { tenantId: number; msisdn: string; planDefinitionId: number; remaining: number },
  nowMs: number,
): Promise<number> {
  const [id] = await db('subscriber_plans').insert({
    tenant_id: p.tenantId,
    msisdn: p.msisdn,
    plan_definition_id: p.planDefinitionId,
    remaining: p.remaining,
    period: 1,
    renewed_at: nowMs,
  });
  return num(id);
}
