import 'reflect-metadata';
import http from 'node:http';
import { ApolloServer, ApolloServerPlugin } from '@apollo/server';
import { bodyParser } from '@koa/bodyparser';
import Router from '@koa/router';
import depthLimit from 'graphql-depth-limit';
import Koa, { Context } from 'koa';
import { Knex } from 'knex';
import { Registry } from 'prom-client';
import { AuthResult, Authenticator } from './auth/authenticate';
import { Config } from './config';
import { databaseFailureOf, ping } from './db/knex';
import { RETRY_AFTER_SECONDS, ServiceUnavailableError, domainErrorOf } from './errors';
import { GatewayContext } from './graphql/context';
import { credentialsPlugin } from './graphql/credentials-plugin';
import { explorerRouter, landingPagePlugin } from './graphql/explorer';
import { SubscriptionServer, startSubscriptionServer } from './graphql/subscriptions';
import { makeFormatError } from './graphql/format-error';
import { DeadlineExceededError, MAX_DOCUMENT_TOKENS, graphqlLimitsPlugin } from './graphql/limits';
import { apolloKoa } from './graphql/koa-apollo';
import { gatewaySchema } from './graphql/schema';
import { Clock, systemClock } from './lib/clock';
import { LATE, LateWatch } from './lib/late-watch';
import { requestIdOf } from './lib/request-id';
import { runInRequestScope, setRequestDeadline } from './lib/request-scope';
import { withTimeout } from './lib/wait';
import { Logger, RequestLogFields, withRequestLogFields } from './logger';
import { createMetrics, instrumentServices } from './metrics';
import { OutboxRelay } from './modules/events/relay';
import { BODY_LIMIT_BYTES } from './rest/body';
import { OAUTH2_PATHS, authorizationServerMetadataHandler } from './rest/oauth2';
import { OPENAPI_PATH, openApiHandler } from './rest/openapi';
import { sendBody } from './rest/respond';
import { ExactRows, RestAnswer, exactRowDispatch, restRouter } from './rest/router';
import { ROUTES } from './rest/routes';
import { RenewalConsumer } from './modules/events/renewal-consumer';
import { RenewalEventService } from './modules/events/renewal-events';
import { Services, createServices } from './services';
import { VERSION } from './version';

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
  /** Requests being served right now (probes included). */
  inflight(): number;
  /**
   * Starts draining for shutdown: responses from now on carry `connection: close`, and the
   * promise resolves true once no request is in flight, or false after `timeoutMs`.
   */
  drain(timeoutMs: number): Promise<boolean>;
  /** The outbox relay to RabbitMQ (issue 12 part 2), running; null without AMQP_URL. */
  relay: OutboxRelay | null;
  /**
   * The plan-renewal consumer (issue 12 part 3), running when AMQP_URL is set; null otherwise.
   */
  renewals: RenewalConsumer | null;
  /**
   * Serves GraphQL subscriptions (graphql-ws) on `server`'s `/graphql` path (issue 12 part 6);
   * call once, after creating the HTTP server with `koa.callback()`.
   */
  attach(server: http.Server): SubscriptionServer;
  /**
   * Stops the background work: the renewal consumer (events being applied finish), the
   * subscription connections (closed with 1001) and the subscription feed. Idempotent; part of
   * `close`, and called first on graceful shutdown.
   */
  stopBackground(): Promise<void>;
  /** Stops the background work, the outbox relay and Apollo (the database is the caller's). */
  close(): Promise<void>;
}

/** Queries deeper than this are rejected at validation (CONTRACT §7 limits). */
export const MAX_QUERY_DEPTH = 12;

/** Milliseconds past its deadline after which a request still unanswered gets 503 anyway. */
export const DEADLINE_GRACE_MS = 1000;

/** Paths whose deadline is RATING_TIMEOUT_MS (CONTRACT §4). */
const RATING_PATH_PREFIX = '/crs-api/';

/** Longest `/readyz` waits for the database, ms. */
export const READY_TIMEOUT_MS = 900;

/**
 * The {@link GatewayContext} of one request, REST row or `/graphql`, from its Koa context:
 * `baseUrl` (PUBLIC_BASE_URL, else the request's protocol and host, which honour TRUST_PROXY)
 * and `cache` are made on first read, since most requests read neither (issue 16 "Speed").
 */
