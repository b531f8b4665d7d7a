import { Knex } from 'knex';

/**
 * Start-up time: `api_clients.demo_password_check`, the fingerprint a production
 * start records once it has found a client's stored password hash not to be a published demo
 * password (see demoPasswordCheckOf in src/server.ts), so that later starts run scrypt only for
 * clients whose hash changed since. NULL: not checked yet.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('api_clients', (t) => {
    t.string('demo_password_check', 64).nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('api_clients', (t) => {
    t.dropColumn('demo_password_check');
  });
}
