import { Knex } from 'knex';

/**
 * The captive portal (docs/portal.md): a plan definition with a `price_micros` (BIGINT
 * micro-units of the subscriber's currency, as every money column; null: not on offer) is offered
 * in its tenant's portal; a tenant's portal branding (display name, primary colour `#rrggbb`,
 * logo URL), each null for the default; a token's `expiry_recorded_at` (epoch milliseconds), set
 * by the first validation that finds it expired, which writes its one token CDR "expire".
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('plan_definitions', (t) => {
    t.bigInteger('price_micros').nullable();
  });
  await knex.schema.alterTable('tenants', (t) => {
    t.string('portal_display_name', 128).nullable();
    t.string('portal_primary_color', 7).nullable();
    t.string('portal_logo_url', 1024).nullable();
  });
  await knex.schema.alterTable('tokens', (t) => {
    t.bigInteger('expiry_recorded_at').nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('tokens', (t) => {
    t.dropColumn('expiry_recorded_at');
  });
  await knex.schema.alterTable('tenants', (t) => {
    t.dropColumn('portal_logo_url');
    t.dropColumn('portal_primary_color');
    t.dropColumn('portal_display_name');
  });
  await knex.schema.alterTable('plan_definitions', (t) => {
    t.dropColumn('price_micros');
  });
}
