import { Knex } from 'knex';

/**
 * Charging data records (CDRs, CONTRACT §8): one row per donation step, group or member
 * change, recurring donation change (the SQS CDRs with service IDs 96, 98, 99) and rating or
 * refund outcome (the gateway's charging CDR, service ID 200). Written in the transaction of the
 * change they record. `id` orders the rows of one change (a donation's steps) and is the export
 * cursor; `created_at` is epoch milliseconds; `record_id` is the layout's first field (donation
 * id, group id, recurring donation id, operationId); `fields` the layout's other fields as JSON.
 * Exports read by tenant, type and time.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('cdrs', (t) => {
    t.bigIncrements('id').primary();
    t.integer('tenant_id').unsigned().notNullable().references('id').inTable('tenants');
    t.string('type', 24).notNullable();
    t.integer('service_id').notNullable();
    t.integer('transaction_type').notNullable();
    t.bigInteger('created_at').notNullable();
    t.string('actor', 128).notNullable();
    t.integer('actor_cause').nullable();
    t.string('record_id', 128).notNullable();
    t.text('fields').notNullable();
    t.index(['tenant_id', 'type', 'created_at', 'id'], 'cdrs_tenant_type_time');
    t.index(['type', 'created_at', 'id'], 'cdrs_type_time');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('cdrs');
}
