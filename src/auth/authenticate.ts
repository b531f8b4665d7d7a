import { hash } from 'node:crypto';
import { Knex } from 'knex';
import { LRUCache } from 'lru-cache';
import { DEFAULT_CLIENT_CACHE_MS } from '../config/defaults';
import { databaseFailureOf } from '../db/knex';
import { ServiceUnavailableError, TooManyRequestsError } from '../errors';
import { Clock } from '../lib/clock';
import { isDeadlineExceeded } from '../lib/request-scope';
import { BasicCredentials, parseBasic } from './basic';
import { parseBearer } from './bearer';
import { ApiClient, findClientWithLoginFailures } from './client.store';
import { LoginFailureCount } from './login-failure.store';
import { LoginThrottle, LoginThrottleLimits } from './login-throttle';
import { hashPassword, verifyPassword } from './password';

/**
 * The outcome of reading a request's credentials. `bearer`: a captive-portal access token, not
 * checked here (only /graphql accepts it, as a subscriber principal: src/graphql/credentials-plugin.ts);
 * everywhere else it is no credential (REST answers it as a missing or malformed one: 401).
 */
export type AuthResult =
  | { status: 'ok'; client: ApiClient }
  | { status: 'missing' }
  | { status: 'invalid' }
  | { status: 'bearer'; token: string };

/** AUTH_CLIENT_CACHE_MS default, held by the configuration. */
export { DEFAULT_CLIENT_CACHE_MS };

/** What one read of a client row with its failed-login counters gave (see {@link Authenticator}). */
interface ClientRead {
  client: ApiClient;
  failures: LoginFailureCount[];
  /** {@link Authenticator}'s change sequence when the read started. */
  readAt: number;
}

/**
 * The credentials a request presents in `authorisation` (published spelling) or
 * `authorization`: Basic username and password to check, or the result needing no check
 * (a Bearer token, absent or malformed credentials).
 */
function presentedCredentials(
  headers: Record<string, string | string[] | undefined>,
): AuthResult | BasicCredentials {
  const raw = headers['authorization'] ?? headers['authorisation'];
  const header = Array.isArray(raw) ? raw[0] : raw;
  const token = parseBearer(header);
  if (token !== null) return { status: 'bearer', token };
  const creds = parseBasic(header);
  if (creds === null) return { status: 'missing' };
  if (creds === 'invalid') return { status: 'invalid' };
  return creds;
}

/**
 * The key a successful verification is remembered by: a digest of username, password and the
 * stored hash (one-shot SHA-256, no Hash object per request: a hot path).
 */
function credentialsKey(username: string, password: string, stored: string): string {
  return hash('sha256', `${username}\0${password}\0${stored}`, 'base64');
}

/**
 * Authenticates HTTP Basic credentials against API clients (CONTRACT §2).
 *
 * Every failed check costs one scrypt verification: an unknown username is verified against a
 * dummy hash, so it takes as long as a wrong password. A successful verification is remembered
 * (keyed by a digest of username, password and the stored hash, so a password change or a new
 * hash invalidates it) to keep scrypt off the hot path. The client row (with the failed-login
 * counters of the username and the address) is read from the database at most once per
 * `clientCacheMs` (AUTH_CLIENT_CACHE_MS, default 1 s; 0 reads it on every request) per username
 * and address, on each instance: disabling a client, changing its password or permissions, or
 * a lockout counted by another instance takes effect on every instance within that bound.
 * A failed or throttled attempt on this instance drops the cached reads of its
 * username and address at once, so a lockout counted here applies to the next request. Concurrent
 * checks of the same credentials share one scrypt computation (a burst right after a restart
 * costs one verification per credential, not one per request).
 *
 * Failed logins are throttled per username and per client address ({@link LoginThrottle},
 * AUTH_* variables): past the limit an attempt gets TooManyRequestsError without scrypt.
 */
export class Authenticator {
  private readonly verified = new LRUCache<string, true>({ max: 10_000, ttl: 10 * 60_000 });
  private readonly inflight = new Map<string, Promise<boolean>>();
  private verificationCount = 0;
  private dummyHash: Promise<string> | undefined;

