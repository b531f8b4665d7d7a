import { Knex } from 'knex';
import { RecurringRow, donorFieldsOf } from './sharing.rows';

/** SQL of recurring donations (CONTRACT §5); used only by the recurring donation service. */

const num = (v: unknown) => Number(v);

const toRecurring = (r: Record<string, unknown>): RecurringRow => ({
  ...donorFieldsOf(r),
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
