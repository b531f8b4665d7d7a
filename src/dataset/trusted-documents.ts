import { createHash } from 'node:crypto';
import { Knex } from 'knex';
import { TrustedDocument, replaceTrustedDocuments } from '../auth/trusted-document.store';
import { parseBounded } from '../graphql/document-limits';
import { DatasetError } from './dataset-error';

/** The `format` of an Apollo persisted query manifest (`@apollo/generate-persisted-query-manifest`). */
export const MANIFEST_FORMAT = 'apollo-persisted-query-manifest';

/** Longest document body a manifest may hold, in characters. */
export const MAX_TRUSTED_DOCUMENT_CHARS = 1_000_000;

/** Most operations one client's manifest may hold. */
export const MAX_TRUSTED_DOCUMENTS = 10_000;

/**
 * JSON Schema of a client's `trustedDocuments` (docs/graphql.md "Trusted documents"): an Apollo
 * persisted query manifest, inline; null removes the client's list.
 */
export const TRUSTED_DOCUMENTS_SCHEMA = {
  type: ['object', 'null'],
  additionalProperties: false,
  required: ['format', 'version', 'operations'],
  properties: {
    format: { const: MANIFEST_FORMAT },
    version: { const: 1 },
    operations: {
      type: 'array',
      maxItems: MAX_TRUSTED_DOCUMENTS,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['id', 'name', 'type', 'body'],
        properties: {
          id: { type: 'string', pattern: '^[0-9a-f]{64}$' },
          name: { type: 'string', maxLength: 255 },
          type: { enum: ['query', 'mutation', 'subscription'] },
          body: { type: 'string', minLength: 1, maxLength: MAX_TRUSTED_DOCUMENT_CHARS },
        },
      },
    },
  },
} as const;

/** An Apollo persisted query manifest, as a dataset client's `trustedDocuments` holds it. */
export interface PersistedQueryManifest {
  format: typeof MANIFEST_FORMAT;
  version: 1;
  operations: TrustedDocument[];
}

/**
 * Checks a manifest the JSON Schema accepted, at `path` (`$.clients[0].trustedDocuments`): every
 * operation's `id` is the SHA-256 (lowercase hex) of its `body`, no id appears twice, and every
 * body is a GraphQL document within the nesting and token bounds of `/graphql`
 * (src/graphql/document-limits.ts). Whether it is valid against the schema is checked when it
 * runs, as for any document.
 * @throws DatasetError naming the first offending operation's field.
 */
export function checkManifest(manifest: PersistedQueryManifest, path: string): void {
  const seen = new Set<string>();
  manifest.operations.forEach((op, j) => {
    const at = `${path}.operations[${j}]`;
    if (createHash('sha256').update(op.body).digest('hex') !== op.id)
      throw new DatasetError(`${at}.id`, 'is not the SHA-256 (lowercase hex) of the operation body');
    if (seen.has(op.id))
      throw new DatasetError(`${at}.id`, 'duplicates an earlier operation of the manifest');
    seen.add(op.id);
    try {
      parseBounded(op.body);
    } catch (err) {
      throw new DatasetError(`${at}.body`, `is not a GraphQL document: ${(err as Error).message}`);
    }
  });
}

/**
 * Stores a client's trusted documents from its dataset row (in the import's transaction):
 * absent leaves the stored list as it is, null or a manifest replaces it (null: none).
 * @returns true when the stored list changed.
 */
export async function importTrustedDocuments(
  trx: Knex,
  clientId: number,
  manifest: PersistedQueryManifest | null | undefined,
): Promise<boolean> {
  if (manifest === undefined) return false;
  return replaceTrustedDocuments(trx, clientId, manifest?.operations ?? null);
}
