import { ApolloServer } from '@apollo/server';
import { bodyParser } from '@koa/bodyparser';
import Router from '@koa/router';
import coBody from 'co-body';
import type { Context } from 'koa';
import { ServiceUnavailableError } from '../errors';
import { GatewayContext } from '../graphql/context';
import { tracingActive } from '../lib/tracing';
import { GraphqlServer } from './apollo';
import { nestingError } from '../graphql/document-limits';
import { apolloKoa } from '../graphql/koa-apollo';
import { graphqlTimeoutError } from '../graphql/limits';
import { applyTrustedDocuments, carriesOperation } from '../graphql/trusted-documents';
import { BODY_LIMIT_BYTES } from './limits';
import { MakeContext } from './request-context';

/**
 * The `/graphql` route over HTTP (docs/contract.md §7), every method: the JSON body is read first
 * (up to {@link BODY_LIMIT_BYTES}); a body that is too large answers 413, one that is not JSON
 * 400, both as a GraphQL `BAD_REQUEST` error; a document (the body's or the query string's
 * `query`) nesting deeper than the bound is refused unparsed, `QUERY_TOO_COMPLEX`, HTTP 400
 * (src/graphql/document-limits.ts); a request carrying an operation gets its context (credentials
 * checked once) and then its trusted documents applied: a listed persisted query id becomes its
 * document, a trusted-documents-only client's unlisted document is refused, HTTP 400
 * (src/graphql/trusted-documents.ts); then the fast path (src/graphql/fast-path.ts, unless
 * GRAPHQL_FAST_PATH is false or tracing is on) answers an ordinary JSON `POST`, and Apollo every
 * other request and every request the fast path declines, with the same request context. A
 * deadline that passed while authenticating is the GraphQL TIMEOUT (HTTP 504), like any operation
 * past GRAPHQL_TIMEOUT_MS (src/graphql/limits.ts).
 */
export function graphqlRouter(
  { apollo, fastPath: fast }: GraphqlServer,
  makeContext: MakeContext,
  graphqlTimeoutMs: number,
): Router {
  /** A context that cannot be made: a deadline passed while authenticating is the GraphQL TIMEOUT. */
  const contextFailure = (err: unknown): never => {
    if (err instanceof ServiceUnavailableError && err.reason === 'deadline')
      throw graphqlTimeoutError(graphqlTimeoutMs);
    throw err;
  };
  const graphqlContext = async (ctx: Context): Promise<GatewayContext> => {
    try {
      return await makeContext(ctx);
    } catch (err) {
      return contextFailure(err);
    }
  };
  // A request without an operation (the explorer's page) reaches Apollo, which makes its context
  // when it asks; any other request's context is made once, by the route.
  const answer = apolloKoa(apollo, graphqlContext);
  const graphql = new Router();
  graphql.all('/graphql', async (ctx) => {
    try {
      await readGraphqlBody(ctx);
    } catch (err) {
      answerBodyError(ctx, (err as { status?: number }).status === 413 ? 413 : 400);
      return;
    }
    const tooDeep = nestingError(documentOf(ctx));
    if (tooDeep) {
      answerError(ctx, 400, { message: tooDeep.message, extensions: tooDeep.extensions });
      return;
    }
    if (!carriesOperation(ctx)) {
      await answer(ctx, async () => undefined);
      return;
    }
    // Awaited only when the credentials needed a wait (a hot path: one await less per request).
    let now: GatewayContext | Promise<GatewayContext>;
    try {
      now = makeContext(ctx);
    } catch (err) {
      now = Promise.reject(err);
    }
    let gctx: GatewayContext;
    let made: () => Promise<GatewayContext>;
    if (now instanceof Promise) {
      const waited = now.catch(contextFailure);
      made = () => waited;
      try {
        gctx = await waited;
      } catch {
        // A context that cannot be made is answered by Apollo, as when Apollo makes it.
        await answerWith(apollo, ctx, made);
        return;
      }
    } else {
      gctx = now;
      made = () => Promise.resolve(now);
    }
    // Trusted documents (src/graphql/trusted-documents.ts) apply first: a listed id becomes its
    // document (then an ordinary one for the fast path), an unlisted one may be refused.
    const refusal = applyTrustedDocuments(ctx, gctx);
    if (refusal) {
      answerError(ctx, 400, refusal);
      return;
    }
    if (fast && !tracingActive() && fast.accepts(ctx) && (await fast.answer(ctx, gctx))) return;
    await answerWith(apollo, ctx, made);
  });
  return graphql;
}

