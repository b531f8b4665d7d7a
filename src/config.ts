import { z } from 'zod';
import {
  DEFAULT_CLIENT_CACHE_MS,
  DEFAULT_DB_LIMITS,
  DEFAULT_GRAPHQL_MAX_COST,
  DEFAULT_GRAPHQL_TIMEOUT_MS,
  DEFAULT_LOGIN_THROTTLE,
  DEFAULT_RATE_LIMIT_KEY_PREFIX,
  DEFAULT_RATE_LIMIT_REDIS_TIMEOUT_MS,
  DbLimits,
  LoginThrottleLimits,
  SQLITE_SYNCHRONOUS_MODES,
} from './config/defaults';
import { DEFAULT_HEAP_MODE, HEAP_MODES, HeapMode } from './lib/heap';

/**
 * The service configuration, read once from the environment (docs/contract.md §8).
 * Every value is validated; an invalid one stops start-up with a message naming the variable.
 */
export interface Config {
  /** `sqlite:<path>`, `sqlite::memory:` or `mysql://user:pass@host:port/db`. */
  databaseUrl: string;
  /** TCP port to listen on (default 8080). */
  port: number;
  /** Interface to bind (default 0.0.0.0). */
  host: string;
  /** Absolute base URL used in emitted links; when unset the request's own origin is used. */
  publicBaseUrl: string | null;
  /** Token lifetime in seconds (default 3600, published). */
  tokenTtlSeconds: number;
  /** Upper bound of one rating operation in milliseconds (default 2000). */
  ratingTimeoutMs: number;
  /** Maximum members of one group (default 10). */
  maxGroupSize: number;
  /** Maximum plans one subscriber may hold, own plans plus received allowances (default 20). */
  maxPlansPerSubscriber: number;
  /** Requests in flight past which the service answers 503 (default 1000). */
  maxInflight: number;
  /**
   * A GraphQL explorer is served and schema introspection needs no credentials: true unless
   * `graphqlExplorer` is `off`.
   */
  graphqlSandbox: boolean;
  /**
   * The browser explorer at `GET /graphql` (`GRAPHQL_EXPLORER`, see {@link ExplorerMode}):
   * default `auto`, or `off` where `GRAPHQL_SANDBOX=false` or in production unless `GRAPHQL_SANDBOX=true`.
   */
  graphqlExplorer: ExplorerMode;
  /** pino log level. */
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** Trust `x-forwarded-*` headers (only behind a proxy you control). */
  trustProxy: boolean;
  /** Cost above which a GraphQL operation is refused before execution (default 50000; src/graphql/limits.ts). */
  graphqlMaxCost: number;
  /** Deadline of one GraphQL request in milliseconds (default 5000); past it: `TIMEOUT`, HTTP 504. */
  graphqlTimeoutMs: number;
  /**
   * `GRAPHQL_FAST_PATH` (default true): ordinary JSON `POST`s to `/graphql` run through the fast
   * path (src/graphql/fast-path.ts) instead of Apollo's request pipeline; false sends every
   * request through Apollo. The answers are the same either way.
   */
  graphqlFastPath: boolean;
  /** `NODE_ENV === 'production'`. */
  production: boolean;
  /** Load the demo dataset into an empty database and allow demo credentials (default on unless production). */
  demoData: boolean;
  /** Longest wait for in-flight requests on SIGTERM/SIGINT before the process exits anyway, ms (default 10000). */
  shutdownTimeoutMs: number;
  /** Deadline of a request other than a rating, from its arrival, ms (default 5000). */
  requestTimeoutMs: number;
  /** Bounds on every database wait (DB_* variables). */
  db: DbLimits;
  /** Brute-force throttling of failed logins (AUTH_* variables). */
  loginThrottle: LoginThrottleLimits;
  /**
   * How stale an API client row (and its failed-login counters) may be when it authenticates a
   * request, ms (AUTH_CLIENT_CACHE_MS, default 1000; 0 reads it on every request).
   */
  clientCacheMs: number;
  /** How V8 sizes the heap (HEAP_MODE, default `balanced`; see src/lib/heap.ts). */
  heapMode: HeapMode;
  /** The outbox relay to RabbitMQ (AMQP_* and OUTBOX_* variables). */
  events: EventsConfig;
  /** The plan-renewal consumer, on the broker and exchange of `events`. */
  renewals: RenewalsConfig;
  /**
   * How often the GraphQL subscription feed reads new outbox events while at least one
   * subscription is open, ms (`SUBSCRIPTION_POLL_MS`, default 200).
   */
  subscriptionPollMs: number;
  /** Per-client rate limits (REDIS_URL and RATE_LIMIT_* variables; docs/operations.md "Rate limits"). */
  rateLimits: RateLimitConfig;
}

