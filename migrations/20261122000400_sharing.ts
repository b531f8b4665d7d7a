import { Knex } from 'knex';

/**
 * Quota-sharing tables (CONTRACT §5). Quotas and amounts are integers in the plan's
 * unit (bytes, seconds or credit minor units). `period` counts plan renewals: donations and
 * allowances belong to the period they were made in.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('plan_definitions', (t) => {
    t.increments('id').primary();
    t.integer('tenant_id').unsigned().notNullable().references('id').inTable('tenants');
    t.string('name', 128).notNullable();
    t.string('unit_metering_type', 16).notNullable();
    t.bigInteger('unit_amount').notNullable();
    t.boolean('shareable').notNullable();
    t.boolean('recurring').notNullable();
    t.string('share_quota_type', 16).notNullable();
    t.integer('max_recipients').notNullable().defaultTo(5);
    t.unique(['tenant_id', 'name']);
  });

  await knex.schema.createTable('subscriber_plans', (t) => {
    t.increments('id').primary();
    t.integer('tenant_id').unsigned().notNullable().references('id').inTable('tenants');
    t.string('msisdn', 15).notNullable();
    t.integer('plan_definition_id').unsigned().notNullable().references('id').inTable('plan_definitions');
    t.bigInteger('remaining').notNullable();
    t.integer('period').notNullable().defaultTo(1);
    t.bigInteger('renewed_at').notNullable();
    t.index(['tenant_id', 'msisdn']);
  });

  await knex.schema.createTable('sharing_groups', (t) => {
    t.string('id', 20).primary();
    t.integer('tenant_id').unsigned().notNullable().references('id').inTable('tenants');
    t.string('owner_msisdn', 15).notNullable();
    t.string('name', 128).notNullable();
    t.string('quota_type', 16);
    t.bigInteger('created_at').notNullable();
    t.bigInteger('updated_at').notNullable();
    t.unique(['tenant_id', 'owner_msisdn', 'name']);
  });

  await knex.schema.createTable('group_members', (t) => {
    t.increments('id').primary();
    t.string('group_id', 20).notNullable().references('id').inTable('sharing_groups').onDelete('CASCADE');
    t.string('member_msisdn', 15).notNullable();
    t.bigInteger('quota').notNullable();
    t.bigInteger('created_at').notNullable();
    t.unique(['group_id', 'member_msisdn']);
    t.index(['member_msisdn']);
  });

  await knex.schema.createTable('recurring_donations', (t) => {
    t.string('id', 20).primary();
    t.integer('tenant_id').unsigned().notNullable().references('id').inTable('tenants');
    t.string('donor_msisdn', 15).notNullable();
    t.integer('donor_plan_id').unsigned().notNullable().references('id').inTable('subscriber_plans');
    t.string('quota_type', 16).notNullable();
    t.string('group_id', 20);
    t.text('recipients');
    t.bigInteger('created_at').notNullable();
    t.unique(['tenant_id', 'donor_plan_id']);
  });

  await knex.schema.createTable('donations', (t) => {
    t.string('id', 20).primary();
    t.integer('tenant_id').unsigned().notNullable().references('id').inTable('tenants');
    t.string('donor_msisdn', 15).notNullable();
    t.integer('donor_plan_id').unsigned().notNullable().references('id').inTable('subscriber_plans');
    t.string('quota_type', 16).notNullable();
    t.string('group_id', 20);
    t.string('recurring_donation_id', 20);
    t.integer('period').notNullable();
    t.integer('error_code').notNullable();
    t.bigInteger('created_at').notNullable();
    t.index(['tenant_id', 'donor_msisdn']);
  });

  await knex.schema.createTable('donation_recipients', (t) => {
    t.increments('id').primary();
    t.string('donation_id', 20).notNullable().references('id').inTable('donations').onDelete('CASCADE');
    t.integer('position').notNullable();
    t.string('recipient_msisdn', 15).notNullable();
    t.bigInteger('quota').notNullable();
    t.bigInteger('granted').notNullable().defaultTo(0);
    t.integer('error_code').notNullable();
  });

  await knex.schema.createTable('allowances', (t) => {
    t.increments('id').primary();
    t.integer('tenant_id').unsigned().notNullable().references('id').inTable('tenants');
    t.string('recipient_msisdn', 15).notNullable();
    t.integer('donor_plan_id').unsigned().notNullable().references('id').inTable('subscriber_plans');
    t.string('donation_id', 20).notNullable().references('id').inTable('donations');
    t.string('unit_metering_type', 16).notNullable();
    t.bigInteger('amount').notNullable();
    t.integer('period').notNullable();
    t.bigInteger('created_at').notNullable();
    t.index(['tenant_id', 'recipient_msisdn']);
    t.index(['donor_plan_id', 'period']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of [
    'allowances',
    'donation_recipients',
    'donations',
    'recurring_donations',
    'group_members',
    'sharing_groups',
    'subscriber_plans',
    'plan_definitions',
  ]) {
    await knex.schema.dropTableIfExists(table);
  }
}
