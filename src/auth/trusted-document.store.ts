import { createHash } from 'node:crypto';
import { Knex } from 'knex';
import { LRUCache } from 'lru-cache';

/** The kinds of operation a trusted document holds (the manifest's `type`). */
export type TrustedDocumentType = 'query' | 'mutation' | 'subscription';

/** One operation of an Apollo persisted query manifest, as stored for a client. */
export interface TrustedDocument {
  /** SHA-256 of `body`, 64 lowercase hex characters (the persisted query id on the wire). */
  id: string;
  /** The operation's name, as the manifest gives it. */
  name: string;
  type: TrustedDocumentType;
  /** The GraphQL document, exactly as the manifest gives it. */
  body: string;
}

/**
 * An API client's trusted documents (docs/graphql.md "Trusted documents") as the request path
 * looks them up: the body of a document id, and whether a document sent in full is listed
 * (by its exact text, which is the same as comparing its SHA-256 with the ids).
 */
export interface TrustedDocumentList {
  /** The digest the list is stored under ({@link trustedDocumentsVersion}). */
  version: string;
  /** Document body by id. */
  byId: ReadonlyMap<string, string>;
  /** The set of document bodies. */
  bodies: ReadonlySet<string>;
}

/**
 * The digest of a list (64 hex characters) stored on the client row
 * (`api_clients.trusted_documents_version`): over each document's id, name and type in id
 * order, so the same manifest in any order has the same version, and any change another.
 */
export function trustedDocumentsVersion(docs: readonly TrustedDocument[]): string {
  const h = createHash('sha256');
  for (const d of [...docs].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)))
    h.update(`${d.id}\0${d.name}\0${d.type}\n`);
  return h.digest('hex');
}

/** Lists loaded per database handle, by client id (at most one version each). */
const loaded = new WeakMap<Knex, LRUCache<number, { version: string; list: Promise<TrustedDocumentList> }>>();

/**
 * The trusted documents of client `clientId` stored under `version` (the client row's
 * `trusted_documents_version`; null: the client has none, and nothing is read). A list is read
 * once per version and kept (up to 1,000 clients per database handle), so a client row read
 * again within AUTH_CLIENT_CACHE_MS costs nothing more, and a new version (a re-import) is read
 * when the client row that names it is.
 * @throws the driver's error, DatabaseTimeoutError or DeadlineExceededError (src/db/bound-client.ts).
 */
export function trustedDocumentsOf(
  db: Knex,
  clientId: number,
  version: string | null,
): Promise<TrustedDocumentList | null> {
  if (version === null) return Promise.resolve(null);
  let lists = loaded.get(db);
  if (!lists) loaded.set(db, (lists = new LRUCache({ max: 1000 })));
  const known = lists.get(clientId);
  if (known && known.version === version) return known.list;
  const list = readList(db, clientId, version);
  const entry = { version, list };
  lists.set(clientId, entry);
  // A failed read is not kept: the next request reads again.
  list.catch(() => {
    if (lists.get(clientId) === entry) lists.delete(clientId);
  });
  return list;
}

async function readList(db: Knex, clientId: number, version: string): Promise<TrustedDocumentList> {
  const rows = (await db('trusted_documents')
    .select('document_id', 'body')
    .where({ api_client_id: clientId })) as { document_id: string; body: string }[];
  const byId = new Map<string, string>();
  for (const r of rows) byId.set(r.document_id, r.body);
  return { version, byId, bodies: new Set(byId.values()) };
}

/** Rows per INSERT statement (5 bindings each, under SQLite's 999). */
const INSERT_ROWS = 100;

/**
 * Replaces the trusted documents of client `clientId` by `docs` (null or empty: none) and
 * records their version on the client row, unless the stored version is already theirs. `db`
 * is the import's transaction.
 * @returns true when the stored list changed.
 */
export async function replaceTrustedDocuments(
  db: Knex,
  clientId: number,
  docs: readonly TrustedDocument[] | null,
): Promise<boolean> {
  const version = docs && docs.length > 0 ? trustedDocumentsVersion(docs) : null;
  const row = (await db('api_clients')
    .select('trusted_documents_version')
    .where({ id: clientId })
    .first()) as { trusted_documents_version: string | null } | undefined;
  if ((row?.trusted_documents_version ?? null) === version) return false;
  await db('trusted_documents').where({ api_client_id: clientId }).delete();
  const rows = (docs ?? []).map((d) => ({
    api_client_id: clientId,
    document_id: d.id,
    name: d.name,
    type: d.type,
    body: d.body,
  }));
  for (let i = 0; i < rows.length; i += INSERT_ROWS)
    await db('trusted_documents').insert(rows.slice(i, i + INSERT_ROWS));
  await db('api_clients').where({ id: clientId }).update({ trusted_documents_version: version });
  return true;
}
