import 'reflect-metadata';
import http from 'node:http';
import Koa from 'koa';
import { Knex } from 'knex';
import { Registry } from 'prom-client';
import { Authenticator } from './auth/authenticate';
import { Config } from './config';
import { explorerRouter } from './graphql/explorer';
import { SubscriptionServer } from './graphql/subscriptions';
import { gatewaySchema } from './graphql/schema';
import { startApollo } from './http/apollo';
import { requestDeadlines } from './http/deadline';
import { entry } from './http/entry';
import { graphqlRouter } from './http/graphql-route';
import { Lifecycle, once } from './http/lifecycle';
import { notFound } from './http/not-found';
import { probeRouter } from './http/probes';
import { createClientRateLimiter, rateLimited } from './http/rate-limit';
import { contextMaker } from './http/request-context';
import { mountBesideRows, mountRest, restMount } from './http/rest';
import { admission } from './http/shedding';
import { unavailableAnswers } from './http/unavailable';
import { webSocketMount } from './http/websocket';
import { Clock, systemClock } from './lib/clock';
import { Logger } from './logger';
import { GatewayMetrics, createMetrics, instrumentServices } from './metrics';
import { OutboxRelay } from './modules/events/relay';
import { RenewalConsumer } from './modules/events/renewal-consumer';
import { RenewalEventService } from './modules/events/renewal-events';
import { portalPages } from './portal/router';
import { Services, createServices } from './services';

/** What the app needs from the process. */
export interface AppDeps {
  config: Config;
  db: Knex;
  logger: Logger;
  /** Defaults to the wall clock; tests pass a controlled one. */
  clock?: Clock;
  /** `authorization` value pre-filled in the explorer, Sandbox or GraphiQL (the demo client's, when demo data is loaded). */
  sandboxAuthorization?: string;
}

/** A built gateway: the Koa app plus what must be stopped on shutdown. */
export interface GatewayApp {
  koa: Koa;
  services: Services;
  metrics: Registry;
  /** The credentials check of every path (its `verifications` count scrypt runs). */
  authenticator: Authenticator;
  /** The phase (serving, draining, stopped) and the requests in flight. */
  lifecycle: Lifecycle;
  /** Requests being served right now (probes included). */
  inflight(): number;
  /**
   * Starts draining for shutdown: responses from now on carry `connection: close`, and the
   * promise resolves true once no request is in flight, or false after `timeoutMs`.
   */
  drain(timeoutMs: number): Promise<boolean>;
  /** The outbox relay to RabbitMQ, running; null without AMQP_URL. */
  relay: OutboxRelay | null;
  /** The plan-renewal consumer, running when AMQP_URL is set; null otherwise. */
  renewals: RenewalConsumer | null;
  /**
   * Serves GraphQL subscriptions (graphql-ws) on `server`'s `/graphql` path; call once, after
   * creating the HTTP server with `koa.callback()`.
   */
  attach(server: http.Server): SubscriptionServer;
  /**
   * Stops the background work: the renewal consumer (events being applied finish), the
   * subscription connections (closed with 1001) and the subscription feed. Idempotent; part of
   * `close`, and called first on graceful shutdown.
   */
  stopBackground(): Promise<void>;
  /**
   * Stops the background work, the outbox relay, Apollo and the rate limiter's Redis connection,
   * and writes the buffered token CDRs (the database is the caller's).
   */
  close(): Promise<void>;
}

/** Longest start-up wait for Redis (REDIS_URL); past it the gateway starts, its rate limits failing open. */
const RATE_LIMIT_CONNECT_WAIT_MS = 1000;

/**
 * Builds the gateway: the services, then the Koa application's parts in the order a request
 * meets them: the entry (request id → access log → error guard → in-flight count → duration
 * metrics, and the exact REST rows and `/graphql`, admitted there) → probes and documents (never shed) →
 * explorer → admission (shedding and deadline) → /graphql → the captive portal (/portal) →
 * not-found → REST rows with path parameters; then the WebSocket endpoint, attached to the HTTP
 * server by the caller. Every path authenticates through the per-client rate limit
 * (src/http/rate-limit.ts).
 */