/**
 * Where per-client rate limits count requests: Redis when `redisUrl` is set (shared by every
 * gateway), else this process's memory. The limits themselves are data (`clients[].rateLimit`).
 */
export interface RateLimitConfig {
  /** `REDIS_URL`: `redis://[user:pass@]host:port[/db]` (or `rediss://`); null: counted in-process. */
  redisUrl: string | null;
  /** `RATE_LIMIT_KEY_PREFIX`: prefix of every Redis key (default `sg:rl`), so gateways of one deployment share counters. */
  keyPrefix: string;
  /** `RATE_LIMIT_REDIS_TIMEOUT_MS`: longest wait for Redis per request, ms (default 50); past it the request passes (fails open). */
  redisTimeoutMs: number;
}

/**
 * The outbox relay (docs/events.md "Events"). Without `amqpUrl` the outbox is still
 * written and readable, and nothing is published.
 */
export interface EventsConfig {
  /** `AMQP_URL`: `amqp://user:pass@host:port[/vhost]` (or `amqps://`); null: no relay. */
  amqpUrl: string | null;
  /** `AMQP_EXCHANGE`: the durable topic exchange events are published to (default `subscriber-gateway`). */
  exchange: string;
  /** `AMQP_TIMEOUT_MS`: deadline of connecting to the broker and of each batch's publisher confirms, ms (default 5000). */
  timeoutMs: number;
  /** `OUTBOX_POLL_INTERVAL_MS`: how often an idle relay looks for new events, ms (default 200). */
  pollIntervalMs: number;
}

/** The plan-renewal consumer (AMQP_RENEWAL_* variables; docs/events.md "Plan-renewal events"); it runs when `events.amqpUrl` is set. */
export interface RenewalsConfig {
  /** The durable plan-renewal queue (`AMQP_RENEWAL_QUEUE`, default `subscriber-gateway.plan-renewals`), bound to `events.exchange`; its dead-letter queue is `<queue>.dead`. */
  queue: string;
  /** Unacknowledged renewal events one gateway holds at once (`AMQP_RENEWAL_PREFETCH`, default 8). */
  prefetch: number;
  /**
   * Test only (`TEST_RENEWAL_ACK_DELAY_MS`, default 0): milliseconds the consumer waits between a
   * renewal's commit and its acknowledgement, so a test can kill the process in between. Never
   * set it in production: it only delays acknowledgements.
   */
  testAckDelayMs: number;
}

/**
 * Which GraphQL explorer a browser gets at `GET /graphql` (`GRAPHQL_EXPLORER`):
 * - `sandbox`: Apollo Sandbox, whose UI the browser loads from Apollo's CDN (blank when offline);
 * - `graphiql`: GraphiQL served entirely by the gateway from the `graphiql`, `react` and
 *   `react-dom` packages' own builds: the page names no other host, so it works air-gapped;
 * - `auto`: Apollo Sandbox, and the browser switches to the gateway's GraphiQL
 *   (`/graphql/explorer`) when the Sandbox script cannot be loaded (a script error, or not
 *   loaded within {@link 8 s));
 * - `off`: no landing page, no credential-free introspection.
 */
export type ExplorerMode = 'auto' | 'sandbox' | 'graphiql' | 'off';

/** Every explorer mode, in the order the configuration documents them. */
export const EXPLORER_MODES: readonly ExplorerMode[] = ['auto', 'sandbox', 'graphiql', 'off'];

