import { createHash, randomBytes } from 'node:crypto';
import { Knex } from 'knex';
import { groupedWrite } from '../../db/knex';
import { Clock, epochSeconds } from '../../lib/clock';
import { normalizeMsisdn } from '../../lib/msisdn';
import { OAuthRequestError } from '../../errors';
import { findToken, insertToken, revokeToken } from './token.store';

/** The grant type the token endpoint accepts (spec 2.1). */
export const CLIENT_CREDENTIALS = 'client_credentials';

/** Who is asking: the authenticated API client and its tenant. */
export interface TokenCaller {
  clientId: number;
  tenantId: number;
}

/** An issued token (spec 2.2): `expiresIn` in seconds. */
export interface IssuedToken {
  accessToken: string;
  tokenType: 'bearer';
  expiresIn: number;
}

/**
 * Introspection outcome (spec 2.3, RFC 7662 §2.2), only when active: `clientId` is the subscriber
 * MSISDN (the legacy name), `expiry` and `issuedAt` are epoch seconds, `issuedBy` is the username
 * of the API client that issued the token.
 */
export type TokenIntrospection =
  { active: false } | { active: true; clientId: string; expiry: number; issuedAt: number; issuedBy: string };

/** SHA-256 hex of a token: the only form stored. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

const blank = (v: string | null | undefined): boolean => v === null || v === undefined || v === '';

/**
 * Captive-portal token rules (CONTRACT §3, spec 4.1–4.2).
 * Tokens are 256 random bits, base64url (43 characters, safe to append to a portal URL),
 * stored as a SHA-256 hash and scoped to the issuing client's tenant.
 */
export class TokenService {
  constructor(
    private readonly db: Knex,
    private readonly clock: Clock,
    private readonly ttlSeconds: number,
  ) {}

  /**
   * Issues a token for the subscriber `clientId` (an MSISDN).
   * Validation order: null/empty fields (listed `client_id` then `grant_type`, published format),
   * then `grant_type` ≠ `client_credentials`, then the MSISDN syntax. The token row is durable
   * when this resolves; on SQLite it shares a COMMIT with the writes of the same event-loop turn
   * ({@link groupedWrite}, issue 16).
   * @throws OAuthRequestError `invalid_request` or `unsupported_grant_type`; a database error or
   *   DatabaseTimeoutError when the row could not be written in time (the REST layer's 503: a
   *   retry issues a new token, and a row written without an answer is a token nobody holds).
   */
  async issue(
    caller: TokenCaller,
    grantType: string | null | undefined,
    clientId: string | null | undefined,
  ): Promise<IssuedToken> {
    const nulls = [blank(clientId) && 'client_id', blank(grantType) && 'grant_type'].filter(
      (f): f is string => !!f,
    );
    if (nulls.length) {
      throw new OAuthRequestError(
        'invalid_request',
        `[${nulls.map((f) => `${f} cannot be null`).join(', ')}]`,
        nulls,
      );
    }
    if (grantType !== CLIENT_CREDENTIALS) {
      throw new OAuthRequestError('unsupported_grant_type', `grant_type must be ${CLIENT_CREDENTIALS}`, [
        'grant_type',
      ]);
    }
    const msisdn = normalizeMsisdn(clientId);
    if (!msisdn) {
      throw new OAuthRequestError(
        'invalid_request',
        'client_id must be an MSISDN: optional + then 5-15 digits',
        ['client_id'],
      );
    }
    const accessToken = randomBytes(32).toString('base64url');
    const nowMs = this.clock.nowMs();
    await groupedWrite(this.db, (db) =>
      insertToken(db, {
        tenantId: caller.tenantId,
        tokenHash: hashToken(accessToken),
        msisdn,
        apiClientId: caller.clientId,
        issuedAt: nowMs,
        expiresAtSeconds: Math.floor(nowMs / 1000) + this.ttlSeconds,
      }),
    );
    return { accessToken, tokenType: 'bearer', expiresIn: this.ttlSeconds };
  }

  /**
   * Reports whether `token` is active in the caller's tenant: found, not revoked and
   * `now < expiry`. Unknown, expired, revoked and other tenants' tokens are all `{active:false}`.
   * @throws OAuthRequestError `invalid_request` `[token cannot be null]` for a null/empty token.
   */
  async introspect(caller: TokenCaller, token: string | null | undefined): Promise<TokenIntrospection> {
    if (blank(token)) throw new OAuthRequestError('invalid_request', '[token cannot be null]', ['token']);
    const row = await findToken(this.db, caller.tenantId, hashToken(token as string));
    if (!row || row.revokedAt !== null || epochSeconds(this.clock) >= row.expiresAtSeconds)
      return { active: false };
    return {
      active: true,
      clientId: row.msisdn,
      expiry: row.expiresAtSeconds,
      issuedAt: Math.floor(row.issuedAt / 1000),
      issuedBy: row.issuedBy,
    };
  }

  /**
   * Revokes a token of the caller's tenant (RFC 7009: revoking an unknown or already revoked
   * token succeeds). Returns `true` always, once the revocation is durable (on SQLite sharing a
   * COMMIT, see {@link issue}).
   * @throws OAuthRequestError for a null/empty token; a database error or DatabaseTimeoutError
   *   (503; revoking again is safe).
   */
  async revoke(caller: TokenCaller, token: string | null | undefined): Promise<true> {
    if (blank(token)) throw new OAuthRequestError('invalid_request', '[token cannot be null]', ['token']);
    await groupedWrite(this.db, (db) =>
      revokeToken(db, caller.tenantId, hashToken(token as string), this.clock.nowMs()),
    );
    return true;
  }
}