const graphqlBody = bodyParser({ enableTypes: ['json'], jsonLimit: BODY_LIMIT_BYTES, jsonStrict: false });

/** What @koa/bodyparser hands co-body for `/graphql`: any JSON value (not strict), the raw text kept. */
const GRAPHQL_JSON_READ = {
  limit: BODY_LIMIT_BYTES,
  strict: false,
  encoding: 'utf-8',
  returnRawBody: true,
} as const;

/** A content-type that is `application/json` itself (any case, parameters allowed). */
const PLAIN_JSON = /^application\/json\s*(;|$)/i;

/**
 * Reads a `/graphql` request's JSON body into `ctx.request.body` (and `rawBody`) as
 * @koa/bodyparser does (`enableTypes: ['json']`, not strict, up to {@link BODY_LIMIT_BYTES}):
 * the usual request, a `POST` of `application/json`, straight through co-body, the reader
 * @koa/bodyparser itself calls, without its per-request type detection and wrappers (a hot
 * path, issue 33); every other request through @koa/bodyparser.
 * @throws co-body's error (`status` 413 for a body too large, 400 for one that is not JSON).
 */
function readGraphqlBody(ctx: Context): Promise<void> {
  if (
    ctx.method === 'POST' &&
    ctx.request.body === undefined &&
    !ctx.req.closed &&
    PLAIN_JSON.test(ctx.get('content-type'))
  )
    return coBody.json(ctx, GRAPHQL_JSON_READ).then((read: { parsed: unknown; raw: string }) => {
      ctx.request.body = read.parsed;
      ctx.request.rawBody = read.raw;
    });
  return graphqlBody(ctx, async () => undefined);
}

/** Apollo's answer to a request whose context is already made (or failed). */
async function answerWith(
  apollo: ApolloServer<GatewayContext>,
  ctx: Context,
  context: () => Promise<GatewayContext>,
): Promise<void> {
  await apolloKoa(apollo, context)(ctx, async () => undefined);
}

/** The GraphQL document of a `/graphql` request: the JSON body's `query`, else the query string's. */
function documentOf(ctx: Context): string {
  const body = ctx.request.body as { query?: unknown } | undefined;
  if (body && typeof body === 'object' && typeof body.query === 'string') return body.query;
  const query = ctx.query.query;
  return typeof query === 'string' ? query : '';
}

/** A `/graphql` body that cannot be read: 413 (too large) or 400 (not JSON) as a GraphQL error. */
function answerBodyError(ctx: Context, status: 400 | 413): void {
  answerError(ctx, status, {
    message: status === 413 ? 'request body too large' : 'request body is not valid JSON',
    extensions: { code: 'BAD_REQUEST' },
  });
}

/**
 * Answers one GraphQL error, `{"errors":[{message, extensions}]}` as `application/json` with
 * `status` (its `http` extension, if any, is not sent).
 */
export function answerError(
  ctx: Context,
  status: number,
  error: { message: string; extensions: Record<string, unknown> },
): void {
  const { http: _http, ...extensions } = error.extensions;
  ctx.status = status;
  ctx.type = 'application/json; charset=utf-8';
  ctx.body = JSON.stringify({ errors: [{ message: error.message, extensions }] });
}
