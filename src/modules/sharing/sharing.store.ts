import { Knex } from 'knex';
import { certifiedLock, dialectOf, forUpdate as lock } from '../../db/knex';

/** How a plan's quota is counted (CONTRACT §5): bytes, seconds or credit minor units. */
export type UnitMeteringType = 'volume' | 'time' | 'credit';
/** How a plan's quota is shared: absolute amounts or shares of 10^7. */
export type ShareQuotaType = 'amount' | 'share';

/** A plan definition (CONTRACT §5). `unitAmount` is granted per period. */
export interface PlanDefinitionRow {
  id: number;
  tenantId: number;
  name: string;
  unitMeteringType: UnitMeteringType;
  unitAmount: number;
  shareable: boolean;
  recurring: boolean;
  shareQuotaType: ShareQuotaType;
  maxRecipients: number;
}

/** A subscriber's instance of a plan (`donorPlanId`), with what remains of its current period. */
export interface SubscriberPlanRow {
  id: number;
  tenantId: number;
  msisdn: string;
  remaining: number;
  period: number;
  renewedAt: number;
  definition: PlanDefinitionRow;
}

/** A group of recipients owned by a donor. */
export interface GroupRow {
  id: string;
  tenantId: number;
  ownerMsisdn: string;
  name: string;
  quotaType: ShareQuotaType | null;
  createdAt: number;
  updatedAt: number;
}

/** A group member and its quota. */
export interface MemberRow {
  groupId: string;
  memberMsisdn: string;
  quota: number;
  createdAt: number;
}

/** A recurring donation: explicit recipients or a group, executed at every plan renewal. */
export interface RecurringRow {
  id: string;
  tenantId: number;
  donorMsisdn: string;
  donorPlanId: number;
  quotaType: ShareQuotaType;
  groupId: string | null;
  recipients: { recipientId: string; quota: number }[] | null;
  createdAt: number;
  /** The donor plan's definition name (read only; null if the plan is gone). */
  planName?: string | null;
}

/** A donation and its per-recipient results. */
export interface DonationRow {
  id: string;
  tenantId: number;
  donorMsisdn: string;
  donorPlanId: number;
  quotaType: ShareQuotaType;
  groupId: string | null;
  recurringDonationId: string | null;
  period: number;
  /** Overall errorCode (spec 2.7): 0 when any recipient received quota, else the first failure's code. */
  errorCode: number;
  createdAt: number;
  /** Per-recipient results in request order; `granted` in the plan's unit. */
  recipients: { recipientId: string; quota: number; granted: number; errorCode: number }[];
}

/** What a recipient received from one donation. */
export interface AllowanceRow {
  id: number;
  recipientMsisdn: string;
  donorPlanId: number;
  donationId: string;
  unitMeteringType: UnitMeteringType;
  amount: number;
  period: number;
  createdAt: number;
}

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
});

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
    existing.maxRecipients === d.maxRecipients;
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
      'd.id as d_id',
      'd.tenant_id as d_tenant_id',
      'd.name as d_name',
      'd.unit_metering_type as d_unit_metering_type',
      'd.unit_amount as d_unit_amount',
      'd.shareable as d_shareable',
      'd.recurring as d_recurring',
      'd.share_quota_type as d_share_quota_type',
      'd.max_recipients as d_max_recipients',
    );
}

const toPlan = (r: Record<string, unknown>): SubscriberPlanRow => ({
  id: num(r.id),
  tenantId: num(r.tenant_id),
  msisdn: String(r.msisdn),
  remaining: num(r.remaining),
  period: num(r.period),
  renewedAt: num(r.renewed_at),
  definition: toDefinition(r, 'd_'),
});

