import { Knex } from 'knex';

/**
 * Galera clusters: `row_version` on rows that transactions lock without otherwise writing.
 * On a Galera cluster `SELECT … FOR UPDATE` locks only on the node that runs it, and
 * certification compares only the rows a transaction writes; a transaction that must exclude
 * others on the same row (a member addition checking the group's size) bumps this column
 * (see certifiedLock in src/db/knex.ts), so two nodes' conflicting transactions fail
 * certification and one reruns. Every table already has a primary key (Galera needs one).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('sharing_groups', (t) => {
    t.bigInteger('row_version').notNullable().defaultTo(0);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('sharing_groups', (t) => {
    t.dropColumn('row_version');
  });
}
