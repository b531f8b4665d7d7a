import { hash, randomBytes } from 'node:crypto';
import { Knex } from 'knex';
import { groupedWrite, retryingTransaction } from '../../db/knex';
import { Clock, epochSeconds } from '../../lib/clock';
import { MSISDN_RULE, normalizeMsisdn } from '../../lib/msisdn';
import { BadUserInputError } from '../../errors';
import { Logger } from '../../logger';
import { CdrBatchWriter, sharedCdrWriter } from '../cdrs/cdr.batch-writer';
import { CdrActor, CdrRecorder, TokenCdr } from '../cdrs/cdr.recorder';
import { TokenTx } from '../cdrs/cdr.layouts';
import type { CdrInsert } from '../cdrs/cdr.store';
import {
  TokenRow,
  findToken,
  findTokenByHash,
  insertToken,
  markExpiryRecorded,
  revokeToken,
} from './token.store';

/** The grant type the token endpoint accepts (CONTRACT §3). */
export const CLIENT_CREDENTIALS = 'client_credentials';

/** Who is asking: the authenticated API client and its tenant (`actor`, its username, names it in token CDRs). */
export interface TokenCaller {
  clientId: number;
  tenantId: number;
  actor?: string;
}

/** The actor of the token CDRs of a portal link opened or a subscriber's Bearer credential. */
export const PORTAL_ACTOR = 'portal';

/** A token that is active now, as a subscriber credential: its tenant and subscriber. */
export interface ActiveToken {
  tenantId: number;
  msisdn: string;
  tokenHash: string;
  /** Expiry, epoch seconds. */
  expiresAtSeconds: number;
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

/**
 * SHA-256 hex of a token (UTF-8): the only form stored. Node's one-shot `crypto.hash` (no Hash
 * object per call: a third of createHash's cost, on every introspection).
 */
export function hashToken(token: string): string {
  return hash('sha256', token, 'hex');
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
  private readonly cdrs: CdrRecorder;
  /** Writes the token CDRs outside a token write's transaction (the database's shared writer). */
  private readonly aside: CdrBatchWriter;

  /** `logger` reports token CDRs that could not be written (the operation still answers). */
  constructor(
    private readonly db: Knex,
    private readonly clock: Clock,
    private readonly ttlSeconds: number,
    private readonly logger?: Logger,
  ) {
    this.cdrs = new CdrRecorder(clock);
    this.aside = sharedCdrWriter(db, logger);
  }

  /**
   * Writes the token CDRs "validate" still buffered (see {@link validated}); the app's `close`
   * calls it on shutdown, before the database closes. Never rejects (a CDR not written is logged).
   */
  flushCdrs(): Promise<void> {
    return this.aside.flush();
  }

  /**
   * On shutdown: {@link flushCdrs}, then stops the CDR writer's worker thread (SQLite file,
   * src/modules/cdrs/cdr.sqlite-worker.ts). The app's `close` calls it before the database
   * closes. Never rejects.
   */
  async closeCdrs(): Promise<void> {
    await this.flushCdrs();
    await this.aside.close();
  }

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
    const tokenHash = hashToken(accessToken);
    const create = (status: TokenCdr['status']): TokenCdr => ({
      transaction: TokenTx.CREATE,
      status,
      tokenHash,
      msisdn,
    });
    try {
      // The token row and its CDR "create" commit together (on SQLite in a shared COMMIT).
      await retryingTransaction(this.db, async (trx) => {
        await insertToken(trx, {
          tenantId: caller.tenantId,
          tokenHash,
          msisdn,
          apiClientId: caller.clientId,
          issuedAt: nowMs,
          expiresAtSeconds: Math.floor(nowMs / 1000) + this.ttlSeconds,
        });
        await this.cdrs.token(trx, caller, create('successful'));
      });
    } catch (err) {
      await this.recordAside(caller, create('error'));
      throw err;
    }
    return { accessToken, tokenType: 'bearer', expiresIn: this.ttlSeconds };
  }

  /**
   * Reports whether `token` is active in the caller's tenant: found, not revoked and
   * `now < expiry`. Unknown, expired, revoked and other tenants' tokens are all `{active:false}`.
   * @throws BadUserInputError on `token` for an empty token.
   */
  async introspect(caller: TokenCaller, token: string): Promise<TokenIntrospection> {
    if (token === '') throw emptyToken();
    const tokenHash = hashToken(token);
    let row;
    try {
      row = await findToken(this.db, caller.tenantId, tokenHash);
    } catch (err) {
      await this.recordAside(caller, {
        transaction: TokenTx.VALIDATE,
        status: 'error',
        tokenHash,
        msisdn: null,
      });
      throw err;
    }
    const validated = this.validated(caller, tokenHash, row);
    const active = typeof validated === 'boolean' ? validated : await validated;
    if (!row || !active) return { active: false };
    return {
      active: true,
      clientId: row.msisdn,
      expiry: row.expiresAtSeconds,
      issuedAt: Math.floor(row.issuedAt / 1000),
      issuedBy: row.issuedBy,
    };
  }

