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
 * - `sofa`: sofa-api on the gateway schema (`/sofa/...`, introspection as POST) with the same
 *   per-request context as the gateway's REST rows.
 *
 * Both answer GET /healthz. Configuration from the environment, as the gateway (DATABASE_URL,
 * PORT, HOST, …). Run: node bench/baselines.js bare|sofa (dist/ built).
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
  if (mode !== 'bare' && mode !== 'sofa') throw new Error('usage: node bench/baselines.js bare|sofa');
  const config = loadConfig();
  const logger = createLogger(config.logLevel);
  const db = createKnex(config.databaseUrl, config.db);
  const deps = {
    config,
    logger,
    authenticator: new Authenticator(db, config.loginThrottle, systemClock),
    services: createServices(db, config, systemClock, logger),
  };
  const koa = new Koa();
  koa.silent = true;
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
  process.once('SIGTERM', () => {
    server.close();
    server.closeAllConnections();
    db.destroy().finally(() => process.exit(0));
  });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
