import { Redis } from 'ioredis';
import { Counter, Registry } from 'prom-client';
import {
  RateLimiterAbstract,
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
} from 'rate-limiter-flexible';
import type { ApiClient, ClientRateLimit } from '../auth/client.store';
import type { AuthResult, Authenticator } from '../auth/authenticate';
import type { RateLimitConfig } from '../config';
import { RateLimitedError } from '../errors';
import { Logger } from '../logger';
import { Authenticate } from './request-context';

/**
 * How a {@link ClientRateLimit} is counted: `points` requests per fixed window of `windowSeconds`
 * whole seconds (Redis expires keys in whole seconds), starting at the window's first request.
 * The window lasts `burst / requestsPerSecond` seconds rounded (at least 1 s) and holds
 * `requestsPerSecond × window` requests rounded (at least 1): the long-run rate is
 * `requestsPerSecond` and about `burst` requests pass at once (a burst below `requestsPerSecond`
 * counts as `requestsPerSecond`). Unlike a token bucket, a spent window refills at its end, all at once.
 */
export interface RateLimitPolicy {
  /** Requests per window. */
  points: number;
  /** Window length, whole seconds ≥ 1. */
  windowSeconds: number;
}

/** The window that counts `limit` (see {@link RateLimitPolicy}). */
export function policyOf(limit: ClientRateLimit): RateLimitPolicy {
  const windowSeconds = Math.max(1, Math.round(limit.burst / limit.requestsPerSecond));
  return { windowSeconds, points: Math.max(1, Math.round(limit.requestsPerSecond * windowSeconds)) };
}

/**
 * The `RateLimit-Policy` and `RateLimit` header fields of a refusal, in the syntax of
 * draft-ietf-httpapi-ratelimit-headers-09/-10 (Structured Fields: a policy named `default` with its
 * quota `q` per window `w` seconds, and its remaining quota `r` with `t` seconds until it resets).
 */
export function rateLimitHeaders(policy: RateLimitPolicy, resetSeconds: number): Array<[string, string]> {
  return [
    ['ratelimit-policy', `"default";q=${policy.points};w=${policy.windowSeconds}`],
    ['ratelimit', `"default";r=0;t=${resetSeconds}`],
  ];
}

/** Counts the requests of API clients against their rate limits (docs/operations.md "Rate limits"). */
export interface ClientRateLimiter {
  /**
   * Counts one request of `client` against `limit`.
   * @throws RateLimitedError (429 with `retry-after`, `RateLimit-Policy` and `RateLimit`) when over
   *   the limit. Never anything else: a Redis that fails or takes longer than
   *   RATE_LIMIT_REDIS_TIMEOUT_MS lets the request pass (logged at most every 10 s, counted in
   *   `rate_limit_fail_open_total`).
   */
  consume(client: ApiClient, limit: ClientRateLimit): Promise<void>;
  /** Waits until Redis is connected, or failed to connect, or `timeoutMs` passed (start-up); at once without Redis. */
  ready(timeoutMs: number): Promise<void>;
  /** Closes the Redis connection, if any. */
  close(): Promise<void>;
}

/** Between two log lines about a failing Redis, ms. */
const LOG_EVERY_MS = 10_000;

/**
 * The limiter of a gateway: counters in Redis when `config.redisUrl` is set (shared by every
 * gateway using the same Redis and RATE_LIMIT_KEY_PREFIX), else in this process's memory. One
 * limiter per distinct policy, each client's counter keyed by its username. Its metrics
 * (`rate_limited_requests_total{client}`, `rate_limit_fail_open_total`) are registered in `registry`.
 */
