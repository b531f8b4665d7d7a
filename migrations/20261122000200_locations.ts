import { Knex } from 'knex';

/**
 * PCRF location tables (CONTRACT §6): locations with their rates, infos and profiles,
 * and location info types. All tenant-scoped; names unique per tenant (locations, infos, info
 * types) or per location (rates, profiles). Children go with their location.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('location_info_types', (t) => {
    t.increments('id').primary();
    t.integer('tenant_id').unsigned().notNullable().references('id').inTable('tenants');
    t.string('name', 64).notNullable();
    t.integer('value').notNullable();
    t.unique(['tenant_id', 'name']);
  });

  await knex.schema.createTable('locations', (t) => {
    t.increments('id').primary();
    t.integer('tenant_id').unsigned().notNullable().references('id').inTable('tenants');
    t.string('name', 255).notNullable();
    t.string('description', 1024);
    t.unique(['tenant_id', 'name']);
  });

  await knex.schema.createTable('location_rates', (t) => {
    t.increments('id').primary();
    t.integer('location_id')
      .unsigned()
      .notNullable()
      .references('id')
      .inTable('locations')
      .onDelete('CASCADE');
    t.string('name', 255).notNullable();
    t.string('description', 1024);
    t.integer('location_rate').notNullable();
    t.unique(['location_id', 'name']);
  });

  await knex.schema.createTable('location_infos', (t) => {
    t.increments('id').primary();
    t.integer('tenant_id').unsigned().notNullable().references('id').inTable('tenants');
    t.integer('location_id')
      .unsigned()
      .notNullable()
      .references('id')
      .inTable('locations')
      .onDelete('CASCADE');
    t.integer('type_id').unsigned().notNullable().references('id').inTable('location_info_types');
    t.string('name', 255).notNullable();
    t.string('description', 1024);
    t.string('value', 255).notNullable();
    t.unique(['tenant_id', 'name']);
    t.index(['location_id']);
  });

  await knex.schema.createTable('location_profiles', (t) => {
    t.increments('id').primary();
    t.integer('location_id')
      .unsigned()
      .notNullable()
      .references('id')
      .inTable('locations')
      .onDelete('CASCADE');
    t.string('name', 255).notNullable();
    t.string('description', 1024);
    t.unique(['location_id', 'name']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of [
    'location_profiles',
    'location_infos',
    'location_rates',
    'locations',
    'location_info_types',
  ]) {
    await knex.schema.dropTableIfExists(table);
  }
}
