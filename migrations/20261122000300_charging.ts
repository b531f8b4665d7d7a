import { Knex } from 'knex';

/**
 * Charging tables (CONTRACT §4): the rating catalogue and the charge ledger.
 * Wildcard lookup keys are stored as `*` so the unique key covers them. Amounts are BIGINT
 * micro-units. A ledger row records every decided rating/refund outcome once per
 * (tenant, kind, operationId): the unique key is what makes charging exactly-once.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('ratings', (t) => {
    t.increments('id').primary();
    t.integer('tenant_id').unsigned().notNullable().references('id').inTable('tenants');
    t.string('provider_id', 64).notNullable();
    t.string('application_id', 64).notNullable();
    t.string('service_id', 64).notNullable().defaultTo('*');
    t.string('origin_id', 64).notNullable().defaultTo('*');
    t.string('bundle_id', 64).notNullable().defaultTo('*');
    t.string('kind', 16).notNullable();
    t.bigInteger('retail_micros').notNullable();
    t.bigInteger('tax_micros').notNullable();
    t.bigInteger('updated_at').notNullable();
    t.unique(['tenant_id', 'provider_id', 'application_id', 'service_id', 'origin_id', 'bundle_id', 'kind'], {
      indexName: 'ratings_natural_key',
    });
  });

  await knex.schema.createTable('charges', (t) => {
    t.bigIncrements('id').primary();
    t.integer('tenant_id').unsigned().notNullable().references('id').inTable('tenants');
    t.string('kind', 16).notNullable();
    t.string('operation_id', 128).notNullable();
    t.string('msisdn', 15).notNullable();
    t.string('fingerprint', 64);
    t.integer('return_code').notNullable();
    t.bigInteger('amount_micros').notNullable().defaultTo(0);
    t.bigInteger('balance_after_micros');
    t.string('currency', 3);
    t.string('reason', 255);
    t.bigInteger('created_at').notNullable();
    t.unique(['tenant_id', 'kind', 'operation_id']);
    t.index(['tenant_id', 'msisdn', 'id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('charges');
  await knex.schema.dropTableIfExists('ratings');
}
