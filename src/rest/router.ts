import Router, { RouterMiddleware } from '@koa/router';
import { DocumentNode, GraphQLSchema, getOperationAST, parse, validate } from 'graphql';
import type { Context } from 'koa';
import { BASIC_CHALLENGE } from '../graphql/credentials-plugin';
import { GatewayContext } from '../graphql/context';
import { CompiledOperation, OperationExecutor, executorOf } from '../graphql/jit-executor';
import { Logger } from '../logger';
import {
  ForbiddenError,
  ServiceUnavailableError,
  TooManyRequestsError,
  UnauthenticatedError,
  invalidField,
} from '../errors';
import { IDEMPOTENCY_KEY_RULE, parseIdempotencyKeyHeader } from '../lib/idempotency-key';
import { inSpan, nameServerSpan } from '../lib/tracing';
import { AuthResult } from '../auth/authenticate';
import { assertTenantHeader } from '../auth/tenant';
import { Permission } from '../auth/permissions';
import { assertPermissions } from '../graphql/auth-checker';
import { readFormOrJsonObject, readJsonObject } from './body';
import { failureBody, toFailure } from './failure';
import { OAUTH2_CHALLENGE, authenticateOAuth2Client, oauth2Failure } from './oauth2';
import { ifNoneMatchHits } from './conditional';
import { requestFormat, sendBody, sendCacheable, sendNotModified, sendStream } from './respond';
import { RestInput, RestRoute } from './route';

/**
 * What a row answered, left in `ctx.state.answer` for the access log and the metrics: the row's
 * pattern and error style, the status, and the body's numeric `returnCode` / `errorCode`.
 */
export interface RestAnswer {
  route: string;
  style: RestRoute['style'];
  status: number;
  returnCode?: number;
  errorCode?: number;
}

const numeric = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined);

/** Runs a row's operation with a request's context and variables. */
export type RowExecutor = OperationExecutor;

/** A row ready to serve: its parsed document and how its operation runs ({@link executorOf}). */
export interface CompiledRoute extends CompiledOperation {
  route: RestRoute<never>;
  document: DocumentNode;
}

/**
 * Parses and validates every row's operation against the schema, once, and compiles it (see
 * {@link executorOf}).
 * @throws Error naming the row whose document does not validate (a start-up failure).
 */
export function compileRoutes(
  routes: ReadonlyArray<RestRoute<never>>,
  schema: GraphQLSchema,
): CompiledRoute[] {
  return routes.map((route) => {
    const document = parse(route.document);
    const errors = validate(schema, document);
    if (errors.length) throw new Error(`REST row ${route.method} ${route.path}: ${errors[0].message}`);
    const declared = getOperationAST(document)?.variableDefinitions ?? [];
    if (route.idempotent && !declared.some((v) => v.variable.name.value === 'idempotencyKey'))
      throw new Error(
        `REST row ${route.method} ${route.path}: an idempotent row must declare $idempotencyKey`,
      );
    return { route, document, ...executorOf(schema, document) };
  });
}

/**
 * The `Idempotency-Key` header's key, or null when absent (docs/contract.md §5).
 * @throws BadUserInputError 412 on `Idempotency-Key` when it is not 1-255 visible ASCII characters.
 */
function idempotencyKeyOf(ctx: Context): string | null {
  const raw = ctx.headers['idempotency-key'];
  if (raw === undefined) return null;
  const key = parseIdempotencyKeyHeader(Array.isArray(raw) ? raw.join(', ') : raw);
  if (key === null) throw invalidField('Idempotency-Key', IDEMPOTENCY_KEY_RULE);
  return key;
}