export async function createApp(deps: AppDeps): Promise<GatewayApp> {
  const { config, db, logger } = deps;
  const clock = deps.clock ?? systemClock;
  const services = createServices(db, config, clock, logger);
  const metrics = gatewayMetrics(db, clock, services);
  const authenticator = new Authenticator(db, config.loginThrottle, clock, config.clientCacheMs, () =>
    metrics.loginsThrottled.inc(),
  );
  // Throttled attempts are counted by the Authenticator itself (onThrottled above).
  const rateLimiter = createClientRateLimiter(config.rateLimits, metrics.registry, logger);
  await rateLimiter.ready(RATE_LIMIT_CONNECT_WAIT_MS);
  const authenticate = rateLimited(authenticator, rateLimiter);
  const schema = await gatewaySchema();
  const relay = outboxRelay(deps, clock, metrics);
  const makeContext = contextMaker(config.publicBaseUrl, services, logger, authenticate);
  const graphqlServer = await startApollo({
    schema,
    config,
    logger,
    sandboxAuthorization: deps.sandboxAuthorization,
  });
  const renewals = renewalConsumer(deps, clock, services, metrics);
  renewals?.start();
  const webSocket = webSocketMount({ schema, config, services, logger, authenticate });
  const stopBackground = once(async () => {
    await Promise.all([renewals?.stop(config.shutdownTimeoutMs), webSocket.close()]);
    await services.events.stop();
  });

  const koa = new Koa();
  koa.proxy = config.trustProxy;
  koa.silent = true;
  const lifecycle = new Lifecycle();
  // `/graphql` is served by exact path from the entry, as the REST rows (src/rest/router.ts
  // `exactRowDispatch`); its router stays mounted below for what is not exact (HEAD, `/graphql/`).
  const graphql = graphqlRouter(graphqlServer, makeContext, config.graphqlTimeoutMs);
  const rest = restMount(schema, makeContext, logger, authenticate, [graphql]);
  const portal = portalPages(services, logger);
  // A request shed or past its deadline is answered in its path's clients' own form.
  const unavailable = unavailableAnswers({
    graphqlTimeoutMs: config.graphqlTimeoutMs,
    portalPage: portal.unavailable,
  });
  const admit = admission(
    config.maxInflight,
    metrics,
    requestDeadlines(config, metrics, logger, unavailable),
    unavailable,
  );
  koa.use(entry({ lifecycle, metrics, logger, restRows: rest.rows, admit }));
  const explorer = explorerRouter({ mode: config.graphqlExplorer, authorization: deps.sandboxAuthorization });
  mountBesideRows(
    koa,
    rest.rows,
    probeRouter({ db, logger, metrics, publicBaseUrl: config.publicBaseUrl }),
    explorer,
  );
  koa.use((ctx, next) => admit(ctx, () => next()));
  koa.use(graphql.routes());
  koa.use(portal.routes);
  koa.use(notFound());
  mountRest(koa, rest);

  // Relays committed outbox events to RabbitMQ in the background until close().
  relay?.start();
  return {
    koa,
    services,
    metrics: metrics.registry,
    authenticator,
    lifecycle,
    inflight: () => lifecycle.inflight,
    drain: (timeoutMs) => lifecycle.drain(timeoutMs),
    renewals,
    attach: (server) => webSocket.attach(server),
    stopBackground,
    relay,
    close: async () => {
      await stopBackground();
      await relay?.stop();
      await graphqlServer.apollo.stop();
      await rateLimiter.close();
      await services.tokens.closeCdrs(); // the buffered token CDRs "validate", before the database closes
      lifecycle.stopped();
    },
  };
}

/** The metrics registry, with the database's process-wide metrics and the services instrumented. */
function gatewayMetrics(db: Knex, clock: Clock, services: Services): GatewayMetrics {
  const metrics = createMetrics(db, clock);
  instrumentServices(services, metrics);
  return metrics;
}

/** The outbox relay to RabbitMQ when AMQP_URL is set (not started), else null. */
function outboxRelay(
  { config, db, logger }: AppDeps,
  clock: Clock,
  metrics: GatewayMetrics,
): OutboxRelay | null {
  const { amqpUrl } = config.events;
  return amqpUrl ? new OutboxRelay(db, clock, { ...config.events, amqpUrl }, logger, metrics.outbox) : null;
}

/**
 * The plan-renewal consumer when AMQP_URL is set (not started), else null: each delivery is
 * applied within REQUEST_TIMEOUT_MS and its outcome counted.
 */
function renewalConsumer(
  { config, db, logger }: AppDeps,
  clock: Clock,
  services: Services,
  metrics: GatewayMetrics,
): RenewalConsumer | null {
  const { amqpUrl } = config.events;
  if (!amqpUrl) return null;
  const renewalEvents = new RenewalEventService(db, services.sharing.renewalService, clock);
  return new RenewalConsumer(
    {
      url: amqpUrl,
      exchange: config.events.exchange,
      renewals: config.renewals,
      deadlineMs: config.requestTimeoutMs,
      onOutcome: (outcome) => metrics.renewalEvents.inc({ outcome }),
    },
    (event) => renewalEvents.apply(event),
    logger,
  );
}
