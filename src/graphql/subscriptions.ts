import { randomUUID } from 'node:crypto';
import http from 'node:http';
import {
  ExecutionArgs,
  GraphQLError,
  GraphQLFormattedError,
  GraphQLSchema,
  ValidationRule,
  getOperationAST,
  getVariableValues,
  parse,
  specifiedRules,
  validate,
} from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer } from 'ws';
import { AuthResult } from '../auth/authenticate';
import { assertTenantHeader } from '../auth/tenant';
import { Config } from '../config';
import { ForbiddenError, RateLimitedError, ServiceUnavailableError, TooManyRequestsError } from '../errors';
import { BODY_LIMIT_BYTES } from '../http/limits';
import { Logger } from '../logger';
import { Services } from '../services';
import { GatewayContext } from './context';
import { nestingError } from './document-limits';
import { MAX_DOCUMENT_TOKENS } from './limits';
import { persistedOf, trustedDocumentDecision } from './trusted-documents';

/** What the subscription server needs from the app. */
export interface SubscriptionServerDeps {
  schema: GraphQLSchema;
  config: Config;
  services: Services;
  logger: Logger;
  /** The HTTP API's credentials check (headers, client address). */
  authenticate(
    headers: Record<string, string | undefined>,
    address?: string,
  ): AuthResult | Promise<AuthResult>;
  /** Validation rules added to GraphQL's own (the HTTP endpoint's depth limit). */
  validationRules: readonly ValidationRule[];
  /** The HTTP endpoint's error formatting (no stack traces, masked internals). */
  formatError(formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError;
}

/** A running subscription endpoint. */
export interface SubscriptionServer {
  /** Open WebSocket connections. */
  connections(): number;
  /** Closes every connection (code 1001, going away) and stops accepting new ones. */
  close(): Promise<void>;
}

/** What a connection carries once `connection_init` was accepted. */
interface ConnectionState extends Record<PropertyKey, unknown> {
  auth?: AuthResult;
  tenantHeader?: string;
}

/** graphql-ws close code for a refused connection (Forbidden), as HTTP's 403. */
const FORBIDDEN = 4403;

/** WebSocket close code for "try again later" (RFC 6455 registry: 1013). */
const TRY_AGAIN_LATER = 1013;

/** `err` with `extensions.code` set to `code` (GraphQL's own request errors carry none). */
function coded(err: GraphQLError, code: string): GraphQLError {
  return new GraphQLError(err.message, {
    nodes: err.nodes,
    source: err.source,
    positions: err.positions,
    path: err.path,
    originalError: err.originalError,
    extensions: { ...err.extensions, code },
  });
}

/** A string connection parameter, or undefined. */
function param(
  params: Readonly<Record<string, unknown>> | undefined,
  ...names: string[]
): string | undefined {
  for (const n of names) {
    const v = params?.[n];
    if (typeof v === 'string' && v !== '') return v;
  }
  return undefined;
}

/**
 * The client's address for the failed-login throttle, as Koa's `ctx.ip` gives it over HTTP: the
 * first `x-forwarded-for` entry when TRUST_PROXY is on, else the socket's peer.
 */
function clientAddress(request: http.IncomingMessage, trustProxy: boolean): string | undefined {
  const forwarded = request.headers['x-forwarded-for'];
  const first = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(',')[0]?.trim();
  return trustProxy && first ? first : request.socket.remoteAddress;
}

/** graphql-ws's server options, typed with what a connection carries. */
type ServerOptions = Parameters<typeof useServer<Record<string, unknown> | undefined, ConnectionState>>[0];

/**
 * GraphQL subscriptions over the graphql-ws protocol (`graphql-transport-ws`) on the HTTP
 * server's `/graphql` path, beside Apollo's HTTP endpoint (docs/contract.md §7). The same schema;
 * only subscription operations are accepted (queries and mutations go over HTTP, where the cost
 * and deadline limits apply). A message is at most BODY_LIMIT_BYTES. Authentication: see
 * {@link onConnect}; each operation: see {@link onSubscribe}.
 */
export function startSubscriptionServer(
  server: http.Server,
  deps: SubscriptionServerDeps,
): SubscriptionServer {
  const wss = new WebSocketServer({ server, path: '/graphql', maxPayload: BODY_LIMIT_BYTES });
  const formatErrors = (errors: readonly GraphQLError[]) =>
    errors.map((e) => deps.formatError(e.toJSON(), e));
  const disposable = useServer<Record<string, unknown> | undefined, ConnectionState>(
    {
      schema: deps.schema,
      onConnect: onConnect(deps),
      onSubscribe: onSubscribe(deps),
      onError: (_ctx, _id, _payload, errors) => formatErrors(errors),
      onNext: (_ctx, _id, _payload, _args, result) =>
        result.errors ? { ...result, errors: formatErrors(result.errors) } : undefined,
    },
    wss,
  );
  wss.on('error', (err) => deps.logger.warn({ err }, 'subscription server error'));
  return {
    connections: () => wss.clients.size,
    close: async () => {
      await disposable.dispose();
    },
  };
}

/**
 * Authentication happens once, at `connection_init`: its payload (connectionParams) carries the
 * same credentials the HTTP API reads from headers, `authorization` (or `authorisation`) with an
 * HTTP Basic value, and optionally `tenant`. Missing or bad credentials, or a `tenant` naming
 * another tenant than the client's (the rule of src/auth/tenant.ts, which HTTP answers with 403),
 * close the connection with 4403 (Forbidden); too many failed logins, or a client over its rate
 * limit, with 4429; a database that
 * cannot check them with 1013 (try again later). An accepted connection carries its credentials
 * and tenant ({@link ConnectionState}).
 */
function onConnect({
  authenticate,
  config,
}: SubscriptionServerDeps): NonNullable<ServerOptions['onConnect']> {
  return async (ctx) => {
    const params = ctx.connectionParams;
    const authorization = param(params, 'authorization', 'Authorization', 'authorisation');
    let auth: AuthResult;
    try {
      auth = await authenticate({ authorization }, clientAddress(ctx.extra.request, config.trustProxy));
    } catch (err) {
      if (err instanceof TooManyRequestsError) {
        ctx.extra.socket.close(
          4429,
          err instanceof RateLimitedError ? 'Rate limit exceeded' : 'Too many failed logins',
        );
        return false;
      }
      if (err instanceof ServiceUnavailableError) {
        ctx.extra.socket.close(TRY_AGAIN_LATER, 'Service unavailable, retry later');
        return false;
      }
      throw err;
    }
    if (auth.status !== 'ok') return false;
    const tenant = param(params, 'tenant');
    try {
      assertTenantHeader(tenant, auth.client);
    } catch (err) {
      if (!(err instanceof ForbiddenError)) throw err;
      // As HTTP answers 403: the connection is refused before any subscription runs.
      ctx.extra.socket.close(FORBIDDEN, `Forbidden: ${err.message}`);
      return false;
    }
    ctx.extra.auth = auth;
    ctx.extra.tenantHeader = tenant;
    return true;
  };
}

/**
 * Each `subscribe` message: a client's trusted documents apply first (an id of its list runs the
 * listed document; a trusted-documents-only client's unlisted document or id is refused with
 * QUERY_NOT_IN_SAFELIST or PERSISTED_QUERY_NOT_IN_LIST, src/graphql/trusted-documents.ts); the
 * document is bounded in nesting (QUERY_TOO_COMPLEX,
 * src/graphql/document-limits.ts), parsed (GRAPHQL_PARSE_FAILED), validated with GraphQL's
 * rules and the app's (GRAPHQL_VALIDATION_FAILED), must name one subscription
 * operation (BAD_REQUEST otherwise), and its variables are coerced (BAD_USER_INPUT); then it runs
 * with a context of the connection's credentials. Each subscription then runs the `@Authorized`
 * permission check of its field, and names a subscriber of the caller's tenant.
 */
function onSubscribe(deps: SubscriptionServerDeps): NonNullable<ServerOptions['onSubscribe']> {
  const { schema, config, services, logger } = deps;
  const rules = [...specifiedRules, ...deps.validationRules];
  return (ctx, _id, payload) => {
    const auth = ctx.extra.auth!;
    const client = auth.status === 'ok' ? auth.client : null;
    // Trusted documents (src/graphql/trusted-documents.ts), as over HTTP: an id of the client's
    // list runs its document; a trusted-documents-only client's unlisted operation is refused.
    let query = payload.query;
    if (client) {
      const trusted = trustedDocumentDecision(
        client,
        query === '' ? undefined : query,
        persistedOf(payload.extensions),
      );
      if (trusted && 'refusal' in trusted)
        return [new GraphQLError(trusted.refusal.message, { extensions: trusted.refusal.extensions })];
      if (trusted) query = trusted.document;
    }
    const tooDeep = nestingError(query);
    if (tooDeep) return [tooDeep];
    let document;
    try {
      document = parse(query, { maxTokens: MAX_DOCUMENT_TOKENS });
    } catch (err) {
      return [
        coded(err instanceof GraphQLError ? err : new GraphQLError(String(err)), 'GRAPHQL_PARSE_FAILED'),
      ];
    }
    const errors = validate(schema, document, rules);
    if (errors.length) return errors.map((e) => coded(e, 'GRAPHQL_VALIDATION_FAILED'));
    const operation = getOperationAST(document, payload.operationName ?? undefined);
    if (!operation) return [new GraphQLError('the document must name one operation to run')];
    if (operation.operation !== 'subscription')
      return [
        new GraphQLError(
          `only subscriptions are served over WebSocket; send ${operation.operation}s over HTTP POST /graphql`,
          { extensions: { code: 'BAD_REQUEST' } },
        ),
      ];
    // Variables are coerced here, before any resolver, as Apollo does over HTTP: a malformed
    // value (an MSISDN that is not one) is BAD_USER_INPUT, not an internal error.
    const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], payload.variables ?? {});
    if (coerced.errors) return coerced.errors.map((e) => coded(e, 'BAD_USER_INPUT'));
    const contextValue: GatewayContext = {
      requestId: randomUUID(),
      auth,
      client,
      tenantHeader: ctx.extra.tenantHeader,
      baseUrl: config.publicBaseUrl ?? `http://${ctx.extra.request.headers.host ?? 'localhost'}`,
      services,
      logger,
      cache: new Map(),
    };
    const args: ExecutionArgs = {
      schema,
      document,
      operationName: payload.operationName,
      variableValues: payload.variables,
      contextValue,
    };
    return args;
  };
}
