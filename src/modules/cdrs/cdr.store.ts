import { Knex } from 'knex';
import { CdrFields, CdrKind } from './cdr.layouts';

/** A CDR as written: the common columns and the per-type {@link CdrFields}. Times in epoch milliseconds. */
export interface CdrInsert {
  tenantId: number;
  type: CdrKind;
  serviceId: number;
  transactionType: number;
  createdAt: number;
  actor: string;
  actorCause: number | null;
  recordId: string;
  fields: CdrFields;
}

/** A stored CDR: {@link CdrInsert} with its id (write order) and its tenant's name (the published tenant ID). */
export interface CdrRow extends CdrInsert {
  id: number;
  tenantName: string;
}

/** The columns of a CDR as written, in the order of {@link cdrValues}. */
export const CDR_COLUMNS = [
  'tenant_id',
  'type',
  'service_id',
  'transaction_type',
  'created_at',
  'actor',
  'actor_cause',
  'record_id',
  'fields',
] as const;

/** A CDR's column values as stored ({@link CDR_COLUMNS} order): `actor` and `recordId` cut to 128 characters, `fields` as JSON. */
export type CdrValues = [number, CdrKind, number, number, number, string, number | null, string, string];

/** The values of `r` as stored, in {@link CDR_COLUMNS} order (every writer of CDRs stores them alike). */
export function cdrValues(r: CdrInsert): CdrValues {
  return [
    r.tenantId,
    r.type,
    r.serviceId,
    r.transactionType,
    r.createdAt,
    r.actor.slice(0, 128),
    r.actorCause,
    r.recordId.slice(0, 128),
    JSON.stringify(r.fields),
  ];
}

/** Writes CDRs in the given order (ids increase in that order) inside `db` (the change's transaction). */
export async function insertCdrs(db: Knex, rows: readonly CdrInsert[]): Promise<void> {
  if (rows.length === 0) return;
  await db('cdrs').insert(
    rows.map((r) => {
      const values = cdrValues(r);
      return Object.fromEntries(CDR_COLUMNS.map((column, i) => [column, values[i]]));
    }),
  );
}

/**
 * Which CDRs to read: a type, `[fromMs, toMs)` in epoch milliseconds, of one tenant or all;
 * strictly after the CDR with id `afterId` and before the one with id `beforeId` in list order
 * (time, then write order); `order` `asc` (the default, oldest first) or `desc` (newest first,
 * for backward paging).
 */
export interface CdrFilter {
  type: CdrKind;
  fromMs: number;
  toMs: number;
  tenantId?: number;
  afterId?: number;
  beforeId?: number;
  order?: 'asc' | 'desc';
}

/** Keyset condition: rows after (`>`) or before (`<`) the (created_at, id) of the CDR `id`. */
function pastCdr(db: Knex, w: Knex.QueryBuilder, op: '>' | '<', id: number): void {
  const at = () => db('cdrs').select('created_at').where('id', id);
  w.where((k) =>
    k
      .where('c.created_at', op, at())
      .orWhere((k2) => k2.where('c.created_at', '=', at()).andWhere('c.id', op, id)),
  );
}

/** Maps a `cdrs` row joined with its tenant's name. */
function cdrOf(r: Record<string, unknown>): CdrRow {
  return {
    id: Number(r.id),
    tenantId: Number(r.tenant_id),
    tenantName: String(r.tenant_name),
    type: r.type as CdrKind,
    serviceId: Number(r.service_id),
    transactionType: Number(r.transaction_type),
    createdAt: Number(r.created_at),
    actor: String(r.actor),
    actorCause: r.actor_cause === null || r.actor_cause === undefined ? null : Number(r.actor_cause),
    recordId: String(r.record_id),
    fields: JSON.parse(String(r.fields)) as CdrFields,
  };
}

/**
 * CDRs of `filter` in its order (by time, then write order), at most `limit`. Uses the
 * (tenant, type, time, id) index, or (type, time, id) across tenants.
 */
export async function listCdrs(db: Knex, filter: CdrFilter, limit: number): Promise<CdrRow[]> {
  const order = filter.order ?? 'asc';
  const q = db('cdrs as c')
    .join('tenants as t', 't.id', 'c.tenant_id')
    .select('c.*', 't.name as tenant_name')
    .where('c.type', filter.type)
    .andWhere('c.created_at', '>=', filter.fromMs)
    .andWhere('c.created_at', '<', filter.toMs)
    .orderBy([
      { column: 'c.created_at', order },
      { column: 'c.id', order },
    ])
    .limit(limit);
  if (filter.tenantId !== undefined) q.andWhere('c.tenant_id', filter.tenantId);
  if (filter.afterId !== undefined) pastCdr(db, q, '>', filter.afterId);
  if (filter.beforeId !== undefined) pastCdr(db, q, '<', filter.beforeId);
  return (await q).map(cdrOf);
}

/** A tenant's CDRs by id (the `cdrs` row ids), in one statement, in no particular order; ids naming none left out. */
export async function findCdrs(db: Knex, tenantId: number, ids: readonly number[]): Promise<CdrRow[]> {
  if (ids.length === 0) return [];
  const rows = (await db('cdrs as c')
    .join('tenants as t', 't.id', 'c.tenant_id')
    .select('c.*', 't.name as tenant_name')
    .where('c.tenant_id', tenantId)
    .whereIn('c.id', ids)) as Record<string, unknown>[];
  return rows.map(cdrOf);
}
