import { createHash } from 'node:crypto';
import { Knex } from 'knex';
import { LRUCache } from 'lru-cache';
import { databaseFailureOf } from '../db/knex';
import { ServiceUnavailableError, isDeadlineStop } from '../errors';
import { parseBasic } from './basic';
import { ApiClient, findClientByUsername } from './client.store';
import { hashPassword, verifyPassword } from './password';

/** The outcome of reading a request's credentials. */
export type AuthResult = { status: 'ok'; client: ApiClient } | { status: 'missing' } | { status: 'invalid' };

/**
 * Authenticates HTTP Basic credentials against API clients (CONTRACT §2).
 *
 * Every failed check costs one scrypt verification: an unknown username is verified against a
 * dummy hash, so it takes as long as a wrong password. A successful verification is remembered
 * (keyed by a digest of username, password and the stored hash, so a password change or a new
 * hash invalidates it) to keep scrypt off the hot path; the client row itself is read on every
 * request, so disabling a client or changing its permissions takes effect at once. Concurrent
 * checks of the same credentials share one scrypt computation (a burst right after a restart
 * costs one verification per credential, not one per request).
 */
export class Authenticator {
  private readonly verified = new LRUCache<string, true>({ max: 10_000, ttl: 10 * 60_000 });
  private readonly inflight = new Map<string, Promise<boolean>>();
  private verificationCount = 0;
  private dummyHash: Promise<string> | undefined;

  constructor(private readonly db: Knex) {}

  /**
   * Reads `authorisation` (published spelling) or `authorization`.
   * @throws ServiceUnavailableError when the client row cannot be read (database down or slow).
   */
  async authenticate(headers: Record<string, string | string[] | undefined>): Promise<AuthResult> {
    const raw = headers['authorization'] ?? headers['authorisation'];
    const creds = parseBasic(Array.isArray(raw) ? raw[0] : raw);
    if (creds === null) return { status: 'missing' };
    if (creds === 'invalid') return { status: 'invalid' };

    let client: ApiClient | undefined;
    try {
      client = await findClientByUsername(this.db, creds.username);
    } catch (err) {
      const failure = databaseFailureOf(err);
      if (failure) throw new ServiceUnavailableError(isDeadlineStop(err) ? 'deadline' : failure);
      throw err;
    }
    const stored = client?.passwordHash ?? (await this.dummy());
    const key = createHash('sha256')
      .update(`${creds.username}\0${creds.password}\0${stored}`)
      .digest('base64');
    const ok =
      (client !== undefined && this.verified.has(key)) ||
      (await this.verifyOnce(key, creds.password, stored));
    if (!ok || !client || !client.enabled) return { status: 'invalid' };
    this.verified.set(key, true);
    return { status: 'ok', client };
  }

  /** One scrypt verification per distinct (credentials, stored hash) in flight; later callers share it. */
  private verifyOnce(key: string, password: string, stored: string): Promise<boolean> {
    let pending = this.inflight.get(key);
    if (!pending) {
      this.verificationCount++;
      pending = verifyPassword(password, stored).finally(() => this.inflight.delete(key));
      this.inflight.set(key, pending);
    }
    return pending;
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