class RequestContext implements GatewayContext {
  readonly requestId: string;
  readonly client: GatewayContext['client'];
  readonly tenantHeader: string | undefined;
  budget?: GatewayContext['budget'];
  legacyRest?: boolean;
  private url: string | undefined;
  private map: Map<string, unknown> | undefined;

  constructor(
    private readonly ctx: Context,
    readonly auth: AuthResult,
    publicBaseUrl: string | null,
    readonly services: Services,
    /** Lines logged during the request carry its requestId, route and tenant (see withRequestLogFields). */
    readonly logger: Logger,
  ) {
    this.requestId = ctx.state.requestId as string;
    this.client = auth.status === 'ok' ? auth.client : null;
    const tenant = ctx.get('tenant');
    this.tenantHeader = tenant === '' ? undefined : tenant;
    this.url = publicBaseUrl ?? undefined;
  }

  get baseUrl(): string {
    // Koa 3's ctx.origin is the Origin header; protocol and host honour TRUST_PROXY.
    return (this.url ??= `${this.ctx.protocol}://${this.ctx.host}`);
  }

  get cache(): Map<string, unknown> {
    return (this.map ??= new Map());
  }
}

/**
 * Builds the Koa application. Middleware order: request id → error guard → in-flight count →
 * duration metrics → (a REST row by exact method and path: overload guard → deadline → the row)
 * → probes (/healthz, /readyz, /metrics: never shed) → explorer → overload guard → deadline →
 * /graphql → legacy REST rows with path parameters → 404.
 */
