import Router from '@koa/router';
import type { Context } from 'koa';
import { exactRowDispatch } from '../../src/rest/router';

/** A context with just what `ExactRows.start` reads and sets. */
const ctxOf = (method: string, path: string): Context => ({ method, path, state: {} }) as unknown as Context;

describe('exactRowDispatch (src/rest/router.ts): REST rows and /graphql by exact method and path', () => {
  const rows = new Router();
  rows.post('/token', (ctx) => void (ctx.body = 'token'));
  rows.get('/sqs/api/groups/:id', (ctx) => void (ctx.body = 'group'));
  const graphql = new Router();
  graphql.all('/graphql', (ctx) => void (ctx.body = `graphql ${ctx.method}`));

  it('serves the routes without path parameters of every router given, as @koa/router would mark them', async () => {
    const exact = exactRowDispatch(rows, graphql);
    for (const [method, path, body] of [
      ['POST', '/token', 'token'],
      ['POST', '/graphql', 'graphql POST'],
      ['GET', '/graphql', 'graphql GET'],
    ]) {
      const ctx = ctxOf(method, path);
      const serve = exact.start(ctx);
      expect(serve).toBeDefined();
      await serve!(ctx);
      expect(ctx.body).toBe(body);
      expect(ctx.params).toEqual({});
      expect((ctx as { _matchedRoute?: string })._matchedRoute).toBe(path);
    }
  });

  it('leaves HEAD, a trailing slash, other letter case and path parameters to the routers', () => {
    const exact = exactRowDispatch(rows, graphql);
    for (const [method, path] of [
      ['HEAD', '/graphql'],
      ['POST', '/graphql/'],
      ['POST', '/GraphQL'],
      ['GET', '/sqs/api/groups/7'],
      ['GET', '/token'],
    ]) {
      const ctx = ctxOf(method, path);
      expect(exact.start(ctx)).toBeUndefined();
      expect(ctx.params).toBeUndefined();
    }
  });

  it('refuses at start-up a method and path that two routers serve', () => {
    const other = new Router();
    other.post('/graphql', () => undefined);
    expect(() => exactRowDispatch(rows, graphql, other)).toThrow('POST /graphql is served by two routers');
  });
});
