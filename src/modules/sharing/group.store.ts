import { Knex } from 'knex';

/**
 * Group writes of the wider SQS API (issue 11): renaming a group, changing member quotas,
 * removing several members. Read and insert queries of groups and members live in
 * `sharing.store.ts`. Every function runs on the connection or transaction it is given.
 */

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
