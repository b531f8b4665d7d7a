import { Knex } from 'knex';

/** The `data_versions` name of the location tables (locations, rates, infos, info types, profiles). */
const LOCATIONS = 'locations';

/**
 * Bumps the tenant's location data version by one, within `db` (pass the transaction of the
 * write, so the new version commits with the data or not at all). Every gateway instance reads
 * the same counter: the version lives in the database, not in the process. The first bump
 * inserts version 1 (an upsert; on MySQL/MariaDB `ON DUPLICATE KEY UPDATE`).
 */
export async function bumpLocationVersion(db: Knex, tenantId: number): Promise<void> {
  await db('data_versions')
    .insert({ tenant_id: tenantId, name: LOCATIONS, version: 1 })
    .onConflict(['tenant_id', 'name'])
    .merge({ version: db.raw('?? + 1', ['data_versions.version']) });
}

/**
 * The tenant's location data version: a non-negative integer that changes with every committed
 * write to its location tables; 0 before the first. One primary-key read.
 */
export async function locationVersion(db: Knex, tenantId: number): Promise<number> {
  const row = await db('data_versions').first('version').where({ tenant_id: tenantId, name: LOCATIONS });
  return row ? Number(row.version) : 0;
}
