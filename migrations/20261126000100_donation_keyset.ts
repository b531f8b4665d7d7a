import { Knex } from 'knex';

/**
 * Donations as a Relay connection (CONTRACT §7): a donor's donations are read a page at a time in
 * list order, newest first, ties by id (`created_at DESC, id DESC`), past a cursor's
 * `(created_at, id)`. The index on (tenant, donor, created_at, id) serves each page as one range
 * read in index order, whatever the donor's history, with no sort of its donations. It replaces
 * the (tenant, donor) index, a prefix of it.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('donations', (t) => {
    t.index(['tenant_id', 'donor_msisdn', 'created_at', 'id'], 'donations_donor_keyset_index');
  });
  await knex.schema.alterTable('donations', (t) => {
    t.dropIndex(['tenant_id', 'donor_msisdn']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('donations', (t) => {
    t.index(['tenant_id', 'donor_msisdn']);
  });
  await knex.schema.alterTable('donations', (t) => {
    t.dropIndex(['tenant_id', 'donor_msisdn', 'created_at', 'id'], 'donations_donor_keyset_index');
  });
}
