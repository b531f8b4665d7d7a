/*
 * Bare Koa stand-in for the REST hot path: the project's Authenticator and token
 * store, the same SQL, JSON out, no GraphQL, no router, no middleware stack. The floor the REST
 * row is compared against. Needs `npm run build`. Env: DATABASE_URL, PORT, DIST (build folder,
 * default `dist`).
 */
'use strict';
const path = require('node:path');
const Koa = require('koa');
const dist = path.resolve(__dirname, '..', process.env.DIST || 'dist', 'src');
const { createKnex } = require(path.join(dist, 'db/knex'));
const { Authenticator } = require(path.join(dist, 'auth/authenticate'));
const { findToken } = require(path.join(dist, 'modules/tokens/token.store'));
const { hashToken } = require(path.join(dist, 'modules/tokens/token.service'));
const { runInRequestScope } = require(path.join(dist, 'lib/request-scope'));

const db = createKnex(process.env.DATABASE_URL);
const auth = new Authenticator(db);
const app = new Koa();

const readJson = async (ctx) => {
  const chunks = [];
  for await (const c of ctx.req) chunks.push(c);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
};

// MODE=rating: POST processRating through the charging service (the same transaction as the REST row).
if (process.env.MODE === 'rating') {
  const { ChargingService } = require(path.join(dist, 'modules/charging/charging.service'));
  const { readRatingBody } = require(path.join(dist, 'rest/rating-input'));
  const { systemClock } = require(path.join(dist, 'lib/clock'));
  const { createLogger } = require(path.join(dist, 'logger'));
  const charging = new ChargingService(db, systemClock, 2000, createLogger('silent'));
  app.use((ctx) =>
    runInRequestScope(2000, async () => {
      const a = await auth.authenticate(ctx.headers, ctx.ip);
      if (a.status !== 'ok') {
        ctx.status = 401;
        return;
      }
      // As the REST row: the edge reads the body into the typed request or a refusal.
      const caller = { tenantId: a.client.tenantId };
      const reading = readRatingBody(await readJson(ctx));
      const out = reading.ok
        ? await charging.processRating(caller, reading.input)
        : await charging.recordTransportRefusal(caller, 'rating', reading.refusal);
      ctx.type = 'application/json';
      ctx.body = JSON.stringify({ returnCode: out.returnCode });
    }),
  );
} else
  app.use((ctx) =>
    runInRequestScope(5000, async () => {
      const a = await auth.authenticate(ctx.headers, ctx.ip);
      if (a.status !== 'ok') {
        ctx.status = 401;
        return;
      }
      const { token } = await readJson(ctx);
      const row = await findToken(db, a.client.tenantId, hashToken(token));
      const live = row && row.revokedAt === null && Date.now() / 1000 < row.expiresAtSeconds;
      ctx.set('cache-control', 'no-store');
      ctx.type = 'application/json';
      ctx.body = JSON.stringify(
        live ? { active: true, client_id: row.msisdn, expiry: row.expiresAtSeconds } : { active: false },
      );
    }),
  );
app.listen(Number(process.env.PORT), '127.0.0.1');