  /**
   * Validates a raw token presented as a subscriber credential: a portal link opened
   * (`recordValidation`: its token CDR "validate", actor `portal`) or an `authorization: Bearer`
   * header on /graphql (no validate CDR: one per request would bury the link's). The token's
   * tenant is the one that issued it. Either way the first validation that finds it expired
   * writes its CDR "expire". Returns the token when active (known, not revoked, `now < expiry`),
   * else null.
   * @throws a database error or DatabaseTimeoutError (the portal's 503; nothing was validated).
   */
  async activeToken(token: string, recordValidation: boolean): Promise<ActiveToken | null> {
    if (token === '' || token.length > 512) return null;
    const tokenHash = hashToken(token);
    const row = await findTokenByHash(this.db, tokenHash);
    const actor: CdrActor = { tenantId: row?.tenantId ?? 0, actor: PORTAL_ACTOR };
    const active = row ? await this.validated(actor, tokenHash, row, recordValidation) : false;
    if (!row || !active) return null;
    return { tenantId: row.tenantId, msisdn: row.msisdn, tokenHash, expiresAtSeconds: row.expiresAtSeconds };
  }

  /**
   * Whether `row` (the token found by `tokenHash`, or undefined) is active now; records its CDR
   * "validate" (unless `record` is false) and, the first time it is found expired, its CDR
   * "expire". The validate CDR is stamped now and buffered: the shared batch writer inserts it
   * within its flush interval (100 ms), off the request path (docs/events.md "Token CDR").
   * A token found expired and not revoked instead writes the buffer, its validate CDR and then,
   * once per token, the expire one before answering, so the expire CDR follows its validation.
   * A CDR that cannot be written is logged; the answer stands. The answer comes without a
   * promise when nothing is waited for (the usual validation, a hot path).
   */
  private validated(
    actor: CdrActor,
    tokenHash: string,
    row: TokenRow | undefined,
    record = true,
  ): boolean | Promise<boolean> {
    const expired = row !== undefined && epochSeconds(this.clock) >= row.expiresAtSeconds;
    const active = row !== undefined && row.revokedAt === null && !expired;
    const validate =
      record && actor.tenantId !== 0
        ? this.cdrs.tokenRow(actor, {
            transaction: TokenTx.VALIDATE,
            status: active ? 'successful' : 'validation_failed',
            tokenHash,
            msisdn: row?.msisdn ?? null,
          })
        : undefined;
    if (row !== undefined && expired && row.revokedAt === null)
      return this.validatedExpiring(actor, tokenHash, row, validate);
    const buffered = validate && this.aside.add(validate);
    return buffered ? buffered.then(() => active) : active;
  }

  /** {@link validated} of a token found expired and not revoked: its validate CDR, then its expire CDR, written. */
  private async validatedExpiring(
    actor: CdrActor,
    tokenHash: string,
    row: TokenRow,
    validate: CdrInsert | undefined,
  ): Promise<false> {
    if (validate) await this.aside.writeNow(validate);
    await this.recordExpiry(actor, tokenHash, row);
    return false;
  }

  /** Writes the token's CDR "expire" unless already written (once per token); a failure is logged. */
  private async recordExpiry(actor: CdrActor, tokenHash: string, row: TokenRow): Promise<void> {
    await retryingTransaction(this.db, async (trx) => {
      if (!(await markExpiryRecorded(trx, tokenHash, this.clock.nowMs()))) return;
      const at = { tenantId: row.tenantId, actor: actor.actor };
      await this.cdrs.token(trx, at, {
        transaction: TokenTx.EXPIRE,
        status: 'successful',
        tokenHash,
        msisdn: row.msisdn,
      });
    }).catch((err: unknown) => this.logger?.error({ err }, 'token CDR expire not written'));
  }

  /**
   * Writes one token CDR now, after the buffered ones (sharing a COMMIT on SQLite); a failure is
   * logged, never thrown. A CDR without a tenant (an unknown token opened as a portal link) is
   * not written: every CDR belongs to a tenant.
   */
  private async recordAside(actor: CdrActor, c: TokenCdr): Promise<void> {
    if (actor.tenantId === 0) return;
    await this.aside.writeNow(this.cdrs.tokenRow(actor, c));
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
