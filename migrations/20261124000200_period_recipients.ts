import { Knex } from 'knex';

/**
 * Donation speed: the distinct recipients of a subscriber plan in its current period, kept
 * so that the CONTRACT §5 `maxRecipients` check and the `MAX_PLANS_PER_SUBSCRIBER` check no
 * longer read the period's allowance rows (which grow with every donation).
 *
 * - `plan_period_recipients` (donor plan, period, recipient MSISDN): one row per recipient that
 *   received an allowance from the plan in that period; the primary key makes it distinct. A
 *   renewal deletes the plan's rows of earlier periods, so the table holds at most
 *   `maxRecipients` rows per plan. Indexed by (tenant, recipient) for the plan count of a
 *   recipient (donor plans it received from in their current periods).
 * - `subscriber_plans.recipients_in_period`: how many rows the plan has in its current period
 *   (read with the locked plan row, so the check is O(1)); a renewal sets it back to 0.
 *
 * Backfill: the distinct (plan, period, recipient) of the allowances in each plan's current
 * period, and the counter from them, so an upgraded database keeps refusing what it refused.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('plan_period_recipients', (t) => {
    t.integer('donor_plan_id').unsigned().notNullable().references('id').inTable('subscriber_plans');
    t.integer('period').notNullable();
    t.string('recipient_msisdn', 15).notNullable();
    t.integer('tenant_id').unsigned().notNullable();
    t.primary(['donor_plan_id', 'period', 'recipient_msisdn']);
    t.index(['tenant_id', 'recipient_msisdn']);
  });
  await knex.schema.alterTable('subscriber_plans', (t) => {
    t.integer('recipients_in_period').notNullable().defaultTo(0);
  });
  await knex.raw(
    `INSERT INTO plan_period_recipients (donor_plan_id, period, recipient_msisdn, tenant_id)
     SELECT DISTINCT a.donor_plan_id, a.period, a.recipient_msisdn, a.tenant_id
     FROM allowances a JOIN subscriber_plans p ON p.id = a.donor_plan_id AND p.period = a.period`,
  );
  await knex.raw(
    `UPDATE subscriber_plans SET recipients_in_period = (
       SELECT COUNT(*) FROM plan_period_recipients r
       WHERE r.donor_plan_id = subscriber_plans.id AND r.period = subscriber_plans.period)`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('plan_period_recipients');
  // Native DROP COLUMN on both dialects: knex's SQLite emulation rebuilds the table, which the
  // foreign keys of allowances and donations to subscriber_plans refuse.
  await knex.raw('ALTER TABLE subscriber_plans DROP COLUMN recipients_in_period');
}
