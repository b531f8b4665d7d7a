import { createHash } from 'node:crypto';
import { Knex } from 'knex';
import { LRUCache } from 'lru-cache';
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
 * request, so disabling a client or changing its permissions takes effect at once.
 */
export class Authenticator {
  private readonly verified = new LRUCache<string, true>({ max: 10_000, ttl: 10 * 60_000 });
  private dummyHash: Promise<string> | undefined;

  constructor(private readonly db: Knex) {}

  /** Reads `authorisation` (published spelling) or `authorization`. */
  async authenticate(headers: Record<string, string | string[] | undefined>): Promise<AuthResult> {
    const raw = headers['authorization'] ?? headers['authorisation'];
    const creds = parseBasic(Array.isArray(raw) ? raw[0] : raw);
    if (creds === null) return { status: 'missing' };
    if (creds === 'invalid') return { status: 'invalid' };

    const client = await findClientByUsername(this.db, creds.username);
    const stored = client?.passwordHash ?? (await this.dummy());
    const key = createHash('sha256')
      .update(`${creds.username}\0${creds.password}\0${stored}`)
      .digest('base64');
    let ok = client !== undefined && this.verified.has(key);
    if (!ok) {
      ok = (await verifyPassword(creds.password, stored)) && client !== undefined;
      if (ok) this.verified.set(key, true);
    }
    if (!ok || !client || !client.enabled) return { status: 'invalid' };
    return { status: 'ok', client };
  }

  private dummy(): Promise<string> {
    this.dummyHash ??= hashPassword('unknown-user-dummy-password');
    return this.dummyHash;
  }
}
