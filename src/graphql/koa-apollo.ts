import { Readable } from 'node:stream';
import { ApolloServer, HeaderMap } from '@apollo/server';
import type { Context, Middleware } from 'koa';
import { GatewayContext } from './context';

/**
 * Mounts Apollo Server 5 on Koa in a CommonJS build (the official integration is
 * ESM-only). A JSON body parser must have run before it; Apollo answers every method, status,
 * header and body itself.
 */
export function apolloKoa(
  server: ApolloServer<GatewayContext>,
  context: (ctx: Context) => Promise<GatewayContext>,
): Middleware {
  return async (ctx) => {
    const headers = new HeaderMap();
    for (const [key, value] of Object.entries(ctx.headers)) {
      if (value !== undefined) headers.set(key, Array.isArray(value) ? value.join(', ') : value);
    }
    const res = await server.executeHTTPGraphQLRequest({
      httpGraphQLRequest: {
        method: ctx.method.toUpperCase(),
        headers,
        search: ctx.querystring ? `?${ctx.querystring}` : '',
        body: ctx.request.body,
      },
      context: () => context(ctx),
    });
    for (const [key, value] of res.headers) ctx.set(key, value);
    ctx.status = res.status ?? 200;
    ctx.body = res.body.kind === 'complete' ? res.body.string : Readable.from(res.body.asyncIterator);
  };
}