/** Raised when the environment holds an invalid value; the message names every offending variable. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

const bool = z
  .string()
  .trim()
  .toLowerCase()
  .refine((v) => ['1', '0', 'true', 'false', 'yes', 'no', 'on', 'off'].includes(v), 'must be true or false')
  .transform((v) => ['1', 'true', 'yes', 'on'].includes(v));

const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max);

const databaseUrl = z
  .string()
  .refine(
    (v) => /^sqlite:.+/.test(v) || /^mysql:\/\/[^/]+\/[^/?]+/.test(v),
    'must be sqlite:<path>, sqlite::memory: or mysql://user:pass@host:port/database',
  );

/** A queue name: 1-200 printable characters, not `amq.` (reserved by the broker). */
const amqpName = z
  .string()
  .regex(/^[A-Za-z0-9._:-]{1,200}$/, 'must be 1-200 characters of A-Z a-z 0-9 . _ : -')
  .refine((v) => !v.startsWith('amq.'), 'names starting with amq. are reserved by the broker');

const schema = z.object({
  DATABASE_URL: databaseUrl.default('sqlite:var/gateway.sqlite3'),
  PORT: int(0, 65535).default(8080),
  HOST: z.string().min(1).default('0.0.0.0'),
  PUBLIC_BASE_URL: z
    .url({ protocol: /^https?$/ })
    .transform((v) => v.replace(/\/+$/, ''))
    .optional(),
  TOKEN_TTL_SECONDS: int(1, 31_536_000).default(3600),
  RATING_TIMEOUT_MS: int(1, 600_000).default(2000),
  MAX_GROUP_SIZE: int(1, 10_000).default(10),
  MAX_PLANS_PER_SUBSCRIBER: int(1, 10_000).default(20),
  MAX_INFLIGHT: int(1, 1_000_000).default(1000),
  GRAPHQL_SANDBOX: bool.optional(),
  GRAPHQL_EXPLORER: z
    .enum(EXPLORER_MODES as [ExplorerMode, ...ExplorerMode[]], {
      error: `must be one of ${EXPLORER_MODES.join(', ')}`,
    })
    .optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  TRUST_PROXY: bool.default(false),
  NODE_ENV: z.string().optional(),
  DEMO_DATA: bool.optional(),
  SHUTDOWN_TIMEOUT_MS: int(0, 600_000).default(10_000),
  REQUEST_TIMEOUT_MS: int(100, 600_000).default(5000),
  DB_POOL_MAX: int(1, 1000).default(DEFAULT_DB_LIMITS.poolMax),
  DB_ACQUIRE_TIMEOUT_MS: int(1, 600_000).default(DEFAULT_DB_LIMITS.acquireTimeoutMs),
  DB_CONNECT_TIMEOUT_MS: int(1, 600_000).default(DEFAULT_DB_LIMITS.connectTimeoutMs),
  DB_STATEMENT_TIMEOUT_MS: int(1, 600_000).default(DEFAULT_DB_LIMITS.statementTimeoutMs),
  DB_LOCK_WAIT_TIMEOUT_SECONDS: int(1, 3600).default(DEFAULT_DB_LIMITS.lockWaitTimeoutSeconds),
  SQLITE_BUSY_TIMEOUT_MS: int(0, 60_000).default(DEFAULT_DB_LIMITS.sqliteBusyTimeoutMs),
  SQLITE_WAL_AUTOCHECKPOINT_PAGES: int(1, 1_000_000).default(DEFAULT_DB_LIMITS.sqliteWalAutocheckpointPages),
  SQLITE_SYNCHRONOUS: z
    .enum(SQLITE_SYNCHRONOUS_MODES, { error: `must be one of ${SQLITE_SYNCHRONOUS_MODES.join(', ')}` })
    .default(DEFAULT_DB_LIMITS.sqliteSynchronous),
  SQLITE_GROUP_COMMIT: bool.default(DEFAULT_DB_LIMITS.sqliteGroupCommit),
  GRAPHQL_MAX_COST: int(1, 100_000_000).default(DEFAULT_GRAPHQL_MAX_COST),
  GRAPHQL_TIMEOUT_MS: int(1, 600_000).default(DEFAULT_GRAPHQL_TIMEOUT_MS),
  GRAPHQL_FAST_PATH: bool.default(true),
  AUTH_MAX_FAILURES: int(0, 1_000_000).default(DEFAULT_LOGIN_THROTTLE.maxFailuresPerUsername),
  AUTH_MAX_FAILURES_PER_ADDRESS: int(0, 1_000_000).default(DEFAULT_LOGIN_THROTTLE.maxFailuresPerAddress),
  AUTH_WINDOW_SECONDS: int(1, 86_400).default(DEFAULT_LOGIN_THROTTLE.windowSeconds),
  AUTH_CLIENT_CACHE_MS: int(0, 60_000).default(DEFAULT_CLIENT_CACHE_MS),
  HEAP_MODE: z
    .enum(HEAP_MODES as [HeapMode, ...HeapMode[]], { error: `must be one of ${HEAP_MODES.join(', ')}` })
    .default(DEFAULT_HEAP_MODE),
  AMQP_URL: z
    .string()
    .refine((v) => /^amqps?:\/\/[^/\s]+/.test(v), 'must be amqp://user:pass@host:port[/vhost] or amqps://…')
    .optional(),
  AMQP_EXCHANGE: z
    .string()
    .regex(/^[A-Za-z0-9._:-]{1,255}$/, 'must be 1-255 letters, digits, dots, dashes, underscores or colons')
    .default('subscriber-gateway'),
  AMQP_TIMEOUT_MS: int(100, 600_000).default(5000),
  OUTBOX_POLL_INTERVAL_MS: int(10, 60_000).default(200),
  AMQP_RENEWAL_QUEUE: amqpName.default('subscriber-gateway.plan-renewals'),
  AMQP_RENEWAL_PREFETCH: int(1, 1000).default(8),
  TEST_RENEWAL_ACK_DELAY_MS: int(0, 600_000).default(0),
  SUBSCRIPTION_POLL_MS: int(10, 60_000).default(200),
  REDIS_URL: z
    .string()
    .refine((v) => /^rediss?:\/\/[^/\s]+/.test(v), 'must be redis://[user:pass@]host:port[/db] or rediss://…')
    .optional(),
  RATE_LIMIT_KEY_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9._:-]{1,100}$/, 'must be 1-100 letters, digits, dots, dashes, underscores or colons')
    .default(DEFAULT_RATE_LIMIT_KEY_PREFIX),
  RATE_LIMIT_REDIS_TIMEOUT_MS: int(1, 10_000).default(DEFAULT_RATE_LIMIT_REDIS_TIMEOUT_MS),
});

