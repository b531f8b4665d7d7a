import { Knex } from 'knex';

/**
 * Per-tenant data versions: one counter per (tenant, data set), bumped in the same transaction as
 * every write to that data set, so every gateway instance sharing the database reads the same
 * version. The REST location lists derive their `ETag` from it (docs/platform.md) without
 * reading the list. No row means version 0 (nothing written through the gateway yet).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('data_versions', (t) => {
    t.integer('tenant_id').unsigned().notNullable().references('id').inTable('tenants');
    t.string('name', 32).notNullable();
    t.bigInteger('version').unsigned().notNullable();
    t.primary(['tenant_id', 'name']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('data_versions');
}
