import { createHash, randomBytes } from 'node:crypto';
import { Knex } from 'knex';
import { groupedWrite } from '../../db/knex';
import { Clock, epochSeconds } from '../../lib/clock';
import { MSISDN_RULE, normalizeMsisdn } from '../../lib/msisdn';
import { BadUserInputError } from '../../errors';
import { findToken, insertToken, revokeToken } from './token.store';

/** The grant type the token endpoint accepts (CONTRACT §3). */
export const CLIENT_CREDENTIALS = 'client_credentials';

/** Who is asking: the authenticated API client and its tenant. */
export interface TokenCaller {
  clientId: number;
  tenantId: number;
}

/** An issued token (CONTRACT §3): `expiresIn` in seconds. */
export interface IssuedToken {
  accessToken: string;
  tokenType: 'bearer';
  expiresIn: number;
}

/**
 * Introspection outcome (CONTRACT §3, RFC 7662 §2.2), only when active: `clientId` is the subscriber
 * MSISDN (the legacy name), `expiry` and `issuedAt` are epoch seconds, `issuedBy` is the username
 * of the API client that issued the token.
 */
export type TokenIntrospection =
  { active: false } | { active: true; clientId: string; expiry: number; issuedAt: number; issuedBy: string };

/** SHA-256 hex of a token: the only form stored. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** The refusal of an empty token (the GraphQL argument is non-null; `""` still reaches here). */
function emptyToken(): BadUserInputError {
  return new BadUserInputError('token must not be empty', [
    { field: 'token', description: 'must not be empty' },
  ]);
}

/**
 * Captive-portal token rules (CONTRACT §3).
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
   * Issues a token for the subscriber `clientId` (an MSISDN, optional `+`). The legacy REST rows
   * check the legacy body shape and answer its published messages themselves before calling this
   * (src/rest/token-input.ts). The token row is durable when this resolves; on SQLite it shares a
   * COMMIT with the writes of the same event-loop turn ({@link groupedWrite}): one fsync for many tokens.
   * @throws BadUserInputError on `grantType` when it is not `client_credentials`, on `clientId`
   *   when it is not an MSISDN; a database error, DatabaseTimeoutError or DeadlineExceededError
   *   when the row could not be written in time (the REST layer's 503: a retry issues a new
   *   token, and a row written without an answer is a token nobody holds).
   */
  async issue(caller: TokenCaller, grantType: string, clientId: string): Promise<IssuedToken> {
    if (grantType !== CLIENT_CREDENTIALS)
      throw new BadUserInputError(`grantType must be ${CLIENT_CREDENTIALS}`, [
        { field: 'grantType', description: `must be ${CLIENT_CREDENTIALS}` },
      ]);
    const msisdn = normalizeMsisdn(clientId);
    if (!msisdn)
      throw new BadUserInputError(`clientId ${MSISDN_RULE}`, [
        { field: 'clientId', description: MSISDN_RULE },
      ]);
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
   * @throws BadUserInputError on `token` for an empty token.
   */
  async introspect(caller: TokenCaller, token: string): Promise<TokenIntrospection> {
    if (token === '') throw emptyToken();
    const row = await findToken(this.db, caller.tenantId, hashToken(token));
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
   * @throws BadUserInputError on `token` for an empty token; a database error or
   *   DatabaseTimeoutError or DeadlineExceededError (503; revoking again is safe).
   */
  async revoke(caller: TokenCaller, token: string): Promise<true> {
    if (token === '') throw emptyToken();
    await groupedWrite(this.db, (db) =>
      revokeToken(db, caller.tenantId, hashToken(token), this.clock.nowMs()),
    );
    return true;
  }
}