/** The environment as the schema parsed it. */
type Env = z.infer<typeof schema>;

/**
 * Builds the typed configuration from an environment map (docs/contract.md §8).
 * Empty strings count as unset, so `PORT=` falls back to the default.
 * @throws ConfigError naming each invalid variable and why.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const e = parseEnvironment(env);
  const production = e.NODE_ENV === 'production';
  const graphqlExplorer = explorerModeOf(e, production);
  return {
    databaseUrl: e.DATABASE_URL,
    port: e.PORT,
    host: e.HOST,
    publicBaseUrl: e.PUBLIC_BASE_URL ?? null,
    tokenTtlSeconds: e.TOKEN_TTL_SECONDS,
    ratingTimeoutMs: e.RATING_TIMEOUT_MS,
    maxGroupSize: e.MAX_GROUP_SIZE,
    maxPlansPerSubscriber: e.MAX_PLANS_PER_SUBSCRIBER,
    maxInflight: e.MAX_INFLIGHT,
    graphqlSandbox: graphqlExplorer !== 'off',
    graphqlExplorer,
    logLevel: e.LOG_LEVEL,
    trustProxy: e.TRUST_PROXY,
    production,
    demoData: e.DEMO_DATA ?? !production,
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
    requestTimeoutMs: e.REQUEST_TIMEOUT_MS,
    db: dbLimitsOf(e),
    graphqlMaxCost: e.GRAPHQL_MAX_COST,
    graphqlTimeoutMs: e.GRAPHQL_TIMEOUT_MS,
    graphqlFastPath: e.GRAPHQL_FAST_PATH,
    loginThrottle: {
      maxFailuresPerUsername: e.AUTH_MAX_FAILURES,
      maxFailuresPerAddress: e.AUTH_MAX_FAILURES_PER_ADDRESS,
      windowSeconds: e.AUTH_WINDOW_SECONDS,
    },
    clientCacheMs: e.AUTH_CLIENT_CACHE_MS,
    heapMode: e.HEAP_MODE,
    events: eventsOf(e),
    renewals: {
      queue: e.AMQP_RENEWAL_QUEUE,
      prefetch: e.AMQP_RENEWAL_PREFETCH,
      testAckDelayMs: e.TEST_RENEWAL_ACK_DELAY_MS,
    },
    subscriptionPollMs: e.SUBSCRIPTION_POLL_MS,
    rateLimits: {
      redisUrl: e.REDIS_URL ?? null,
      keyPrefix: e.RATE_LIMIT_KEY_PREFIX,
      redisTimeoutMs: e.RATE_LIMIT_REDIS_TIMEOUT_MS,
    },
  };
}

/**
 * Validates `env` against the schema; empty strings count as unset.
 * @throws ConfigError listing every invalid variable with its reason.
 */
