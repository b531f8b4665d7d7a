#!/usr/bin/env node
/*
 * The servers the gateway's REST rows are compared with, never part of src/:
 *
 * - `bare`: a Koa handler (router + JSON body parser) that does what the REST rows do without
 *   GraphQL: the project's Authenticator (same client read, same cached scrypt check), the
 *   permission and tenant checks, then the project's own TokenService.introspect or
 *   ChargingService.processRating (same SQL, same transaction, same request deadline) and JSON out,
 *   with the response headers CONTRACT §1 requires of those paths: `x-request-id` on every
 *   response (echoed when valid, else generated), `cache-control: no-store` and
 *   `pragma: no-cache` on the token response. It answers what a client of the contract accepts.
 * - `lean`: the floor of token introspection (issue 33): one Koa middleware, no router, no
 *   GraphQL, no access log, no request deadline scope: the project's Authenticator (as the
 *   gateway builds it, client cache included), the TOKEN_INTROSPECT and tenant checks, the REST
 *   rows' own body reader (src/rest/body.ts `readJsonObject`) and TokenService.introspect, JSON
 *   out with the headers CONTRACT §1 requires of the path (`x-request-id`, `cache-control:
 *   no-store`, `pragma: no-cache`). `POST /token/introspect` and `GET /healthz` only.
 * - `lean-scoped`: the lean handler, each request run in the gateway's request scope
 *   (`runInRequestScope` with REQUEST_TIMEOUT_MS, src/lib/request-scope.ts), so its statements and
 *   its wait for a pooled connection are bounded by the request's deadline as the gateway's are.
 *   A diagnostic, not a target: that scope is an AsyncLocalStorage, which makes Node 20 run a
 *   promise hook for every promise of the process (docs/benchmarks.md "The request scope's
 *   promise hooks on MariaDB").
 * - `sofa`: sofa-api on the gateway schema (`/sofa/...`, introspection as POST) with the same
 *   per-request context as the gateway's REST rows.
 *
 * All answer GET /healthz. Configuration from the environment, as the gateway (DATABASE_URL,
 * PORT, HOST, …). Run: node bench/baselines.js bare|lean|lean-scoped|sofa (dist/ built).
 */
'use strict';
require('reflect-metadata');
const http = require('node:http');
const path = require('node:path');
const { bodyParser } = require('@koa/bodyparser');
const Router = require('@koa/router');
const Koa = require('koa');

const dist = (p) => require(path.join(__dirname, '..', 'dist', 'src', p));
const { loadConfig } = dist('config');
const { createKnex } = dist('db/knex');
const { Authenticator } = dist('auth/authenticate');
const { createServices } = dist('services');
const { createLogger } = dist('logger');
const { systemClock } = dist('lib/clock');
const { runInRequestScope } = dist('lib/request-scope');
const { requestIdOf } = dist('lib/request-id');

const json = (ctx, status, body) => {
  ctx.status = status;
  ctx.type = 'application/json';
  ctx.body = JSON.stringify(body);
};

/** The bare routes: introspection and rating through the project's services, no GraphQL. */
function bareRoutes(router, { config, authenticator, services }) {
  /** The authenticated client holding `permission`, or null after answering 401/403. */
  const callerWith = async (ctx, permission) => {
    const auth = await authenticator.authenticate(ctx.headers, ctx.ip);
    if (auth.status !== 'ok') return (json(ctx, 401, { error: 'unauthorized' }), null);
    const tenant = ctx.get('tenant');
    if (!auth.client.permissions.has(permission) || (tenant && tenant !== auth.client.tenantName))
      return (json(ctx, 403, { errorCode: 1, message: 'forbidden' }), null);
    return auth.client;
  };
  router.post('/token/introspect', (ctx) =>
    runInRequestScope(config.requestTimeoutMs, async () => {
      ctx.set('cache-control', 'no-store');
      ctx.set('pragma', 'no-cache');
      const client = await callerWith(ctx, 'TOKEN_INTROSPECT');
      if (!client) return;
      const r = await services.tokens.introspect(
        { clientId: client.id, tenantId: client.tenantId },
        ctx.request.body?.token,
      );
      json(
        ctx,
        200,
        r.active ? { active: true, client_id: r.clientId, expiry: r.expiry } : { active: false },
      );
    }),
  );
  router.post('/crs-api/processRating', (ctx) =>
    runInRequestScope(config.ratingTimeoutMs, async () => {
      const client = await callerWith(ctx, 'CRS_RATING');
      if (!client) return;
      // As the REST row: the edge reads the body into the typed request or a refusal.
      const caller = { tenantId: client.tenantId };
      const reading = dist('rest/rating-input').readRatingBody(ctx.request.body);
      const r = reading.ok
        ? await services.charging.processRating(caller, reading.input)
        : await services.charging.recordTransportRefusal(caller, 'rating', reading.refusal);
      json(ctx, 200, { returnCode: r.returnCode });
    }),
  );
}