/** A tenant's subscriber plan by id; `forUpdate` locks its row until the transaction ends (MySQL). */
export async function findSubscriberPlan(
  db: Knex,
  tenantId: number,
  id: number,
  forUpdate = false,
): Promise<SubscriberPlanRow | undefined> {
  const q = planQuery(db).where({ 'p.id': id, 'p.tenant_id': tenantId });
  const r = await (forUpdate ? lock(db, q) : q).first();
  return r ? toPlan(r) : undefined;
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

/** Takes `amount` from a plan's remaining quota only if it covers it (atomic); false otherwise. */
export async function debitPlan(db: Knex, planId: number, amount: number): Promise<boolean> {
  const n = await db('subscriber_plans')
    .where({ id: planId })
    .andWhere('remaining', '>=', amount)
    .update({ remaining: db.raw('remaining - ?', [amount]) });
  return n === 1;
}

/** Starts a new period: `remaining` back to `unitAmount`, period + 1. */
export async function renewPlan(db: Knex, planId: number, unitAmount: number, nowMs: number): Promise<void> {
  await db('subscriber_plans')
    .where({ id: planId })
    .update({ remaining: unitAmount, period: db.raw('period + 1'), renewed_at: nowMs });
}

/** Locks subscriber rows (MySQL) in a fixed order so concurrent donations cannot deadlock. */
export async function lockSubscribers(db: Knex, tenantId: number, msisdns: string[]): Promise<void> {
  if (dialectOf(db) !== 'mysql' || msisdns.length === 0) return;
  await lock(
    db,
    db('subscribers')
      .select('id')
      .where({ tenant_id: tenantId })
      .whereIn('msisdn', [...new Set(msisdns)].sort())
      .orderBy('msisdn'),
  );
}

/**
 * Plans a subscriber holds: its own plans plus allowances received from distinct donor plans in
 * those plans' current periods.
 */
export async function plansHeld(
  db: Knex,
  tenantId: number,
  msisdn: string,
): Promise<{ own: number; donorPlanIds: Set<number> }> {
  const own = await db('subscriber_plans').count({ n: '*' }).where({ tenant_id: tenantId, msisdn }).first();
  const received = await db('allowances as a')
    .join('subscriber_plans as p', function () {
      this.on('p.id', '=', 'a.donor_plan_id').andOn('p.period', '=', 'a.period');
    })
    .distinct('a.donor_plan_id')
    .where({ 'a.tenant_id': tenantId, 'a.recipient_msisdn': msisdn });
  return { own: num(own?.n ?? 0), donorPlanIds: new Set(received.map((r) => num(r.donor_plan_id))) };
}

/** Distinct recipients that received from a plan in a period. */
export async function recipientsInPeriod(db: Knex, planId: number, period: number): Promise<Set<string>> {
  const rows = await db('allowances').distinct('recipient_msisdn').where({ donor_plan_id: planId, period });
  return new Set(rows.map((r) => String(r.recipient_msisdn)));
}

/** Records a donation with its recipients' results and the allowances granted. */
export async function insertDonation(db: Knex, d: DonationRow, unit: UnitMeteringType): Promise<void> {
  await db('donations').insert({
    id: d.id,
    tenant_id: d.tenantId,
    donor_msisdn: d.donorMsisdn,
    donor_plan_id: d.donorPlanId,
    quota_type: d.quotaType,
    group_id: d.groupId,
    recurring_donation_id: d.recurringDonationId,
    period: d.period,
    error_code: d.errorCode,
    created_at: d.createdAt,
  });
  if (d.recipients.length) {
    await db('donation_recipients').insert(
      d.recipients.map((r, position) => ({
        donation_id: d.id,
        position,
        recipient_msisdn: r.recipientId,
        quota: r.quota,
        granted: r.granted,
        error_code: r.errorCode,
      })),
    );
  }
  const granted = d.recipients.filter((r) => r.errorCode === 0);
  if (granted.length) {
    await db('allowances').insert(
      granted.map((r) => ({
        tenant_id: d.tenantId,
        recipient_msisdn: r.recipientId,
        donor_plan_id: d.donorPlanId,
        donation_id: d.id,
        unit_metering_type: unit,
        amount: r.granted,
        period: d.period,
        created_at: d.createdAt,
      })),
    );
  }
}

function toDonation(r: Record<string, unknown>, recipients: DonationRow['recipients']): DonationRow {
  return {
    id: String(r.id),
    tenantId: num(r.tenant_id),
    donorMsisdn: String(r.donor_msisdn),
    donorPlanId: num(r.donor_plan_id),
    quotaType: r.quota_type as ShareQuotaType,
    groupId: (r.group_id as string | null) ?? null,
    recurringDonationId: (r.recurring_donation_id as string | null) ?? null,
    period: num(r.period),
    errorCode: num(r.error_code),
    createdAt: num(r.created_at),
    recipients,
  };
}

/** A tenant's donations by id or by donor (newest first), with their recipients' results. */
export async function findDonations(
  db: Knex,
  tenantId: number,
  by: { id?: string; donorMsisdn?: string },
  limit = 100,
): Promise<DonationRow[]> {
  const q = db('donations')
    .select('*')
    .where({ tenant_id: tenantId })
    .orderBy('created_at', 'desc')
    .orderBy('id')
    .limit(limit);
  if (by.id !== undefined) q.andWhere({ id: by.id });
  if (by.donorMsisdn !== undefined) q.andWhere({ donor_msisdn: by.donorMsisdn });
  const rows = await q;
  if (!rows.length) return [];
  const recips = await db('donation_recipients')
    .select('*')
    .whereIn(
      'donation_id',
      rows.map((r) => r.id),
    )
    .orderBy('position');
  return rows.map((r) =>
    toDonation(
      r,
      recips
        .filter((x) => x.donation_id === r.id)
        .map((x) => ({
          recipientId: String(x.recipient_msisdn),
          quota: num(x.quota),
          granted: num(x.granted),
          errorCode: num(x.error_code),
        })),
    ),
  );
}

/** Allowances a subscriber received, newest first. */
export async function listAllowances(db: Knex, tenantId: number, msisdn: string): Promise<AllowanceRow[]> {
  const rows = await db('allowances')
    .select('*')
    .where({ tenant_id: tenantId, recipient_msisdn: msisdn })
    .orderBy('id', 'desc')
    .limit(500);
  return rows.map((r) => ({
    id: num(r.id),
    recipientMsisdn: String(r.recipient_msisdn),
    donorPlanId: num(r.donor_plan_id),
    donationId: String(r.donation_id),
    unitMeteringType: r.unit_metering_type as UnitMeteringType,
    amount: num(r.amount),
    period: num(r.period),
    createdAt: num(r.created_at),
  }));
}

const toGroup = (r: Record<string, unknown>): GroupRow => ({
  id: String(r.id),
  tenantId: num(r.tenant_id),
  ownerMsisdn: String(r.owner_msisdn),
  name: String(r.name),
  quotaType: (r.quota_type as ShareQuotaType | null) ?? null,
  createdAt: num(r.created_at),
  updatedAt: num(r.updated_at),
});

/** Inserts a group (the unique key rejects a second owner+name). */
export async function insertGroup(db: Knex, g: GroupRow): Promise<void> {
  await db('sharing_groups').insert({
    id: g.id,
    tenant_id: g.tenantId,
    owner_msisdn: g.ownerMsisdn,
    name: g.name,
    quota_type: g.quotaType,
    created_at: g.createdAt,
    updated_at: g.updatedAt,
  });
}

/** A tenant's group by id; `forUpdate` locks it (MySQL) to serialise member changes. */
export async function findGroup(
  db: Knex,
  tenantId: number,
  id: string,
  forUpdate = false,
): Promise<GroupRow | undefined> {
  // Galera: the group's lock must be in the write set to conflict across nodes.
  if (forUpdate) await certifiedLock(db, 'sharing_groups', { tenant_id: tenantId, id });
  const q = db('sharing_groups').select('*').where({ tenant_id: tenantId, id });
  const r = await (forUpdate ? lock(db, q) : q).first();
  return r ? toGroup(r) : undefined;
}

/** A tenant's groups owned by, or having as member, a subscriber; ordered by creation; one page. */
export async function listGroups(
  db: Knex,
  tenantId: number,
  by: { ownerMsisdn?: string; memberMsisdn?: string },
  offset: number,
  limit: number,
): Promise<{ rows: GroupRow[]; total: number }> {
  const base = () => {
    const q = db('sharing_groups as g').where('g.tenant_id', tenantId);
    if (by.ownerMsisdn !== undefined) q.andWhere('g.owner_msisdn', by.ownerMsisdn);
    if (by.memberMsisdn !== undefined)
      q.whereIn('g.id', db('group_members').select('group_id').where({ member_msisdn: by.memberMsisdn }));
    return q;
  };
  const total = await base().count({ n: '*' }).first();
  const rows = await base().select('g.*').orderBy('g.created_at').orderBy('g.id').offset(offset).limit(limit);
  return { rows: rows.map(toGroup), total: num(total?.n ?? 0) };
}

/** Members of the given groups, in the order they joined. */
export async function membersOf(db: Knex, groupIds: readonly string[]): Promise<MemberRow[]> {
  if (!groupIds.length) return [];
  const rows = await db('group_members')
    .select('*')
    .whereIn('group_id', [...groupIds])
    .orderBy('id');
  return rows.map((r) => ({
    groupId: String(r.group_id),
    memberMsisdn: String(r.member_msisdn),
    quota: num(r.quota),
    createdAt: num(r.created_at),
  }));
}

/** Adds a member and touches the group's `updated`. */
export async function insertMember(db: Knex, m: MemberRow): Promise<void> {
  await db('group_members').insert({
    group_id: m.groupId,
    member_msisdn: m.memberMsisdn,
    quota: m.quota,
    created_at: m.createdAt,
  });
  await db('sharing_groups').where({ id: m.groupId }).update({ updated_at: m.createdAt });
}

/** Removes a member; returns whether it was there. */
export async function deleteMember(
  db: Knex,
  groupId: string,
  memberMsisdn: string,
  nowMs: number,
): Promise<boolean> {
  const n = await db('group_members').where({ group_id: groupId, member_msisdn: memberMsisdn }).delete();
  if (n) await db('sharing_groups').where({ id: groupId }).update({ updated_at: nowMs });
  return n > 0;
}

/** Deletes a group with its members and its recurring donation. */
export async function deleteGroup(db: Knex, id: string): Promise<void> {
  await db('recurring_donations').where({ group_id: id }).delete();
  await db('group_members').where({ group_id: id }).delete();
  await db('sharing_groups').where({ id }).delete();
}

const toRecurring = (r: Record<string, unknown>): RecurringRow => ({
  id: String(r.id),
  tenantId: num(r.tenant_id),
  donorMsisdn: String(r.donor_msisdn),
  donorPlanId: num(r.donor_plan_id),
  quotaType: r.quota_type as ShareQuotaType,
  groupId: (r.group_id as string | null) ?? null,
  recipients: r.recipients ? (JSON.parse(String(r.recipients)) as RecurringRow['recipients']) : null,
  createdAt: num(r.created_at),
  planName: (r.plan_name as string | null) ?? null,
});

/** A tenant's recurring donations with their plan definition's name (`planName`). */
function recurringQuery(db: Knex, tenantId: number) {
  return db('recurring_donations as r')
    .leftJoin('subscriber_plans as p', 'p.id', 'r.donor_plan_id')
    .leftJoin('plan_definitions as d', 'd.id', 'p.plan_definition_id')
    .select('r.*', 'd.name as plan_name')
    .where('r.tenant_id', tenantId);
}

/** Inserts a recurring donation (the unique key rejects a second one for the plan). */
export async function insertRecurring(db: Knex, r: RecurringRow): Promise<void> {
  await db('recurring_donations').insert({
    id: r.id,
    tenant_id: r.tenantId,
    donor_msisdn: r.donorMsisdn,
    donor_plan_id: r.donorPlanId,
    quota_type: r.quotaType,
    group_id: r.groupId,
    recipients: r.recipients ? JSON.stringify(r.recipients) : null,
    created_at: r.createdAt,
  });
}

/** A tenant's recurring donation by id or by donor plan. */
export async function findRecurring(
  db: Knex,
  tenantId: number,
  by: { id?: string; donorPlanId?: number },
): Promise<RecurringRow | undefined> {
  const q = recurringQuery(db, tenantId);
  if (by.id !== undefined) q.andWhere('r.id', by.id);
  if (by.donorPlanId !== undefined) q.andWhere('r.donor_plan_id', by.donorPlanId);
  const r = await q.first();
  return r ? toRecurring(r) : undefined;
}

/** Deletes a recurring donation; returns whether it existed. */
export async function deleteRecurring(db: Knex, tenantId: number, id: string): Promise<boolean> {
  return (await db('recurring_donations').where({ tenant_id: tenantId, id }).delete()) > 0;
}

/** A tenant's recurring donations of the given plans (for the batched `recurringDonation` field). */
export async function recurringByPlanIds(
  db: Knex,
  tenantId: number,
  planIds: readonly number[],
): Promise<RecurringRow[]> {
  if (!planIds.length) return [];
  return (await recurringQuery(db, tenantId).whereIn('r.donor_plan_id', [...planIds])).map(toRecurring);
}

/**
 * A tenant's recurring donations of a donor and/or for a group, oldest first, one page
 * (`offset`, `limit` in rows), with the number matching.
 */
export async function listRecurring(
  db: Knex,
  tenantId: number,
  by: { donorMsisdn?: string; groupId?: string },
  offset: number,
  limit: number,
): Promise<{ rows: RecurringRow[]; total: number }> {
  const where = (q: Knex.QueryBuilder) => {
    if (by.donorMsisdn !== undefined) q.andWhere('r.donor_msisdn', by.donorMsisdn);
    if (by.groupId !== undefined) q.andWhere('r.group_id', by.groupId);
    return q;
  };
  const total = await where(
    db('recurring_donations as r').where('r.tenant_id', tenantId).count({ n: '*' }),
  ).first();
  const rows = await where(recurringQuery(db, tenantId))
    .orderBy('r.created_at')
    .orderBy('r.id')
    .offset(offset)
    .limit(limit);
  return { rows: rows.map(toRecurring), total: num(total?.n ?? 0) };
}