export async function createApp(deps: AppDeps): Promise<GatewayApp> {
  const { config, db, logger } = deps;
  const clock = deps.clock ?? systemClock;
  const services = createServices(db, config, clock, logger);
  const metrics = createMetrics(db, clock);
  instrumentServices(services, metrics);
  const authenticator = new Authenticator(db, config.loginThrottle, clock, config.clientCacheMs, () =>
    metrics.loginsThrottled.inc(),
  );
  // Throttled attempts are counted by the Authenticator itself (onThrottled above).
  const authenticate = authenticator.authenticate.bind(authenticator);
  const schema = await gatewaySchema();
  const { amqpUrl } = config.events;
  const relay = amqpUrl
    ? new OutboxRelay(db, clock, { ...config.events, amqpUrl }, logger, metrics.outbox)
    : null;

  const contextOf = (ctx: Context, auth: AuthResult): GatewayContext =>
    new RequestContext(ctx, auth, config.publicBaseUrl, services, logger);
  // Credentials checked once per request (an oauth2 row may have checked them already); a `then`
  // rather than an async function: one promise less per request (issue 16 "Speed").
  const makeContext = (ctx: Context): Promise<GatewayContext> => {
    const known = ctx.state.auth as AuthResult | undefined;
    if (known) return Promise.resolve(contextOf(ctx, known));
    return authenticate(ctx.headers, ctx.ip).then((auth) => contextOf(ctx, (ctx.state.auth ??= auth)));
  };

  // On /graphql a deadline that passed while authenticating is the GraphQL TIMEOUT (HTTP 504),
  // like any operation past GRAPHQL_TIMEOUT_MS (src/graphql/limits.ts).
  const graphqlContext = async (ctx: Context): Promise<GatewayContext> => {
    try {
      return await makeContext(ctx);
    } catch (err) {
      if (err instanceof ServiceUnavailableError && err.reason === 'deadline')
        throw new DeadlineExceededError(config.graphqlTimeoutMs);
      throw err;
    }
  };

  const apollo = new ApolloServer<GatewayContext>({
    schema,
    introspection: true,
    includeStacktraceInErrorResponses: false,
    csrfPrevention: true,
    formatError: makeFormatError(logger),
    validationRules: [depthLimit(MAX_QUERY_DEPTH)],
    // main.ts drains requests on SIGTERM/SIGINT; Apollo's own handler would re-raise the signal.
    stopOnTerminationSignals: false,
    parseOptions: { maxTokens: MAX_DOCUMENT_TOKENS },
    plugins: [
      serviceUnavailablePlugin(),
      credentialsPlugin(config.graphqlSandbox),
      // Cost, page sizes and deadline (CONTRACT §7); after the credentials check.
      graphqlLimitsPlugin({
        maxCost: config.graphqlMaxCost,
        timeoutMs: config.graphqlTimeoutMs,
        listSizes: {
          'Group.members': config.maxGroupSize,
        },
      }),
      landingPagePlugin({ mode: config.graphqlExplorer, authorization: deps.sandboxAuthorization }),
    ],
  });
  await apollo.start();

  const renewalEvents = new RenewalEventService(db, services.sharing.renewalService, clock);
  const renewals = amqpUrl
    ? new RenewalConsumer(
        {
          url: amqpUrl,
          exchange: config.events.exchange,
          renewals: config.renewals,
          deadlineMs: config.requestTimeoutMs,
          onOutcome: (outcome) => metrics.renewalEvents.inc({ outcome }),
        },
        (event) => renewalEvents.apply(event),
        logger,
      )
    : null;
  renewals?.start();
  let subscriptions: SubscriptionServer | undefined;
  let stoppingBackground: Promise<void> | undefined;
  const stopBackground = (): Promise<void> => {
    stoppingBackground ??= (async () => {
      await Promise.all([renewals?.stop(config.shutdownTimeoutMs), subscriptions?.close()]);
      await services.events.stop();
    })();
    return stoppingBackground;
  };

  const koa = new Koa();
  koa.proxy = config.trustProxy;
  koa.silent = true;

  let inflight = 0;
  let draining = false;
  let idle: (() => void) | undefined;
  // One listener function for every response (no closure per request).
  const onResponseClosed = () => {
    if (--inflight === 0) idle?.();
  };
  const logRequest = accessLog(logger);

  // Every request admitted runs with a deadline from its arrival (GRAPHQL_TIMEOUT_MS on /graphql,
  // RATING_TIMEOUT_MS on the charging paths, authentication included, REQUEST_TIMEOUT_MS on the
  // other REST paths) that bounds its database statements;
  // one still unanswered a grace period later gets 503 (a wait somewhere that is not bounded:
  // logged as an error). Shedding and deadline are one function (issue 16 "Speed").
  let admitted = 0;
  // One timer per budget for the safety net, not one per request (issue 16 "Speed").
  const lateWatch = new LateWatch();
  const admit = (ctx: Context, run: (ctx: Context) => Promise<unknown>): Promise<void> => {
    if (admitted >= config.maxInflight) {
      metrics.shed.inc();
      ctx.set('retry-after', String(RETRY_AFTER_SECONDS));
      sendBody(ctx, 503, { errorCode: 1, message: 'service overloaded, retry later' });
      return Promise.resolve();
    }
    const path = ctx.path;
    const rating = path.startsWith(RATING_PATH_PREFIX);
    const budgetMs =
      path === '/graphql'
        ? config.graphqlTimeoutMs
        : rating
          ? config.ratingTimeoutMs
          : config.requestTimeoutMs;
    let work: Promise<unknown>;
    admitted++;
    try {
      // The deadline goes on the request's one scope, opened with its log fields.
      work = setRequestDeadline(budgetMs) ? run(ctx) : runInRequestScope(budgetMs, () => run(ctx));
    } catch (err) {
      admitted--;
      return Promise.reject(err);
    }
    // `then` rather than an async function: one promise less per request (issue 16 "Speed").
    return lateWatch.race(work, budgetMs + DEADLINE_GRACE_MS).then(
      (outcome) => {
        admitted--;
        if (outcome !== LATE) return;
        metrics.deadlineExceeded.inc();
        work.catch((err: unknown) => logger.warn({ err }, 'late failure'));
        logger.error({ path }, 'request outlived its deadline');
        // A rating is always HTTP 200 (CONTRACT §4); its outcome is unknown here, so 5000: a retry
        // with the same operationId answers the recorded outcome.
        if (rating) sendBody(ctx, 200, { returnCode: 5000 });
        else {
          ctx.set('retry-after', String(RETRY_AFTER_SECONDS));
          sendBody(ctx, 503, { errorCode: 1, message: 'request deadline exceeded, retry later' });
        }
      },
      (err: unknown) => {
        admitted--;
        throw err;
      },
    );
  };

  const rest = restRouter(ROUTES, schema, makeContext, logger, authenticate);
  // REST rows without path parameters, by exact method and path (issue 16 "Speed").
  const restRows = exactRowDispatch(rest);
  // Request id → access log → error guard → in-flight count → duration metrics, as one
  // middleware (issue 16 "Speed": one function, one promise and one async scope per request
  // instead of five layers); exact REST rows are admitted and served from it too.
  const serve = async (ctx: Context, next: Koa.Next, started: number): Promise<void> => {
    try {
      try {
        // A request counts until its response is written out (or the client went away), so a
        // drain never cuts a response that Koa is still sending.
        inflight++;
        ctx.res.on('close', onResponseClosed);
        if (draining) ctx.set('connection', 'close');
        try {
          // An exact REST row is admitted and served here, without the middleware below; every
          // other request goes down the chain (probes, explorer, then admission, /graphql, rows
          // with path parameters, 404/405).
          const row = restRows.start(ctx);
          await (row ? admit(ctx, row) : next());
        } finally {
          metrics.httpDuration.observe(
            { method: ctx.method, route: matchedRoute(ctx) ?? 'unmatched', status: ctx.status },
            (performance.now() - started) / 1000,
          );
          const answer = ctx.state.answer as RestAnswer | undefined;
          if (answer?.style === 'sqs')
            metrics.sqsRequests.inc({
              route: answer.route,
              status: answer.status,
              errorCode: answer.errorCode ?? 'none',
            });
        }
      } catch (err) {
        const status = (err as { status?: number }).status;
        const expose = typeof status === 'number' && status >= 400 && status < 500;
        if (!expose) logger.error({ err }, 'unhandled error');
        sendBody(ctx, expose ? status : 500, {
          errorCode: 1,
          message: expose ? (err as Error).message : 'internal error',
        });
      }
    } finally {
      logRequest(ctx, started);
    }
  };
  koa.use((ctx, next) => {
    const started = performance.now();
    const requestId = requestIdOf(ctx.get('x-request-id'));
    ctx.state.requestId = requestId;
    ctx.set('x-request-id', requestId);
    return withRequestLogFields(new AccessLogFields(requestId, ctx), () => serve(ctx, next, started));
  });

  const system = new Router();
  system.get('/healthz', (ctx) => sendBody(ctx, 200, { status: 'ok', version: VERSION }));
  system.get('/readyz', async (ctx) => {
    try {
      await runInRequestScope(READY_TIMEOUT_MS, () =>
        withTimeout(ping(db), READY_TIMEOUT_MS, 'readiness ping'),
      );
      sendBody(ctx, 200, { status: 'ready' });
    } catch (err) {
      logger.warn({ err }, 'readiness check failed');
      sendBody(ctx, 503, { status: 'unavailable' });
    }
  });
  system.get('/metrics', async (ctx) => {
    ctx.type = metrics.registry.contentType;
    ctx.body = await metrics.registry.metrics();
  });
  system.get(OAUTH2_PATHS.metadata, authorizationServerMetadataHandler(config.publicBaseUrl));
  system.get(OPENAPI_PATH, openApiHandler());
  const explorer = explorerRouter({ mode: config.graphqlExplorer, authorization: deps.sandboxAuthorization });
  // Exact REST rows are served before these routers: none of their paths may be a row's.
  assertNoRowPaths(restRows, system);
  assertNoRowPaths(restRows, explorer);
  koa.use(system.routes());
  koa.use(explorer.routes());

  // Probes above are never shed; everything below counts against MAX_INFLIGHT (see `admit`).
  koa.use((ctx, next) => admit(ctx, () => next()));

  const graphqlBody = bodyParser({ enableTypes: ['json'], jsonLimit: BODY_LIMIT_BYTES, jsonStrict: false });
  const graphql = new Router();
  graphql.all('/graphql', async (ctx) => {
    try {
      await graphqlBody(ctx, async () => undefined);
    } catch (err) {
      const status = (err as { status?: number }).status === 413 ? 413 : 400;
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
      return;
    }
    await apolloKoa(apollo, graphqlContext)(ctx, async () => undefined);
  });
  koa.use(graphql.routes());

  // Runs after the routers: a path nobody answered gets a legacy 404 or 405 body.
  koa.use(async (ctx, next) => {
    await next();
    // A row that answered 204 has no body but is answered.
    if ((ctx.body !== undefined && ctx.body !== null) || (ctx.status !== 404 && ctx.status !== 405)) return;
    if (ctx.status === 405)
      sendBody(ctx, 405, { errorCode: 1, message: `method ${ctx.method} not allowed here` });
    else if (ctx.method !== 'OPTIONS') sendBody(ctx, 404, { errorCode: 1, message: 'no such path' });
  });

  koa.use(rest.routes());
  koa.use(rest.allowedMethods());

  // Relays committed outbox events to RabbitMQ in the background until close().
  relay?.start();
  return {
    koa,
    services,
    metrics: metrics.registry,
    authenticator,
    inflight: () => inflight,
    drain: (timeoutMs) => {
      draining = true;
      if (inflight === 0) return Promise.resolve(true);
      return new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(false), timeoutMs);
        idle = () => {
          clearTimeout(timer);
          resolve(true);
        };
      });
    },
    renewals,
    attach: (server) => {
      if (subscriptions) throw new Error('subscriptions are already served');
      subscriptions = startSubscriptionServer(server, {
        schema,
        config,
        services,
        logger,
        authenticate,
        validationRules: [depthLimit(MAX_QUERY_DEPTH)],
        formatError: makeFormatError(logger),
      });
      return subscriptions;
    },
    stopBackground,
    relay,
    close: async () => {
      await stopBackground();
      await relay?.stop();
      await apollo.stop();
    },
  };
}

