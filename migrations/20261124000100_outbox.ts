import { Knex } from 'knex';

/**
 * The transactional outbox (README "Events"): one row per event, written in the same transaction
 * as the change it describes, so that nothing is published that was not committed.
 *
 * - `seq`: insertion order. Changes to one subject (a subscriber's balance, a plan's quota, a
 *   group) are serialised by the subject row's lock before their event is inserted, so `seq`
 *   follows commit order per subject; the relay and the subscription feed read in `seq` order.
 * - `event_id`: the event's public id, a ULID (26 characters, sortable by creation time), used as
 *   the AMQP `message_id` for consumers to deduplicate.
 * - `type`: the event type, such as `charge.completed` (routing key `<tenant>.<type>`).
 * - `subject`: the msisdn or group id the event is about (order is kept per subject).
 * - `payload`: the event's JSON document.
 * - `created_at` / `published_at`: epoch milliseconds; `published_at` is null until the broker
 *   confirmed the message.
 *
 * `outbox_relay_lease`: the single row (`name` = `relay`) naming the gateway instance that relays
 * the outbox to RabbitMQ now, and until when (epoch ms).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('outbox_events', (t) => {
    t.bigIncrements('seq').primary();
    t.string('event_id', 26).notNullable().unique();
    t.integer('tenant_id').unsigned().notNullable().references('id').inTable('tenants');
    t.string('type', 64).notNullable();
    t.string('subject', 64).notNullable();
    t.text('payload', 'mediumtext').notNullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('published_at');
    t.index(['published_at', 'seq']);
    t.index(['tenant_id', 'seq']);
  });
  // The relay lease: one row; the instance named in `holder` relays until
  // `expires_at` (epoch ms) and renews it before every batch, so one relay at a time publishes
  // and order per subject holds across instances.
  await knex.schema.createTable('outbox_relay_lease', (t) => {
    t.string('name', 32).primary();
    t.string('holder', 64);
    t.bigInteger('expires_at').notNullable();
  });
  await knex('outbox_relay_lease').insert({ name: 'relay', holder: null, expires_at: 0 });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('outbox_relay_lease');
  await knex.schema.dropTableIfExists('outbox_events');
}
