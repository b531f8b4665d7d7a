import { Knex } from 'knex';

/**
 * Trusted documents (docs/graphql.md "Trusted documents"): an API client's list of persisted
 * operations, as the dataset import loads it from an Apollo persisted query manifest: the
 * document id (`document_id`, the SHA-256 of the body, 64 lowercase hex characters), the
 * operation's name and type (query, mutation, subscription) and the GraphQL text (`body`), one
 * row per (client, document id). On the client row: `trusted_documents_only` (true: documents
 * outside the list are refused) and `trusted_documents_version` (a digest of the stored list, 64
 * hex characters, null when the client has none), read with the client so a gateway sees a new
 * list within AUTH_CLIENT_CACHE_MS.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('trusted_documents', (t) => {
    t.increments('id').primary();
    t.integer('api_client_id')
      .unsigned()
      .notNullable()
      .references('id')
      .inTable('api_clients')
      .onDelete('CASCADE');
    t.string('document_id', 64).notNullable();
    t.string('name', 255).nullable();
    t.string('type', 16).notNullable();
    t.text('body', 'mediumtext').notNullable();
    t.unique(['api_client_id', 'document_id']);
  });
  await knex.schema.alterTable('api_clients', (t) => {
    t.boolean('trusted_documents_only').notNullable().defaultTo(false);
    t.string('trusted_documents_version', 64).nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('api_clients', (t) => {
    t.dropColumn('trusted_documents_version');
    t.dropColumn('trusted_documents_only');
  });
  await knex.schema.dropTableIfExists('trusted_documents');
}
