import type Koa from 'koa';
import { sendBody } from '../rest/respond';

/**
 * The not-found part, mounted before the REST rows with path parameters so that it runs after
 * them: a path nobody answered gets the plain 404 `no such path`, a known path with another
 * method the plain 405 (docs/contract.md §1). A row that answered 204 has no body but is
 * answered; OPTIONS keeps the router's answer.
 */
export function notFound(): Koa.Middleware {
  return async (ctx, next) => {
    await next();
    if ((ctx.body !== undefined && ctx.body !== null) || (ctx.status !== 404 && ctx.status !== 405)) return;
    if (ctx.status === 405)
      sendBody(ctx, 405, { errorCode: 1, message: `method ${ctx.method} not allowed here` });
    else if (ctx.method !== 'OPTIONS') sendBody(ctx, 404, { errorCode: 1, message: 'no such path' });
  };
}
