import http from 'node:http';
import { depthLimitRule } from '../graphql/document-limits';
import { makeFormatError } from '../graphql/format-error';
import {
  SubscriptionServer,
  SubscriptionServerDeps,
  startSubscriptionServer,
} from '../graphql/subscriptions';
import { MAX_QUERY_DEPTH } from './limits';

/** The WebSocket endpoint of GraphQL subscriptions, attached once to the HTTP server. */
export interface WebSocketMount {
  /**
   * Serves GraphQL subscriptions (graphql-ws) on `server`'s `/graphql` path.
   * @throws Error when called a second time.
   */
  attach(server: http.Server): SubscriptionServer;
  /** Closes every subscription connection (1001); nothing to do before `attach`. */
  close(): Promise<void>;
}

/**
 * The WebSocket part (src/graphql/subscriptions.ts serves the protocol), with the same depth
 * limit ({@link MAX_QUERY_DEPTH}) and error formatting as `/graphql` over HTTP.
 */
export function webSocketMount(
  deps: Omit<SubscriptionServerDeps, 'validationRules' | 'formatError'>,
): WebSocketMount {
  let attached: SubscriptionServer | undefined;
  return {
    attach: (server) => {
      if (attached) throw new Error('subscriptions are already served');
      attached = startSubscriptionServer(server, {
        ...deps,
        validationRules: [depthLimitRule(MAX_QUERY_DEPTH)],
        formatError: makeFormatError(deps.logger),
      });
      return attached;
    },
    close: async () => {
      await attached?.close();
    },
  };
}