function parseEnvironment(env: NodeJS.ProcessEnv): Env {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = schema.safeParse(cleaned);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`invalid configuration:\n  ${lines.join('\n  ')}`);
  }
  return parsed.data;
}

/**
 * The explorer mode: `GRAPHQL_EXPLORER` when set, else `auto` unless `GRAPHQL_SANDBOX=false` or
 * (without `GRAPHQL_SANDBOX=true`) in production.
 * @throws ConfigError when `GRAPHQL_EXPLORER` names an explorer and `GRAPHQL_SANDBOX=false`.
 */
function explorerModeOf(e: Env, production: boolean): ExplorerMode {
  if (e.GRAPHQL_SANDBOX === false && e.GRAPHQL_EXPLORER !== undefined && e.GRAPHQL_EXPLORER !== 'off')
    throw new ConfigError(
      `invalid configuration:\n  GRAPHQL_EXPLORER: ${e.GRAPHQL_EXPLORER} contradicts GRAPHQL_SANDBOX=false (unset one of them)`,
    );
  return e.GRAPHQL_EXPLORER ?? ((e.GRAPHQL_SANDBOX ?? !production) ? 'auto' : 'off');
}

/** The DB_* and SQLITE_* variables as {@link DbLimits}. */
function dbLimitsOf(e: Env): DbLimits {
  return {
    poolMax: e.DB_POOL_MAX,
    acquireTimeoutMs: e.DB_ACQUIRE_TIMEOUT_MS,
    connectTimeoutMs: e.DB_CONNECT_TIMEOUT_MS,
    statementTimeoutMs: e.DB_STATEMENT_TIMEOUT_MS,
    lockWaitTimeoutSeconds: e.DB_LOCK_WAIT_TIMEOUT_SECONDS,
    sqliteBusyTimeoutMs: e.SQLITE_BUSY_TIMEOUT_MS,
    sqliteWalAutocheckpointPages: e.SQLITE_WAL_AUTOCHECKPOINT_PAGES,
    sqliteSynchronous: e.SQLITE_SYNCHRONOUS,
    sqliteGroupCommit: e.SQLITE_GROUP_COMMIT,
  };
}

/** The AMQP_* and OUTBOX_* variables of the outbox relay as {@link EventsConfig}. */
function eventsOf(e: Env): EventsConfig {
  return {
    amqpUrl: e.AMQP_URL ?? null,
    exchange: e.AMQP_EXCHANGE,
    timeoutMs: e.AMQP_TIMEOUT_MS,
    pollIntervalMs: e.OUTBOX_POLL_INTERVAL_MS,
  };
}