  private readonly throttle: LoginThrottle;
  /** Client reads by `username \0 address`, for `clientCacheMs`; undefined when 0. */
  private readonly reads: LRUCache<string, ClientRead> | undefined;
  /**
   * When this instance last changed the counters of a username (`u:` key) or an address (`a:`),
   * as a value of `sequence`, kept as long as a read can live. A cached read older than the last
   * change of its username or address is not used; so dropping them costs O(1), whatever the
   * number of cached reads (a stream of throttled attempts cannot make each one expensive).
   */
  private readonly changes: LRUCache<string, number> | undefined;
  private sequence = 0;
  /** Reads started before this sequence value are not used (a change record was evicted early). */
  private floor = 0;

  /**
   * `limits` default to the configuration defaults; `clock` times the throttle windows;
   * `clientCacheMs` (milliseconds, 0 off) bounds how stale a client row may be; `onThrottled` is
   * called for every attempt refused with TooManyRequestsError (the
   * `login_attempts_throttled_total` metric), before the refusal reaches the caller.
   */
  constructor(
    private readonly db: Knex,
    limits?: LoginThrottleLimits,
    clock?: Clock,
    clientCacheMs: number = DEFAULT_CLIENT_CACHE_MS,
    private readonly onThrottled?: () => void,
  ) {
    this.throttle = new LoginThrottle(db, limits, clock);
    if (clientCacheMs > 0) {
      this.reads = new LRUCache({ max: 10_000, ttl: clientCacheMs });
      this.changes = new LRUCache({
        max: 10_000,
        ttl: clientCacheMs,
        dispose: (_at, _key, reason) => {
          if (reason === 'evict') this.floor = this.sequence;
        },
      });
    }
  }

  /**
   * Reads `authorisation` (published spelling) or `authorization`: Basic credentials, checked
   * here, or a Bearer token, returned unchecked (see {@link AuthResult}). `address` is the client's IP
   * address (Koa's `ctx.ip`, which honours TRUST_PROXY), the second throttle key.
   * @throws ServiceUnavailableError when the client row or the throttle counters cannot be read or
   *   written (database down or slow).
   * @throws TooManyRequestsError when the username or the address has too many failed logins.
   */
  authenticate(
    headers: Record<string, string | string[] | undefined>,
    address?: string,
  ): Promise<AuthResult> {
    const presented = presentedCredentials(headers);
    if (!('username' in presented)) return Promise.resolve(presented);
    const now = this.rememberedNow(presented.username, presented.password, address);
    if (now) return Promise.resolve(now);
    return this.database(() => this.check(presented.username, presented.password, address));
  }

  /**
   * {@link authenticate}'s result when it needs no wait (a hot path: no promise): a Bearer
   * token, absent or malformed credentials, or Basic credentials this instance has verified
   * before whose client row and failed-login counters are cached and fresh (AUTH_CLIENT_CACHE_MS)
   * and whose throttle is open, as a client's repeated requests present them. Undefined
   * otherwise: then {@link authenticate} reads, verifies or refuses them. Never throws.
   */
  authenticateNow(
    headers: Record<string, string | string[] | undefined>,
    address?: string,
  ): AuthResult | undefined {
    const presented = presentedCredentials(headers);
    if (!('username' in presented)) return presented;
    return this.rememberedNow(presented.username, presented.password, address);
  }

  /**
   * The result for credentials verified before, from the fresh cached read of their client
   * (see {@link authenticateNow}); undefined when that needs a read, a verification or a refusal
   * (the throttle closed: {@link check} refuses it and counts it).
   */
  private rememberedNow(
    username: string,
    password: string,
    address: string | undefined,
  ): AuthResult | undefined {
    if (!this.reads) return undefined;
    const cached = this.reads.get(`${username}\0${address ?? ''}`);
    if (!cached || !this.fresh(cached, username, address)) return undefined;
    const key = credentialsKey(username, password, cached.client.passwordHash);
    if (!this.verified.has(key)) return undefined;
    try {
      this.throttle.assertOpen(username, address, cached.failures);
    } catch {
      return undefined;
    }
    return this.rememberedResult(cached.client, key);
  }