export function createClientRateLimiter(
  config: RateLimitConfig,
  registry: Registry,
  logger: Logger,
): ClientRateLimiter {
  const limited = new Counter({
    name: 'rate_limited_requests_total',
    help: 'Requests refused with 429 because their API client was over its rate limit, by client username',
    labelNames: ['client'] as const,
    registers: [registry],
  });
  const failOpen = new Counter({
    name: 'rate_limit_fail_open_total',
    help: 'Requests let through unlimited because Redis failed or did not answer within RATE_LIMIT_REDIS_TIMEOUT_MS',
    registers: [registry],
  });
  let lastLogMs = -Infinity;
  const logFailure = (err: unknown) => {
    const now = Date.now();
    if (now - lastLogMs < LOG_EVERY_MS) return;
    lastLogMs = now;
    logger.warn({ err }, 'rate limiter: Redis unavailable, requests pass unlimited');
  };
  const redis = config.redisUrl ? connectRedis(config.redisUrl, logFailure) : null;
  const limiters = new Map<string, RateLimiterAbstract>();
  const limiterOf = (policy: RateLimitPolicy): RateLimiterAbstract => {
    const name = `${policy.points}-${policy.windowSeconds}`;
    let limiter = limiters.get(name);
    if (!limiter) {
      const opts = {
        keyPrefix: `${config.keyPrefix}:${name}`,
        points: policy.points,
        duration: policy.windowSeconds,
      };
      limiter = redis
        ? new RateLimiterRedis({ ...opts, storeClient: redis, rejectIfRedisNotReady: true })
        : new RateLimiterMemory(opts);
      limiters.set(name, limiter);
    }
    return limiter;
  };
  return {
    consume: async (client, limit) => {
      const policy = policyOf(limit);
      const outcome = await bounded(
        limiterOf(policy).consume(client.username),
        redis ? config.redisTimeoutMs : 0,
      );
      if (outcome === 'timeout' || outcome instanceof Error) {
        failOpen.inc();
        logFailure(
          outcome === 'timeout' ? new Error('no answer within RATE_LIMIT_REDIS_TIMEOUT_MS') : outcome,
        );
        return;
      }
      if (outcome.passed) return;
      limited.inc({ client: client.username });
      const retryAfter = Math.max(1, Math.ceil(outcome.res.msBeforeNext / 1000));
      throw new RateLimitedError(retryAfter, rateLimitHeaders(policy, retryAfter));
    },
    ready: (timeoutMs) => (redis ? redisReady(redis, timeoutMs) : Promise.resolve()),
    close: async () => {
      redis?.disconnect();
    },
  };
}

type Outcome = { passed: boolean; res: RateLimiterRes } | Error | 'timeout';

/**
 * The outcome of a `consume`: passed or refused with its RateLimiterRes, a store error, or
 * 'timeout' when it took longer than `timeoutMs` (0: no bound, for the in-memory limiter).
 */
function bounded(consume: Promise<RateLimiterRes>, timeoutMs: number): Promise<Outcome> {
  const settled = consume.then(
    (res): Outcome => ({ passed: true, res }),
    (err: unknown): Outcome =>
      err instanceof RateLimiterRes
        ? { passed: false, res: err }
        : err instanceof Error
          ? err
          : new Error(String(err)),
  );
  if (timeoutMs <= 0) return settled;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<Outcome>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), timeoutMs);
  });
  return Promise.race([settled, timeout]).finally(() => clearTimeout(timer));
}

/**
 * An ioredis client that never queues a command while disconnected (the limiter fails open at
 * once instead) and reconnects in the background, at most every 2 s.
 */
function connectRedis(url: string, onError: (err: unknown) => void): Redis {
  const redis = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    connectTimeout: 1000,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
  });
  redis.on('error', onError);
  return redis;
}

/** Resolves once `redis` is ready, or its first connection attempt failed, or after `timeoutMs`. */
function redisReady(redis: Redis, timeoutMs: number): Promise<void> {
  if (redis.status === 'ready') return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      redis.off('ready', done);
      redis.off('error', done);
      resolve();
    };
    const timer = setTimeout(done, timeoutMs);
    redis.once('ready', done);
    redis.once('error', done);
  });
}

/**
 * The credentials check of `authenticator`, followed by the rate limit of the authenticated client
 * (every interface authenticates through it: REST rows, OAuth rows, `/graphql`, subscription
 * connects). A client without a limit (nor a tenant default) costs no limiter work; missing,
 * invalid or bearer credentials are not counted here (failed logins have their own throttle).
 * The result comes without a promise when neither needs a wait (credentials verified before,
 * `Authenticator.authenticateNow`, and no limit to count): a hot path.
 * @throws (the promise rejects with) what `authenticate` throws, and RateLimitedError over the
 *   client's limit.
 */
export function rateLimited(
  authenticator: Pick<Authenticator, 'authenticate' | 'authenticateNow'>,
  limiter: ClientRateLimiter,
): Authenticate {
  // One function for every request (no closure per request, a hot path); a client without a
  // limit goes through it untouched.
  const limit = (auth: AuthResult): AuthResult | Promise<AuthResult> =>
    auth.status === 'ok' && auth.client.rateLimit
      ? limiter.consume(auth.client, auth.client.rateLimit).then(() => auth)
      : auth;
  return (headers, address) => {
    const now = authenticator.authenticateNow(headers, address);
    if (now) return limit(now);
    return authenticator.authenticate(headers, address).then(limit);
  };
}
