import { Knex } from 'knex';

/**
 * Foundation tables (CONTRACT §2-§3): tenants, API clients, captive-portal tokens, subscribers.
 * Money columns are BIGINT micro-units (see src/lib/money.ts); times are epoch milliseconds
 * unless the column name says seconds.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('tenants', (t) => {
    t.increments('id').primary();
    t.string('name', 64).notNullable().unique();
    t.bigInteger('created_at').notNullable();
  });

  await knex.schema.createTable('api_clients', (t) => {
    t.increments('id').primary();
    t.integer('tenant_id').unsigned().notNullable().references('id').inTable('tenants');
    t.string('username', 128).notNullable().unique();
    t.string('password_hash', 255).notNullable();
    t.string('permissions', 1024).notNullable().defaultTo('');
    t.boolean('enabled').notNullable().defaultTo(true);
    t.bigInteger('created_at').notNullable();
    t.bigInteger('updated_at').notNullable();
  });

  await knex.schema.createTable('tokens', (t) => {
    t.bigIncrements('id').primary();
    t.integer('tenant_id').unsigned().notNullable().references('id').inTable('tenants');
    t.string('token_hash', 64).notNullable().unique();
    t.string('msisdn', 15).notNullable();
    t.integer('api_client_id').unsigned().notNullable().references('id').inTable('api_clients');
    t.bigInteger('issued_at').notNullable();
    t.bigInteger('expires_at_seconds').notNullable();
    t.bigInteger('revoked_at');
    t.index(['tenant_id', 'msisdn']);
  });

  await knex.schema.createTable('subscribers', (t) => {
    t.increments('id').primary();
    t.integer('tenant_id').unsigned().notNullable().references('id').inTable('tenants');
    t.string('msisdn', 15).notNullable();
    t.string('status', 16).notNullable();
    t.string('payment_type', 16).notNullable();
    t.bigInteger('balance_micros').notNullable().defaultTo(0);
    t.string('currency', 3).notNullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('updated_at').notNullable();
    t.unique(['tenant_id', 'msisdn']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['subscribers', 'tokens', 'api_clients', 'tenants']) {
    await knex.schema.dropTableIfExists(table);
  }
}