/**
 * Apollo plugin (CONTRACT §8): a request whose errors include a database outage answers HTTP 503
 * with `retry-after` (the errors themselves carry `SERVICE_UNAVAILABLE`, see format-error.ts).
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

/**
 * Checks at start-up that no path and method of `router` is an exact REST row's, which would
 * shadow it (rows are served before the routers).
 * @throws Error naming the path.
 */
function assertNoRowPaths(rows: ExactRows, router: Router): void {
  for (const layer of router.stack)
    for (const method of layer.methods)
      if (typeof layer.path === 'string' && rows.rowOf(method, layer.path))
        throw new Error(`${method} ${layer.path} is both a REST row and a probe or explorer path`);
}

/** The @koa/router pattern that matched the request (`/sqs/api/groups/:id`), if any. */
function matchedRoute(ctx: Context): string | undefined {
  return (ctx as { _matchedRoute?: string })._matchedRoute;
}

/**
 * The access log (issue 13 part 2): one `info` line per request once it is answered, with
 * `requestId`, `route` (the pattern, `unmatched` when no route matched), `client` and `tenant`
 * (when authenticated), `method`, `status`, `durationMs`, `bytes` (response body), and the
 * answer's `returnCode` (rating rows) or `errorCode` (quota-sharing rows) when it has one.
 * Never a header or a body, so no credentials or tokens. Every other line logged while the
 * request is served carries the same `requestId`, `route`, `client` and `tenant`.
 */
