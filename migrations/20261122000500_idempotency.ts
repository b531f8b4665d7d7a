import { Knex } from 'knex';

/**
 * Idempotency keys (CONTRACT §5 "Idempotency-Key"): one row per (tenant, key). A
 * request claims its key with a `pending` row in a statement of its own; the effect's own
 * transaction turns it `completed` with the result, so a committed effect always has its record.
 * `owner` names the attempt holding the row (a compare-and-swap token for takeovers);
 * `locked_until` is when a `pending` row's owner is presumed dead. Times are epoch milliseconds.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('idempotency_keys', (t) => {
    t.integer('tenant_id').unsigned().notNullable().references('id').inTable('tenants');
    // Keys are compared exactly: a case-insensitive default collation would merge "a" and "A"
    // (MySQL/MariaDB; SQLite compares text bytewise and knex ignores the collation there).
    t.string('idempotency_key', 255).notNullable().collate('ascii_bin');
    t.string('fingerprint', 64).notNullable();
    t.string('state', 16).notNullable();
    t.string('owner', 20).notNullable();
    // The operation's result as JSON (a donation to 100 recipients is a few kB).
    t.text('result', 'mediumtext');
    t.bigInteger('created_at').notNullable();
    t.bigInteger('locked_until').notNullable();
    t.primary(['tenant_id', 'idempotency_key']);
    t.index(['created_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('idempotency_keys');
}