  /** The result for right credentials of `client` (remembered under `key`): ok, or invalid when it is disabled. */
  private rememberedResult(client: ApiClient, key: string): AuthResult {
    if (!client.enabled) return { status: 'invalid' };
    this.verified.set(key, true);
    return { status: 'ok', client };
  }

  /** The client row and counters, from the cache while fresh (see the class comment). */
  private async read(
    username: string,
    address: string | undefined,
  ): Promise<{ client: ApiClient | undefined; failures: LoginFailureCount[] }> {
    if (!this.reads || !this.changes)
      return findClientWithLoginFailures(this.db, username, this.throttle.failureKeys(username, address));
    const key = `${username}\0${address ?? ''}`;
    const cached = this.reads.get(key);
    if (cached && this.fresh(cached, username, address)) return cached;
    const readAt = this.sequence;
    const read = await findClientWithLoginFailures(
      this.db,
      username,
      this.throttle.failureKeys(username, address),
    );
    if (read.client) this.reads.set(key, { client: read.client, failures: read.failures, readAt });
    return read;
  }

  /** True when nothing changed the counters of `username` or `address` here since `read` started. */
  private fresh(read: ClientRead, username: string, address: string | undefined): boolean {
    if (read.readAt < this.floor) return false;
    if ((this.changes!.get(`u:${username}`) ?? -1) >= read.readAt) return false;
    return address === undefined || (this.changes!.get(`a:${address}`) ?? -1) < read.readAt;
  }

  /** Marks the cached reads of `username` and of `address` stale (their counters changed here). */
  private forget(username: string, address: string | undefined): void {
    if (!this.changes) return;
    const at = this.sequence++;
    this.changes.set(`u:${username}`, at);
    if (address !== undefined) this.changes.set(`a:${address}`, at);
  }

  private async check(username: string, password: string, address: string | undefined): Promise<AuthResult> {
    const { client, failures } = await this.read(username, address);
    const stored = client?.passwordHash ?? (await this.dummy());
    const key = credentialsKey(username, password, stored);
    const remembered = client !== undefined && this.verified.has(key);
    if (remembered) this.throttle.assertOpen(username, address, failures);
    const ok = remembered || (await this.verifyOnce(key, username, password, stored, address));
    if (!ok || !client) return { status: 'invalid' };
    return this.rememberedResult(client, key);
  }

  /** Runs `read`, turning a database failure into ServiceUnavailableError (CONTRACT §8). */
  private async database<T>(read: () => Promise<T>): Promise<T> {
    try {
      return await read();
    } catch (err) {
      if (err instanceof TooManyRequestsError) this.onThrottled?.();
      const failure = databaseFailureOf(err);
      if (failure) throw new ServiceUnavailableError(isDeadlineExceeded(err) ? 'deadline' : failure);
      throw err;
    }
  }

  /**
   * One throttled scrypt verification per distinct (credentials, stored hash) in flight; later
   * callers share it and its outcome (also a TooManyRequestsError), and count as one attempt.
   */
  private verifyOnce(
    key: string,
    username: string,
    password: string,
    stored: string,
    address: string | undefined,
  ): Promise<boolean> {
    let pending = this.inflight.get(key);
    if (!pending) {
      pending = this.throttledVerify(username, password, stored, address).finally(() =>
        this.inflight.delete(key),
      );
      this.inflight.set(key, pending);
    }
    return pending;
  }

  private async throttledVerify(
    username: string,
    password: string,
    stored: string,
    address: string | undefined,
  ): Promise<boolean> {
    try {
      await this.throttle.attempt(username, address);
      this.verificationCount++;
      const ok = await verifyPassword(password, stored);
      if (ok) await this.throttle.succeeded(username, address);
      else await this.throttle.failed();
      return ok;
    } finally {
      // The counters of this username and address changed (an attempt counted, taken back or cleared).
      this.forget(username, address);
    }
  }

  /** scrypt verifications started since this authenticator was built (for tests and metrics). */
  get verifications(): number {
    return this.verificationCount;
  }

  private dummy(): Promise<string> {
    this.dummyHash ??= hashPassword('unknown-user-dummy-password');
    return this.dummyHash;
  }
}
