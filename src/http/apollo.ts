import { ApolloServer, ApolloServerPlugin, HeaderMap } from '@apollo/server';
import {
  ApolloServerPluginCacheControlDisabled,
  ApolloServerPluginInlineTraceDisabled,
} from '@apollo/server/plugin/disabled';
import type { GraphQLSchema } from 'graphql';
import { Config } from '../config';
import { RETRY_AFTER_SECONDS } from '../errors';
import { GatewayContext } from '../graphql/context';
import { credentialsPlugin } from '../graphql/credentials-plugin';
import { depthLimitRule } from '../graphql/document-limits';
import { landingPagePlugin } from '../graphql/explorer';
import { FastPath, createFastPath } from '../graphql/fast-path';
import { databaseOutageIn, makeFormatError } from '../graphql/format-error';
import { GraphqlLimitsOptions, MAX_DOCUMENT_TOKENS, graphqlLimitsPlugin } from '../graphql/limits';
import { Logger } from '../logger';
import { tracingActive } from '../lib/tracing';
import { tracingPlugin } from '../lib/tracing-apollo';
import { MAX_QUERY_DEPTH } from './limits';

/** What Apollo Server needs from the app. */
export interface ApolloDeps {
  schema: GraphQLSchema;
  config: Config;
  logger: Logger;
  /** `authorization` value pre-filled in the explorer, Sandbox or GraphiQL. */
  sandboxAuthorization?: string;
}

/**
 * Starts Apollo Server for `/graphql` (docs/contract.md §7): introspection on, no stack traces,
 * CSRF prevention, the token limit while parsing and the depth limit ({@link MAX_QUERY_DEPTH}) at
 * validation (src/graphql/document-limits.ts; the nesting bound before parsing is the route's,
 * src/http/graphql-route.ts), and the plugins in order: database outage → 503, the credentials
 * check, subscriptions refused over HTTP, cost, page sizes and deadline (after the credentials
 * check), the landing page, `cache-control: no-store` on every answer. Unless GRAPHQL_FAST_PATH
 * is false it also builds the fast path of `/graphql` with the same rules
 * (src/graphql/fast-path.ts).
 */
export async function startApollo({
  schema,
  config,
  logger,
  sandboxAuthorization,
}: ApolloDeps): Promise<GraphqlServer> {
  const formatError = makeFormatError(logger);
  const validationRules = [depthLimitRule(MAX_QUERY_DEPTH)];
  const limits: GraphqlLimitsOptions = {
    maxCost: config.graphqlMaxCost,
    timeoutMs: config.graphqlTimeoutMs,
    listSizes: {
      'Group.members': config.maxGroupSize,
    },
  };
  const apollo = new ApolloServer<GatewayContext>({
    schema,
    introspection: true,
    includeStacktraceInErrorResponses: false,
    csrfPrevention: true,
    formatError,
    validationRules,
    // The server drains requests on SIGTERM/SIGINT; Apollo's own handler would re-raise the signal.
    stopOnTerminationSignals: false,
    parseOptions: { maxTokens: MAX_DOCUMENT_TOKENS },
    plugins: [
      // The schema is a federation subgraph; Apollo would otherwise hand resolver timings and
      // unmasked error messages to any client sending `apollo-federation-include-trace: ftv1`.
      ApolloServerPluginInlineTraceDisabled(),
      // No type or field carries a cache hint, so Apollo's cache-control plugin would answer
      // `no-store` every time, after wrapping every resolver of the schema to compute that.
      ApolloServerPluginCacheControlDisabled(),
      noStorePlugin(),
      serviceUnavailablePlugin(),
      credentialsPlugin(config.graphqlSandbox),
      noSubscriptionsOverHttpPlugin(),
      graphqlLimitsPlugin(limits),
      landingPagePlugin({ mode: config.graphqlExplorer, authorization: sandboxAuthorization }),
      ...(tracingActive() ? [tracingPlugin<GatewayContext>()] : []),
    ],
  });
  await apollo.start();
  const fastPath = config.graphqlFastPath
    ? createFastPath({ schema, formatError, validationRules, sandboxEnabled: config.graphqlSandbox, limits })
    : undefined;
  return { apollo, fastPath };
}

/** What {@link startApollo} starts for `/graphql`. */
export interface GraphqlServer {
  apollo: ApolloServer<GatewayContext>;
  /**
   * The fast path built with the same schema, error formatting and limits as `apollo`; undefined
   * when GRAPHQL_FAST_PATH is false.
   */
  fastPath: FastPath | undefined;
}

/**
 * Apollo plugin: every answer carries `cache-control: no-store`, what Apollo's cache-control
 * plugin answers for a schema without cache hints (no field sets a maximum age, the default is 0).
 */
function noStorePlugin(): ApolloServerPlugin<GatewayContext> {
  return {
    async requestDidStart() {
      return {
        async willSendResponse({ response }) {
          response.http.headers.set('cache-control', 'no-store');
        },
      };
    },
  };
}

/**
 * Apollo plugin (docs/contract.md §8): a request whose errors include a database outage answers
 * HTTP 503 with `retry-after` (the errors themselves carry `SERVICE_UNAVAILABLE`, see
 * src/graphql/format-error.ts).
 */
function serviceUnavailablePlugin(): ApolloServerPlugin<GatewayContext> {
  return {
    async requestDidStart() {
      return {
        async willSendResponse({ response, errors }) {
          if (!errors || !databaseOutageIn(errors)) return;
          response.http.status = 503;
          response.http.headers.set('retry-after', String(RETRY_AFTER_SECONDS));
        },
      };
    },
  };
}

/** The message of a subscription sent over HTTP. */
export const SUBSCRIPTION_OVER_HTTP = 'subscriptions are served over WebSocket (graphql-ws) at /graphql';

/**
 * Apollo plugin (docs/contract.md §7): a subscription operation sent over HTTP is answered
 * `BAD_REQUEST`, HTTP 400, instead of running (subscriptions are served over graphql-ws only).
 * It answers in place of execution, once every plugin's check of the resolved operation has
 * passed (those run concurrently), so that missing credentials still answer 401 and a subscriber
 * token 403.
 */
function noSubscriptionsOverHttpPlugin(): ApolloServerPlugin<GatewayContext> {
  return {
    async requestDidStart() {
      return {
        async responseForOperation({ operation }) {
          // Undefined when no operation matches `operationName` (execution then answers that).
          if ((operation as typeof operation | undefined)?.operation !== 'subscription') return null;
          return {
            http: { status: 400, headers: new HeaderMap() },
            body: {
              kind: 'single',
              singleResult: {
                errors: [{ message: SUBSCRIPTION_OVER_HTTP, extensions: { code: 'BAD_REQUEST' } }],
              },
            },
          };
        },
      };
    },
  };
}