function accessLog(logger: Logger): (ctx: Context, started: number) => void {
  return (ctx, started) => {
    // Nothing to compute when the level drops the line (issue 16 "Speed").
    if (!logger.isLevelEnabled('info')) return;
    const answer = ctx.state.answer as RestAnswer | undefined;
    // Logged inside the request's scope: the line carries requestId, route, client and tenant.
    logger.info(
      {
        route: matchedRoute(ctx) ?? 'unmatched',
        method: ctx.method,
        status: ctx.status,
        durationMs: Math.round((performance.now() - started) * 10) / 10,
        bytes: ctx.length,
        returnCode: answer?.returnCode,
        errorCode: answer?.errorCode,
      },
      'request',
    );
  };
}

/**
 * A request's {@link RequestLogFields}, read from its Koa context when a line is logged: the
 * route once the router matched it, the client and tenant once the credentials were checked.
 */
class AccessLogFields implements RequestLogFields {
  constructor(
    readonly requestId: string,
    private readonly ctx: Context,
  ) {}

  get route(): string | undefined {
    return matchedRoute(this.ctx);
  }

  get client(): string | undefined {
    return this.authenticated()?.username;
  }

  get tenant(): string | undefined {
    return this.authenticated()?.tenantName;
  }

  private authenticated() {
    const auth = this.ctx.state.auth as GatewayContext['auth'] | undefined;
    return auth?.status === 'ok' ? auth.client : undefined;
  }
}
