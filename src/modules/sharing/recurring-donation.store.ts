import { Knex } from 'knex';
import { KeysetPage, byCreated, keysetPage } from '../../db/keyset';
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

/** A tenant's recurring donations with these ids, in one statement (`nodes(ids:)`, `_entities`); ids naming none are absent. */
export async function recurringByIds(
  db: Knex,
  tenantId: number,
  ids: readonly string[],
): Promise<RecurringRow[]> {
  if (!ids.length) return [];
  return (await recurringQuery(db, tenantId).whereIn('r.id', [...ids])).map(toRecurring);
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

/** Which recurring donations a list holds: a donor's and/or a group's. */
export interface RecurringFilter {
  donorMsisdn?: string;
  groupId?: string;
}

const filtered = (q: Knex.QueryBuilder, by: RecurringFilter) => {
  if (by.donorMsisdn !== undefined) q.andWhere('r.donor_msisdn', by.donorMsisdn);
  if (by.groupId !== undefined) q.andWhere('r.group_id', by.groupId);
  return q;
};

/** How many of a tenant's recurring donations match `by`. */
export async function countRecurring(db: Knex, tenantId: number, by: RecurringFilter): Promise<number> {
  const total = await filtered(
    db('recurring_donations as r').where('r.tenant_id', tenantId).count({ n: '*' }),
    by,
  ).first();
  return num(total?.n ?? 0);
}

/**
 * A tenant's recurring donations of a donor and/or for a group, oldest first, one page
 * (`offset`, `limit` in rows), with the number matching (the published page-numbered list).
 */
export async function listRecurring(
  db: Knex,
  tenantId: number,
  by: RecurringFilter,
  offset: number,
  limit: number,
): Promise<{ rows: RecurringRow[]; total: number }> {
  const total = await countRecurring(db, tenantId, by);
  const rows = await filtered(recurringQuery(db, tenantId), by)
    .orderBy('r.created_at')
    .orderBy('r.id')
    .offset(offset)
    .limit(limit);
  return { rows: rows.map(toRecurring), total };
}

/** Position of a recurring donation in its list (oldest first, then by id): its cursor key. */
export interface RecurringKey {
  /** `created_at`, epoch milliseconds. */
  createdAt: number;
  id: string;
}

/**
 * One keyset page of the recurring donations matching `by`, in list order (oldest first, ties by
 * id), keyset-paged (src/db/keyset.ts: up to `limit + 1` rows in the paging direction).
 */
export async function recurringPage(
  db: Knex,
  tenantId: number,
  by: RecurringFilter,
  page: KeysetPage<RecurringKey>,
): Promise<RecurringRow[]> {
  const q = filtered(recurringQuery(db, tenantId), by);
  return (await keysetPage(q, page, byCreated('r.'), 'asc')).map(toRecurring);
}
