import { Knex } from 'knex';
import { KeysetPage, byCreated, keysetPage } from '../../db/keyset';
import { certifiedLock, forUpdate as lock } from '../../db/knex';
import { GroupRow, MemberRow, ShareQuotaType } from './sharing.rows';

/** SQL of groups and members (CONTRACT §5); used only by the group services. Every function runs on the connection or transaction it is given. */

const num = (v: unknown) => Number(v);

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

/** A tenant's groups with these ids, in one statement (`nodes(ids:)`, `_entities`); ids naming none are absent. */
export async function findGroups(db: Knex, tenantId: number, ids: readonly string[]): Promise<GroupRow[]> {
  if (!ids.length) return [];
  return (
    await db('sharing_groups')
      .select('*')
      .where({ tenant_id: tenantId })
      .whereIn('id', [...ids])
  ).map(toGroup);
}

/** Which groups a listing reads: a tenant's, owned by and/or having as member a subscriber. */
export interface GroupFilter {
  ownerMsisdn?: string;
  memberMsisdn?: string;
}

/** The query of a tenant's groups matching `by` (aliased `g`). */
function groupsMatching(db: Knex, tenantId: number, by: GroupFilter): Knex.QueryBuilder {
  const q = db('sharing_groups as g').where('g.tenant_id', tenantId);
  if (by.ownerMsisdn !== undefined) q.andWhere('g.owner_msisdn', by.ownerMsisdn);
  if (by.memberMsisdn !== undefined)
    q.whereIn('g.id', db('group_members').select('group_id').where({ member_msisdn: by.memberMsisdn }));
  return q;
}

/** A tenant's groups owned by, or having as member, a subscriber; ordered by creation; one page. */
export async function listGroups(
  db: Knex,
  tenantId: number,
  by: GroupFilter,
  offset: number,
  limit: number,
): Promise<{ rows: GroupRow[]; total: number }> {
  const base = () => groupsMatching(db, tenantId, by);
  const total = await base().count({ n: '*' }).first();
  const rows = await base().select('g.*').orderBy('g.created_at').orderBy('g.id').offset(offset).limit(limit);
  return { rows: rows.map(toGroup), total: num(total?.n ?? 0) };
}

/**
 * One keyset page of a tenant's groups owned by, or having as member, a subscriber, in
 * (created_at, id) order: up to `limit + 1` rows past `after` (forward, in list order) or before
 * `before` (backward, in reverse list order), and the count of every matching group.
 */
export async function listGroupsByKey(
  db: Knex,
  tenantId: number,
  by: GroupFilter,
  page: KeysetPage<{ createdAt: number; id: string }>,
): Promise<{ rows: GroupRow[]; total: number }> {
  const base = () => groupsMatching(db, tenantId, by);
  const total = await base().count({ n: '*' }).first();
  const rows = await keysetPage(base().select('g.*'), page, byCreated('g.'), 'asc');
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
    seq: num(r.id),
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

/* Group writes of the wider SQS API (CONTRACT §5): renaming a group, changing member quotas, removing several members. */

/** Whether the owner has another group (not `exceptId`) with that name. */
export async function ownerHasGroupNamed(
  db: Knex,
  tenantId: number,
  ownerMsisdn: string,
  name: string,
  exceptId: string,
): Promise<boolean> {
  const r = await db('sharing_groups')
    .select('id')
    .where({ tenant_id: tenantId, owner_msisdn: ownerMsisdn, name })
    .whereNot({ id: exceptId })
    .first();
  return r !== undefined;
}

/** Renames a group and sets its `updated` (epoch ms). */
export async function renameGroup(db: Knex, id: string, name: string, nowMs: number): Promise<void> {
  await db('sharing_groups').where({ id }).update({ name, updated_at: nowMs });
}

/** Sets a member's quota and touches the group's `updated` (epoch ms). */
export async function updateMemberQuota(
  db: Knex,
  groupId: string,
  memberMsisdn: string,
  quota: number,
  nowMs: number,
): Promise<void> {
  await db('group_members').where({ group_id: groupId, member_msisdn: memberMsisdn }).update({ quota });
  await db('sharing_groups').where({ id: groupId }).update({ updated_at: nowMs });
}

/** Removes those of `memberMsisdns` that are members; touches `updated` when any was. Returns how many. */
export async function deleteMembers(
  db: Knex,
  groupId: string,
  memberMsisdns: readonly string[],
  nowMs: number,
): Promise<number> {
  if (!memberMsisdns.length) return 0;
  const n = await db('group_members')
    .where({ group_id: groupId })
    .whereIn('member_msisdn', [...memberMsisdns])
    .delete();
  if (n) await db('sharing_groups').where({ id: groupId }).update({ updated_at: nowMs });
  return n;
}
