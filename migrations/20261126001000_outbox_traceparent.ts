import { Knex } from 'knex';

/**
 * Tracing (docs/platform.md "Tracing"): an outbox event's `traceparent`, the W3C trace
 * context (55 characters, `00-<trace id>-<span id>-<flags>`) of the request whose change
 * recorded it, or null when tracing was off. The relay publishes the event in a span whose
 * parent it names, so the publication joins the request's trace although it happens later.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('outbox_events', (t) => {
    t.string('traceparent', 55).nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('outbox_events', (t) => {
    t.dropColumn('traceparent');
  });
}
