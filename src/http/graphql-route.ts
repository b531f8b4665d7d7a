import { ApolloServer } from '@apollo/server';
import { bodyParser } from '@koa/bodyparser';
import Router from '@koa/router';
import type { Context } from 'koa';
import { ServiceUnavailableError } from '../errors';
import { GatewayContext } from '../graphql/context';
import { apolloKoa } from '../graphql/koa-apollo';
import { graphqlTimeoutError } from '../graphql/limits';
import { BODY_LIMIT_BYTES } from './limits';
import { MakeContext } from './request-context';

/**
 * The `/graphql` route over HTTP (docs/contract.md §7), every method: the JSON body is read first
 * (up to {@link BODY_LIMIT_BYTES}); a body that is too large answers 413, one that is not JSON
 * 400, both as a GraphQL `BAD_REQUEST` error; then Apollo answers. A deadline that passed while
 * authenticating is the GraphQL TIMEOUT (HTTP 504), like any operation past GRAPHQL_TIMEOUT_MS
 * (src/graphql/limits.ts).
 */
export function graphqlRouter(
  apollo: ApolloServer<GatewayContext>,
  makeContext: MakeContext,
  graphqlTimeoutMs: number,
): Router {
  const graphqlContext = async (ctx: Context): Promise<GatewayContext> => {
    try {
      return await makeContext(ctx);
    } catch (err) {
      if (err instanceof ServiceUnavailableError && err.reason === 'deadline')
        throw graphqlTimeoutError(graphqlTimeoutMs);
      throw err;
    }
  };
  const answer = apolloKoa(apollo, graphqlContext);
  const graphqlBody = bodyParser({ enableTypes: ['json'], jsonLimit: BODY_LIMIT_BYTES, jsonStrict: false });
  const graphql = new Router();
  graphql.all('/graphql', async (ctx) => {
    try {
      await graphqlBody(ctx, async () => undefined);
    } catch (err) {
      answerBodyError(ctx, (err as { status?: number }).status === 413 ? 413 : 400);
      return;
    }
    await answer(ctx, async () => undefined);
  });
  return graphql;
}

/** A `/graphql` body that cannot be read: 413 (too large) or 400 (not JSON) as a GraphQL error. */
function answerBodyError(ctx: Context, status: 400 | 413): void {
  ctx.status = status;
  ctx.type = 'application/json; charset=utf-8';
  ctx.body = JSON.stringify({
    errors: [
      {
        message: status === 413 ? 'request body too large' : 'request body is not valid JSON',
        extensions: { code: 'BAD_REQUEST' },
      },
    ],
  });
}