/**
 * The lean handler (mode `lean`): one middleware answering `GET /healthz` and
 * `POST /token/introspect` as the REST row does for a client of the contract (200 with
 * `{active, client_id, expiry}` or `{active:false}`; 401, 403, 400 `invalid_request`, the body
 * reader's 400/413/415 otherwise; 404 for any other path), and nothing else.
 */
function leanHandler({ authenticator, services }) {
  const { readJsonObject, BodyError } = dist('rest/body');
  return async (ctx) => {
    ctx.set('x-request-id', requestIdOf(ctx.get('x-request-id')));
    if (ctx.path === '/healthz' && ctx.method === 'GET')
      return json(ctx, 200, { status: 'ok', mode: 'lean' });
    if (ctx.path !== '/token/introspect' || ctx.method !== 'POST')
      return json(ctx, 404, { error: 'not found' });
    ctx.set('cache-control', 'no-store');
    ctx.set('pragma', 'no-cache');
    // Without a wait for credentials verified before, as the gateway's rows (src/http/rate-limit.ts).
    const auth =
      authenticator.authenticateNow(ctx.headers, ctx.ip) ??
      (await authenticator.authenticate(ctx.headers, ctx.ip));
    if (auth.status !== 'ok') return json(ctx, 401, { error: 'invalid_client' });
    const tenant = ctx.get('tenant');
    if (!auth.client.permissions.has('TOKEN_INTROSPECT') || (tenant && tenant !== auth.client.tenantName))
      return json(ctx, 403, { error: 'forbidden' });
    let body;
    try {
      body = await readJsonObject(ctx);
    } catch (err) {
      if (err instanceof BodyError) return json(ctx, err.status, { error: 'invalid_request' });
      throw err;
    }
    const token = body.token;
    if (typeof token !== 'string' || token === '')
      return json(ctx, 400, { error: 'invalid_request', error_description: '[token cannot be null]' });
    const r = await services.tokens.introspect(
      { clientId: auth.client.id, tenantId: auth.client.tenantId },
      token,
    );
    json(ctx, 200, r.active ? { active: true, client_id: r.clientId, expiry: r.expiry } : { active: false });
  };
}

/** sofa-api on the gateway schema under /sofa, with the gateway's per-request context. */
async function sofaMiddleware({ config, authenticator, services, logger }) {
  const { useSofa } = require('sofa-api');
  const schema = await dist('graphql/schema').gatewaySchema();
  const sofa = useSofa({
    basePath: '/sofa',
    schema,
    routes: { 'Query.introspectToken': { method: 'POST' } },
    async context({ request }) {
      const headers = Object.fromEntries(request.headers.entries());
      const auth = await authenticator.authenticate(headers);
      return {
        requestId: 'sofa',
        auth,
        client: auth.status === 'ok' ? auth.client : null,
        tenantHeader: headers.tenant || undefined,
        baseUrl: config.publicBaseUrl ?? `http://${headers.host}`,
        services,
        logger,
        cache: new Map(),
      };
    },
  });
  return async (ctx, next) => {
    if (!ctx.path.startsWith('/sofa/')) return next();
    ctx.respond = false;
    await runInRequestScope(config.requestTimeoutMs, () => sofa(ctx.req, ctx.res));
  };
}

async function main() {
  const mode = process.argv[2];
  if (!['bare', 'lean', 'lean-scoped', 'sofa'].includes(mode))
    throw new Error('usage: node bench/baselines.js bare|lean|lean-scoped|sofa');
  const config = loadConfig();
  const logger = createLogger(config.logLevel);
  const db = createKnex(config.databaseUrl, config.db);
  const deps = {
    config,
    logger,
    // As the gateway builds it (src/app.ts), the client cache's lifetime included.
    authenticator: new Authenticator(db, config.loginThrottle, systemClock, config.clientCacheMs),
    services: createServices(db, config, systemClock, logger),
  };
  const koa = new Koa();
  koa.silent = true;
  const stop = (server) =>
    process.once('SIGTERM', () => {
      server.close();
      server.closeAllConnections();
      db.destroy().finally(() => process.exit(0));
    });
  if (mode === 'lean' || mode === 'lean-scoped') {
    const lean = leanHandler(deps);
    koa.use(mode === 'lean' ? lean : (ctx) => runInRequestScope(config.requestTimeoutMs, () => lean(ctx)));
    const server = http.createServer(koa.callback());
    server.listen(config.port, config.host);
    return stop(server);
  }
  const router = new Router();
  router.get('/healthz', (ctx) => json(ctx, 200, { status: 'ok', mode }));
  if (mode === 'sofa') koa.use(await sofaMiddleware(deps));
  if (mode === 'bare')
    koa.use((ctx, next) => {
      ctx.set('x-request-id', requestIdOf(ctx.get('x-request-id')));
      return next();
    });
  koa.use(bodyParser({ enableTypes: ['json'] }));
  if (mode === 'bare') bareRoutes(router, deps);
  koa.use(router.routes());
  const server = http.createServer(koa.callback());
  server.listen(config.port, config.host);
  stop(server);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
