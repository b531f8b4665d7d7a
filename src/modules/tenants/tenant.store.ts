import { Knex } from 'knex';

/** A tenant row: every row of business data belongs to one (CONTRACT §2). */
export interface Tenant {
  id: number;
  name: string;
}

/** Finds a tenant by name. */
export async function findTenantByName(db: Knex, name: string): Promise<Tenant | undefined> {
  return db('tenants').select('id', 'name').where({ name }).first();
}

/** Inserts the tenant when missing; returns it and whether it was created. */
export async function upsertTenant(
  db: Knex,
  name: string,
  nowMs: number,
): Promise<{ tenant: Tenant; created: boolean }> {
  const existing = await findTenantByName(db, name);
  if (existing) return { tenant: existing, created: false };
  const [id] = await db('tenants').insert({ name, created_at: nowMs });
  return { tenant: { id: Number(id), name }, created: true };
}

/** Number of tenants (an empty database has none). */
export async function countTenants(db: Knex): Promise<number> {
  const row = await db('tenants').count({ n: '*' }).first();
  return Number(row?.n ?? 0);
}
