import { Knex } from 'knex';

/**
 * Per-client rate limits (docs/operations.md "Rate limits"): an API client's own limit and its
 * tenant's default for clients without one, each as requests per second (a positive number,
 * fractions allowed) and a burst (whole requests taken at once); both null: no limit.
 */
export async function up(knex: Knex): Promise<void> {
  for (const table of ['tenants', 'api_clients'])
    await knex.schema.alterTable(table, (t) => {
      t.double('rate_limit_rps').nullable();
      t.integer('rate_limit_burst').nullable();
    });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['api_clients', 'tenants'])
    await knex.schema.alterTable(table, (t) => {
      t.dropColumn('rate_limit_burst');
      t.dropColumn('rate_limit_rps');
    });
}
