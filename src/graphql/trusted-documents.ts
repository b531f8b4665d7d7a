import type { Context } from 'koa';
import type { ApiClient } from '../auth/client.store';
import { GatewayContext } from './context';

/** `extensions.persistedQuery` of an operation, when it is an object. */
export type PersistedQueryExtension = { version?: unknown; sha256Hash?: unknown };

/**
 * `extensions.code` of a persisted query id that is not in a trusted-documents-only client's
 * list (the code Apollo's GraphOS Router answers for an id outside its persisted query list).
 */
export const PERSISTED_QUERY_NOT_IN_LIST = 'PERSISTED_QUERY_NOT_IN_LIST';

/**
 * `extensions.code` of a document sent in full that is not in a trusted-documents-only client's
 * list (the code Apollo's GraphOS Router answers for an operation body outside its safelist).
 */
export const QUERY_NOT_IN_SAFELIST = 'QUERY_NOT_IN_SAFELIST';

/** A refusal of the request before anything is parsed: answered HTTP 400 with this one error. */
export interface TrustedDocumentRefusal {
  message: string;
  extensions: { code: typeof PERSISTED_QUERY_NOT_IN_LIST | typeof QUERY_NOT_IN_SAFELIST };
}

/** The document and persisted query id a `/graphql` request carries, and how to replace them. */
interface CarriedOperation {
  /** The `query` text; undefined when absent or null (an APQ request by id). */
  query: string | undefined;
  /** `extensions.persistedQuery`, when it is an object. */
  persisted: PersistedQueryExtension | undefined;
  /** Sends `document` as the request's `query`, without the `persistedQuery` extension. */
  useDocument(document: string): void;
}

/**
 * Trusted documents on `/graphql` (docs/graphql.md "Trusted documents"), applied to a request of
 * an authenticated API client once its context exists, before anything is parsed:
 * - a request by persisted query id (Apollo's APQ wire: `extensions.persistedQuery` version 1
 *   with `sha256Hash` and no `query`) whose id is in the client's list gets the listed document
 *   as its `query`, and loses the `persistedQuery` extension (so the document runs as one sent in
 *   full, and is not registered in Apollo's APQ cache, which every client shares);
 * - for a client flagged `trustedDocumentsOnly`, a request by an id not in its list is refused
 *   with {@link PERSISTED_QUERY_NOT_IN_LIST}, and a document sent in full that is not in its list
 *   (compared by its exact text, which is comparing its SHA-256 with the ids) with
 *   {@link QUERY_NOT_IN_SAFELIST}; introspection is no exception;
 * - everything else is left as it is: an unknown id from another client keeps Apollo's APQ
 *   behaviour (`PERSISTED_QUERY_NOT_FOUND`, then registration), requests without an API client
 *   (no or bad credentials, a subscriber token) meet the credentials check as before, and a
 *   request Apollo refuses anyway (no document, a batch, a `query` that is not a string, an
 *   unsupported persisted query version) is left to Apollo.
 * The client's list comes with its row (src/auth/client.store.ts), so a re-import is seen
 * within AUTH_CLIENT_CACHE_MS. May rewrite the request's body (POST) or query string (GET).
 * @returns the refusal to answer (HTTP 400), or undefined to go on.
 */
export function applyTrustedDocuments(
  ctx: Context,
  gctx: GatewayContext,
): TrustedDocumentRefusal | undefined {
  const client = gctx.client;
  if (!client || (!client.trustedDocuments && !client.trustedDocumentsOnly)) return undefined;
  const op = carriedOperation(ctx);
  if (!op) return undefined;
  const decision = trustedDocumentDecision(client, op.query, op.persisted);
  if (decision && 'document' in decision) op.useDocument(decision.document);
  return decision && 'refusal' in decision ? decision.refusal : undefined;
}

/**
 * The trusted-documents rule of one operation of `client` (docs/graphql.md "Trusted documents"),
 * shared by `/graphql` over HTTP ({@link applyTrustedDocuments}) and graphql-ws subscriptions
 * (src/graphql/subscriptions.ts): `query` is the document sent in full (undefined when the
 * operation is sent by id), `persisted` the `extensions.persistedQuery` object, if any.
 * @returns `{ document }` to run the listed document of a persisted query id of the client's list;
 *   `{ refusal }` for an unlisted id or document of a trusted-documents-only client; undefined to
 *   go on unchanged.
 */
