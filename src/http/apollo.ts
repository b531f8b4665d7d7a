import { ApolloServer, ApolloServerPlugin } from '@apollo/server';
import { ApolloServerPluginInlineTraceDisabled } from '@apollo/server/plugin/disabled';
import type { GraphQLSchema } from 'graphql';
import depthLimit from 'graphql-depth-limit';
import { Config } from '../config';
import { databaseFailureOf } from '../db/knex';
import { RETRY_AFTER_SECONDS, domainErrorOf } from '../errors';
import { GatewayContext } from '../graphql/context';
import { credentialsPlugin } from '../graphql/credentials-plugin';
import { landingPagePlugin } from '../graphql/explorer';
import { makeFormatError } from '../graphql/format-error';
import { MAX_DOCUMENT_TOKENS, graphqlLimitsPlugin } from '../graphql/limits';
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
 * CSRF prevention, the depth limit ({@link MAX_QUERY_DEPTH}) and the token limit, and the plugins
 * in order: database outage → 503, the credentials check, cost, page sizes and deadline (after
 * the credentials check), the landing page.
 */
export async function startApollo({
  schema,
  config,
  logger,
  sandboxAuthorization,
}: ApolloDeps): Promise<ApolloServer<GatewayContext>> {
  const apollo = new ApolloServer<GatewayContext>({
    schema,
    introspection: true,
    includeStacktraceInErrorResponses: false,
    csrfPrevention: true,
    formatError: makeFormatError(logger),
    validationRules: [depthLimit(MAX_QUERY_DEPTH)],
    // The server drains requests on SIGTERM/SIGINT; Apollo's own handler would re-raise the signal.
    stopOnTerminationSignals: false,
    parseOptions: { maxTokens: MAX_DOCUMENT_TOKENS },
    plugins: [
      // The schema is a federation subgraph; Apollo would otherwise hand resolver timings and
      // unmasked error messages to any client sending `apollo-federation-include-trace: ftv1`.
      ApolloServerPluginInlineTraceDisabled(),
      serviceUnavailablePlugin(),
      credentialsPlugin(config.graphqlSandbox),
      graphqlLimitsPlugin({
        maxCost: config.graphqlMaxCost,
        timeoutMs: config.graphqlTimeoutMs,
        listSizes: {
          'Group.members': config.maxGroupSize,
        },
      }),
      landingPagePlugin({ mode: config.graphqlExplorer, authorization: sandboxAuthorization }),
      ...(tracingActive() ? [tracingPlugin<GatewayContext>()] : []),
    ],
  });
  await apollo.start();
  return apollo;
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
          if (!errors?.some((e) => databaseFailureOf(e) || domainErrorOf(e)?.code === 'SERVICE_UNAVAILABLE'))
            return;
          response.http.status = 503;
          response.http.headers.set('retry-after', String(RETRY_AFTER_SECONDS));
        },
      };
    },
  };
}
