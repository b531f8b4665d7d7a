import { Knex } from 'knex';

/**
 * Failed-login counters (brute-force throttling, HTTP 429): one row per throttle key,
 * `user:<username>` or `address:<client address>`, shared by every instance on the database.
 * `failures` counts the attempts of the window that began at `window_start` (epoch
 * milliseconds); a window older than AUTH_WINDOW_SECONDS starts over at the next failure.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('login_failures', (t) => {
    // Usernames are compared exactly, as api_clients.username is (MySQL/MariaDB collation; SQLite
    // compares bytewise and knex ignores the collation there).
    t.string('throttle_key', 320).notNullable().primary().collate('utf8mb4_bin');
    t.integer('failures').notNullable();
    t.bigInteger('window_start').notNullable();
    t.index(['window_start']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('login_failures');
}
