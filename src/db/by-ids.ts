import { Knex } from 'knex';

/**
 * The rows of `table` with these row ids in one tenant, in one statement
 * (`select * from <table> where tenant_id = ? and id in (…)`): in no particular order, the ids
 * that name no row of that tenant (another tenant's included) missing. No ids: nothing is read.
 * The batches behind `nodes(ids:)` (docs/graphql.md "Batched"); `ids` holds at most a page of
 * them (src/graphql/relay.ts `PAGE_SIZE_MAX`).
 */
export async function tenantRowsByIds(
  db: Knex,
  table: string,
  tenantId: number,
  ids: readonly number[],
): Promise<Record<string, unknown>[]> {
  if (ids.length === 0) return [];
  return (await db(table).select('*').where({ tenant_id: tenantId }).whereIn('id', ids)) as Record<
    string,
    unknown
  >[];
}