function headerList(value: string): string[] {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/**
 * Writes a row's answer (see sendBody; a GET row's 200 through sendCacheable, which may answer
 * 304, tagged with `tag` when the row gave one) and leaves it in `ctx.state.answer` (a
 * {@link RestAnswer}) for the access log and the metrics.
 */
function sendAnswer(
  ctx: Context,
  route: RestRoute<never>,
  status: number,
  body: Record<string, unknown> | null,
  format?: 'json',
  tag?: string,
): void {
  let sent = status;
  if (route.method === 'GET' && status === 200 && body) sent = sendCacheable(ctx, body, format, tag);
  else sendBody(ctx, status, body, format);
  ctx.state.answer = {
    route: route.path,
    style: route.style,
    status: sent,
    returnCode: numeric(body?.returnCode),
    errorCode: numeric(body?.errorCode),
  } satisfies RestAnswer;
}

/** Transport rules checked before the operation runs (docs/contract.md §2). */
function checkTransport(route: RestRoute<never>, ctx: Context, gctx: GatewayContext): void {
  if (gctx.auth.status !== 'ok') throw new UnauthenticatedError();
  assertTenantHeader(gctx.tenantHeader, gctx.auth.client, route.tenantHeader === 'required');
  const needed = route.permissionHeader;
  if (needed) {
    if (!headerList(ctx.get('permissions')).includes(needed))
      throw new ForbiddenError(`permissions header must name ${needed}`);
    assertPermissions(gctx, [needed]);
  }
}

/**
 * A request as a row's variable mapping sees it ({@link RestInput}); the query string is parsed
 * only by the rows that read it. The getter is the class's (a hot path): an object literal
 * with a getter closing over the request gives every request its own hidden class, which V8 keeps
 * in the old generation with the closure, the Koa context and the whole request reachable from
 * it, so every request's objects were promoted and RSS grew until each full collection.
 */
class RowInput implements RestInput {
  constructor(
    private readonly ctx: Context,
    private readonly gctx: GatewayContext,
    readonly body: Record<string, unknown>,
  ) {}

  /** Read by the rows that build links only: the request's protocol and host are parsed then. */
  get baseUrl(): string {
    return this.gctx.baseUrl;
  }

  requireGrant(permission: Permission): void {
    assertPermissions(this.gctx, [permission]);
  }

  get params(): Record<string, string> {
    return this.ctx.params as Record<string, string>;
  }

  get query(): RestInput['query'] {
    return this.ctx.query;
  }
}

/** What every row's handler shares: the request context maker, the fallback logger, the credentials check. */
interface RowDeps {
  makeContext: (ctx: Context) => GatewayContext | Promise<GatewayContext>;
  logger: Logger;
  authenticate?: (headers: Record<string, string>, address?: string) => AuthResult | Promise<AuthResult>;
}

/**
 * Builds the legacy REST router: each row authenticates, checks the tenant and permissions
 * headers, reads the body, and executes its pre-parsed operation (compiled with graphql-jit, see
 * {@link compileRoutes}; or the row's `resolve`, see RestRoute) against the same schema and
 * context as `/graphql`, then maps data or errors to the legacy status and body.
 * `oauth2` rows read the body first (form or JSON), since the client may authenticate in it,
 * and check those credentials with `authenticate` (the same check as a Basic header).
 */
export function restRouter(
  routes: ReadonlyArray<RestRoute<never>>,
  schema: GraphQLSchema,
  makeContext: (ctx: Context) => GatewayContext | Promise<GatewayContext>,
  logger: Logger,
  authenticate?: (headers: Record<string, string>, address?: string) => AuthResult | Promise<AuthResult>,
): Router {
  const router = new Router();
  const deps: RowDeps = { makeContext, logger, authenticate };
  for (const { route, run, document } of compileRoutes(routes, schema))
    router.register(
      route.path,
      [route.method],
      rowHandler(route, run, deps, operationSpan(route, document)) as RouterMiddleware,
    );
  return router;
}

/** The span of a row's operation (docs/platform.md "Tracing"): its name and attributes. */
interface OperationSpan {
  name: string;
  attributes: Record<string, string>;
}

/** `<type> <name>` of the row's operation, as the GraphQL operation span of `/graphql` is named. */
function operationSpan(route: RestRoute<never>, document: DocumentNode): OperationSpan {
  const op = getOperationAST(document);
  const type = op?.operation ?? 'query';
  const name = op?.name?.value ?? '';
  return {
    name: `${type} ${name}`.trim(),
    attributes: {
      'graphql.operation.type': type,
      'graphql.operation.name': name,
      'http.route': route.path,
    },
  };
}

/** What an `oauth2` row read before its context: the body, or the failure to read or authenticate it. */
type Early = { body?: Record<string, unknown>; err?: unknown };

/**
 * One row's handler: no-store headers when the row asks for them, the early body read of an
 * `oauth2` row, then {@link serveRow} (in its operation's span when tracing is on); a failure
 * is answered by {@link answerFailure}.
 */
function rowHandler(
  route: RestRoute<never>,
  run: RowExecutor,
  deps: RowDeps,
  span: OperationSpan,
): (ctx: Context) => Promise<void> {
  const oauth2 = route.style === 'oauth2';
  /** Serves the row after its early reading; a failure is answered (the promise rejects only when answering it fails). */
  const serve = (ctx: Context, early: Early): Promise<void> => {
    const state: { gctx?: GatewayContext; executed: boolean } = { executed: false };
    const failed = (err: unknown): void =>
      answerFailure(ctx, route, err, state.gctx?.logger ?? deps.logger, state.executed);
    let serving: Promise<void>;
    try {
      if (early.err) throw early.err;
      nameServerSpan(route.method, route.path);
      serving = inSpan(span.name, span.attributes, () =>
        serveRow(ctx, route, run, deps.makeContext, early.body, state),
      );
    } catch (err) {
      serving = Promise.reject(err);
    }
    // `catch` rather than an async function awaiting it: one promise less per request (a hot path).
    return serving.catch(failed);
  };
  return (ctx) => {
    if (route.noStore) {
      ctx.set('cache-control', 'no-store');
      ctx.set('pragma', 'no-cache');
    }
    return oauth2
      ? readOAuth2Early(ctx, deps.authenticate).then((early) => serve(ctx, early))
      : serve(ctx, {});
  };
}

async function readOAuth2Early(ctx: Context, authenticate: RowDeps['authenticate']): Promise<Early> {
  try {
    const body = await readFormOrJsonObject(ctx);
    if (!authenticate) throw new Error('oauth2 rows need an authenticate function');
    ctx.state.auth = await authenticateOAuth2Client(ctx.headers, body, (h) => authenticate(h, ctx.ip));
    return { body };
  } catch (err) {
    ctx.state.auth ??= { status: 'missing' };
    return { err };
  }
}

/**
 * Serves a row: its context (left in `state.gctx`), the transport checks, the `Idempotency-Key`,
 * the body (`earlyBody` for an `oauth2` row, JSON for POST and PUT, else none), then the row's
 * variables (`state.executed` from here: a failure names the row's parameters), the row's `etag`
 * (304 at once when `If-None-Match` names it), then the row's `direct` stream, `resolve` or
 * compiled operation, and its result as the answer (a GET row's 200 tagged, src/rest/conditional.ts).
 * @throws whatever the checks or the operation raise (the first GraphQL error of the result).
 */
async function serveRow(
  ctx: Context,
  route: RestRoute<never>,
  run: RowExecutor,
  makeContext: RowDeps['makeContext'],
  earlyBody: Record<string, unknown> | undefined,
  state: { gctx?: GatewayContext; executed: boolean },
): Promise<void> {
  // Awaited only when the credentials needed a wait (a hot path: one await less per request).
  const made = makeContext(ctx);
  const gctx = (state.gctx = made instanceof Promise ? await made : made);
  gctx.legacyRest = true;
  checkTransport(route, ctx, gctx);
  const idempotencyKey = route.idempotent ? idempotencyKeyOf(ctx) : null;
  const input = new RowInput(
    ctx,
    gctx,
    earlyBody ?? (route.method === 'POST' || route.method === 'PUT' ? await readJsonObject(ctx) : {}),
  );
  state.executed = true;
  const variables = route.variables(input);
  const tag = route.etag && (await route.etag(gctx, variables, input, requestFormat(ctx)));
  if (tag && ifNoneMatchHits(ctx, tag, false)) {
    sendNotModified(ctx, tag);
    ctx.state.answer = { route: route.path, style: route.style, status: 304 } satisfies RestAnswer;
    return;
  }
  if (route.direct) {
    const format = requestFormat(ctx);
    const out = await route.direct(gctx, variables, input, format);
    if (out) {
      const status = sendStream(ctx, out.status, format, out.body, tag);
      ctx.state.answer = { route: route.path, style: route.style, status } satisfies RestAnswer;
      return;
    }
  }
  const operationVariables = route.idempotent ? { ...variables, idempotencyKey } : variables;
  let data: unknown;
  if (route.resolve) data = await route.resolve(gctx, operationVariables);
  else {
    const result = await run(gctx, operationVariables);
    if (result.errors?.length) throw result.errors[0];
    data = result.data;
  }
  const out = route.result(data as never, input);
  sendAnswer(ctx, route, out.status, out.body, route.style === 'oauth2' ? 'json' : undefined, tag);
}

/**
 * Answers a row's failure in its style (docs/contract.md §1, §2): `retry-after` when the error
 * carries one (not when the row answers an outage its own way), the OAuth 2 error body for an
 * `oauth2` row (naming the row's parameters once it `executed`), `www-authenticate` on 401, the
 * row's own outage answer when it has one, else the legacy failure body.
 */
function answerFailure(
  ctx: Context,
  route: RestRoute<never>,
  err: unknown,
  logger: Logger,
  executed: boolean,
): void {
  const failure = toFailure(err, logger, route.style);
  const retryAfter = failure.domain?.extensions.retryAfterSeconds;
  if (
    typeof retryAfter === 'number' &&
    !(route.unavailable && failure.domain instanceof ServiceUnavailableError)
  )
    ctx.set('retry-after', String(retryAfter));
  if (failure.domain instanceof TooManyRequestsError) {
    ctx.set('retry-after', String(failure.domain.retryAfterSeconds));
    for (const [name, value] of failure.domain.headers) ctx.set(name, value);
  }
  if (route.style === 'oauth2') {
    const out = oauth2Failure(failure, executed ? route.parameterNames : undefined);
    if (out.status === 401) ctx.set('www-authenticate', OAUTH2_CHALLENGE);
    sendAnswer(ctx, route, out.status, out.body, 'json');
    return;
  }
  if (failure.status === 401) ctx.set('www-authenticate', BASIC_CHALLENGE);
  if (failure.domain instanceof ServiceUnavailableError && route.unavailable) {
    const out = route.unavailable(failure.domain.reason);
    sendAnswer(ctx, route, out.status, out.body);
    return;
  }
  sendAnswer(ctx, route, failure.status, failureBody(route.style, failure));
}

/** The REST rows that {@link exactRowDispatch} serves by exact method and path. */
export interface ExactRows {
  /** The row's handler for exactly this method and path, or undefined. */
  rowOf(method: string, path: string): RouterMiddleware | undefined;
  /**
   * For a request that is an exact row: sets what @koa/router would have set for it and returns
   * the function that serves it (one per row, called with the request's context); undefined for
   * every other request.
   */
  start(ctx: Context): ((ctx: Context) => Promise<unknown>) | undefined;
}

const noNext = async (): Promise<void> => undefined;

/**
 * Exact-path dispatch of REST rows and of `/graphql` (a hot path): a request whose method and
 * path are exactly those of a route without path parameters of one of `routers` goes straight
 * to that route's handler, with what @koa/router would have set for it (`ctx.params` `{}`,
 * `_matchedRoute` the route's path for the access log and metrics), instead of having every
 * router in front of it scan its layers. A route is taken only when @koa/router itself picks it
 * first for that method and path; every other request (HEAD, a trailing slash, other letter
 * case, path parameters, no route) goes to the routers as before.
 * @throws Error when two of `routers` serve the same method and path (a start-up failure).
 */
export function exactRowDispatch(...routers: Router[]): ExactRows {
  const rows = new Map<string, Map<string, RouterMiddleware>>();
  for (const router of routers)
    for (const layer of router.stack) {
      if (typeof layer.path !== 'string' || layer.paramNames.length > 0 || layer.stack.length !== 1) continue;
      for (const method of layer.methods) {
        if (method === 'HEAD' || router.match(layer.path, method).pathAndMethod[0] !== layer) continue;
        if (!rows.has(method)) rows.set(method, new Map());
        const byPath = rows.get(method)!;
        if (byPath.has(layer.path)) throw new Error(`${method} ${layer.path} is served by two routers`);
        byPath.set(layer.path, layer.stack[0] as RouterMiddleware);
      }
    }
  const rowOf = (method: string, path: string) => rows.get(method)?.get(path);
  // Each row's handler as a function of the context alone, made once, not per request.
  const serving = new Map<RouterMiddleware, (ctx: Context) => Promise<unknown>>();
  for (const byPath of rows.values())
    for (const handler of byPath.values())
      serving.set(handler, (ctx) => handler(ctx as never, noNext) as Promise<unknown>);
  return {
    rowOf,
    start: (ctx) => {
      const path = ctx.path;
      const handler = rowOf(ctx.method, path);
      if (!handler) return undefined;
      ctx.params = {};
      (ctx as { _matchedRoute?: string })._matchedRoute = path;
      return serving.get(handler);
    },
  };
}