export function trustedDocumentDecision(
  client: Pick<ApiClient, 'trustedDocuments' | 'trustedDocumentsOnly'>,
  query: string | undefined,
  persisted: PersistedQueryExtension | undefined,
): { document: string } | { refusal: TrustedDocumentRefusal } | undefined {
  const list = client.trustedDocuments;
  if (query === undefined) {
    const hash = persisted?.sha256Hash;
    if (persisted?.version !== 1 || typeof hash !== 'string') return undefined;
    const document = list?.byId.get(hash);
    if (document !== undefined) return { document };
    if (!client.trustedDocumentsOnly) return undefined;
    return {
      refusal: {
        message: `persisted query ${hash} is not in this client's trusted documents`,
        extensions: { code: PERSISTED_QUERY_NOT_IN_LIST },
      },
    };
  }
  if (!client.trustedDocumentsOnly || list?.bodies.has(query)) return undefined;
  return { refusal: notInSafelist() };
}

function notInSafelist(): TrustedDocumentRefusal {
  return {
    message:
      "the operation is not in this client's trusted documents: send a listed document, or its id " +
      '(extensions.persistedQuery.sha256Hash)',
    extensions: { code: QUERY_NOT_IN_SAFELIST },
  };
}

/**
 * True when a `/graphql` request carries an operation (a `query` or `extensions`): in the
 * query string of a GET, in the JSON body otherwise. The route creates such a request's context
 * before Apollo does, to apply {@link applyTrustedDocuments}; other requests (the explorer's
 * page in a browser) reach Apollo as before.
 */
export function carriesOperation(ctx: Context): boolean {
  if (ctx.method === 'GET') return ctx.query.query !== undefined || ctx.query.extensions !== undefined;
  const body = ctx.request.body as Record<string, unknown> | undefined;
  return isObject(body) && (body.query != null || body.extensions != null);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * The operation a request carries as Apollo reads it (GET: the query string's `query` and JSON
 * `extensions`; other methods: the JSON body's), or undefined when it carries none Apollo would
 * run (then Apollo answers it).
 */
function carriedOperation(ctx: Context): CarriedOperation | undefined {
  if (ctx.method === 'GET') {
    const params = new URLSearchParams(ctx.querystring);
    const query = params.get('query');
    let extensions: unknown;
    try {
      extensions = JSON.parse(params.get('extensions') ?? 'null');
    } catch {
      return undefined;
    }
    return {
      query: query ?? undefined,
      persisted: persistedOf(extensions),
      useDocument(document) {
        params.set('query', document);
        const rest = withoutPersisted(extensions);
        if (rest) params.set('extensions', JSON.stringify(rest));
        else params.delete('extensions');
        ctx.querystring = params.toString();
      },
    };
  }
  const body = ctx.request.body as Record<string, unknown> | undefined;
  if (!isObject(body)) return undefined;
  if (body.query != null && typeof body.query !== 'string') return undefined;
  return {
    query: (body.query as string | null | undefined) ?? undefined,
    persisted: persistedOf(body.extensions),
    useDocument(document) {
      body.query = document;
      const rest = withoutPersisted(body.extensions);
      if (rest) body.extensions = rest;
      else delete body.extensions;
    },
  };
}

/** `extensions.persistedQuery` of an operation's `extensions`, when both are objects. */
export function persistedOf(extensions: unknown): PersistedQueryExtension | undefined {
  if (!isObject(extensions)) return undefined;
  const p = extensions.persistedQuery;
  return isObject(p) ? p : undefined;
}

/** `extensions` without `persistedQuery`; undefined when nothing else remains. */
function withoutPersisted(extensions: unknown): Record<string, unknown> | undefined {
  if (!isObject(extensions)) return undefined;
  const { persistedQuery: _persisted, ...rest } = extensions;
  return Object.keys(rest).length > 0 ? rest : undefined;
}
