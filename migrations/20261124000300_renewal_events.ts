import { Knex } from 'knex';

/**
 * Plan-renewal events already applied (README "Plan-renewal events"): one row per event id consumed from the
 * renewal queue, inserted in the same transaction as the renewal it caused. The primary key is
 * what makes a renewal happen exactly once per event id: a redelivered event (or the same event
 * taken by a second gateway) fails to insert its row and is acknowledged without renewing.
 *
 * - `event_id`: the producer's event id (1-128 characters, compared exactly).
 * - `tenant_id` / `subscriber_plan_id`: the plan the event renewed.
 * - `renewed_at`: the producer's renewal time, epoch seconds.
 * - `donation_id`: the recurring donation the renewal executed (`donations.id`), if any.
 * - `processed_at`: when the renewal committed, epoch milliseconds (the gateway's clock).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('renewal_events', (t) => {
    t.string('event_id', 128).notNullable().primary().collate('ascii_bin');
    t.integer('tenant_id').unsigned().notNullable().references('id').inTable('tenants');
    t.integer('subscriber_plan_id').unsigned().notNullable();
    t.bigInteger('renewed_at').notNullable();
    t.string('donation_id', 64);
    t.bigInteger('processed_at').notNullable();
    t.index(['tenant_id', 'subscriber_plan_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('renewal_events');
}
