import { createHash } from 'node:crypto';
import { Knex } from 'knex';
import { isUniqueViolation, lockingTransaction, transactionConflictOf } from '../../db/knex';
import { ConflictError, RETRY_AFTER_SECONDS, UnprocessableError } from '../../errors';
import { Clock } from '../../lib/clock';
import { requireIdempotencyKey } from '../../lib/idempotency-key';
import { newId } from '../../lib/ids';
import { Logger } from '../../logger';
import {
  PendingClaim,
  completeIdempotencyRecord,
  findIdempotencyRecord,
  insertIdempotencyRecord,
  purgeIdempotencyRecords,
  releaseIdempotencyRecord,
  replaceIdempotencyRecord,
} from './idempotency.store';

/** How long a key's first result is replayed: 24 h from its first request (CONTRACT §5). */
export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;

/**
 * How long a `pending` key belongs to the request that claimed it. A request still running
 * after this may be taken over by a retry; it then cannot commit (its completion finds the row
 * no longer its own and rolls back), so the effect still happens once. The lease only decides
 * how long a retry answers 409 after its first request died (kill -9) without committing.
 */
export const IDEMPOTENCY_LEASE_MS = 30_000;

/** Records past the window are deleted at most this often per process. */
const PURGE_INTERVAL_MS = 60_000;

/** Claim races lost in a row (the row changed between read and write, or a write conflict) before answering 409. */
const CLAIM_ATTEMPTS = 3;

/** One keyed write: whose key, and what "the same request" means for it. */
export interface IdempotentCall {
  tenantId: number;
  /** The client's key; null or undefined runs the write exactly as without idempotency. */
  key: string | null | undefined;
  /** The operation's name, so one key cannot replay another operation's result. */
  operation: string;
  /** The request as the client sent it (JSON): its arguments, body and path parameters. */
  request: unknown;
}

/** JSON with object keys sorted at every level: equal requests give equal text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const o = value as Record<string, unknown>;
    return `{${Object.keys(o)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** SHA-256 (hex) of the operation name and the canonical request. */
export function fingerprint(operation: string, request: unknown): string {
  return createHash('sha256')
    .update(`${operation}\n${canonicalJson(request)}`)
    .digest('hex');
}

const reused = () =>
  new UnprocessableError(
    'idempotency key already used in the last 24 h for another request (other operation or body)',
    { errorCode: 1 },
  );

const inFlight = () =>
  new ConflictError('a request with this idempotency key is still in progress; retry later', {
    errorCode: 1,
    retryAfterSeconds: RETRY_AFTER_SECONDS,
  });

/**
 * Idempotency keys (IETF draft-ietf-httpapi-idempotency-key-header; CONTRACT §5): a keyed write
 * runs at most once per (tenant, key) within {@link IDEMPOTENCY_WINDOW_MS}; a repeat with the
 * same operation and request gets the first result back without running again, also on another
 * instance (the record is in the database). Only committed results are remembered: a write that
 * fails rolls back and frees its key, so a retry runs it again.
 */
export class IdempotencyService {
  private nextPurgeMs = 0;

  constructor(
    private readonly db: Knex,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  /**
   * Runs `scope` in the transaction `begin` starts (the caller's own, e.g.
   * `(s) => lockingTransaction(db, s)`), at most once per key. With a key: claims it first in a
   * statement of its own, then stores `scope`'s result in the same transaction as the effect.
   * `scope`'s result must survive JSON (plain objects, safe integers, strings, null): a replay
   * returns the stored copy.
   * @throws BadUserInputError (412 on `idempotencyKey`) for a malformed key;
   *   UnprocessableError (errorCode 1) when the key was used for another operation or request;
   *   ConflictError (errorCode 1) while the key's first request is still running;
   *   whatever `scope` throws (the key is then free again).
   */
  async run<T>(
    call: IdempotentCall,
    begin: (scope: (trx: Knex.Transaction) => Promise<T>) => Promise<T>,
    scope: (trx: Knex.Transaction) => Promise<T>,
  ): Promise<T> {
    if (call.key === null || call.key === undefined) return begin(scope);
    const { tenantId } = call;
    const key = requireIdempotencyKey(call.key, 'idempotencyKey');
    const claim = await this.claim(tenantId, key, fingerprint(call.operation, call.request));
    if ('replay' in claim) return claim.replay as T;
    try {
      return await begin(async (trx) => {
        const result = await scope(trx);
        if (!(await completeIdempotencyRecord(trx, tenantId, key, claim.owner, JSON.stringify(result))))
          throw inFlight();
        return result;
      });
    } catch (err) {
      await releaseIdempotencyRecord(this.db, tenantId, key, claim.owner).catch((e: unknown) =>
        this.logger.warn({ err: e }, 'idempotency key not released; it frees itself when its lease ends'),
      );
      throw err;
    }
  }

  /**
   * Takes the key for this request (returns its owner token) or answers from its record:
   * completed with the same fingerprint replays; another fingerprint is 422; pending within its
   * lease is 409; pending past its lease, or any record past the window, is taken over.
   */
  private async claim(
    tenantId: number,
    key: string,
    fp: string,
  ): Promise<PendingClaim | { replay: unknown }> {
    await this.purgeExpired();
    for (let attempt = 0; attempt < CLAIM_ATTEMPTS; attempt++) {
      const now = this.clock.nowMs();
      const fresh: PendingClaim = {
        fingerprint: fp,
        owner: newId(),
        createdAt: now,
        lockedUntil: now + IDEMPOTENCY_LEASE_MS,
      };
      const held = await findIdempotencyRecord(this.db, tenantId, key);
      if (!held) {
        try {
          await insertIdempotencyRecord(this.db, tenantId, key, fresh);
          return fresh;
        } catch (err) {
          // Lost the race for the key (on Galera also as a certification conflict): read it again.
          if (isUniqueViolation(err) || transactionConflictOf(err)) continue;
          throw err;
        }
      }
      const expired = held.createdAt + IDEMPOTENCY_WINDOW_MS <= now;
      if (!expired) {
        if (held.fingerprint !== fp) throw reused();
        if (held.state === 'completed') return { replay: JSON.parse(held.result ?? 'null') as unknown };
        if (held.lockedUntil > now) throw inFlight();
      }
      if (await replaceIdempotencyRecord(this.db, tenantId, key, held.owner, fresh)) {
        if (!expired) this.logger.warn({ tenantId }, 'idempotency key taken over after its lease ended');
        return fresh;
      }
    }
    throw inFlight();
  }

  /** Deletes records past the window, at most once per {@link PURGE_INTERVAL_MS}; never fails the request. */
  private async purgeExpired(): Promise<void> {
    const now = this.clock.nowMs();
    if (now < this.nextPurgeMs) return;
    this.nextPurgeMs = now + PURGE_INTERVAL_MS;
    try {
      // READ COMMITTED on MySQL: no gap lock that would hold up new keys' inserts meanwhile.
      await lockingTransaction(this.db, (trx) => purgeIdempotencyRecords(trx, now - IDEMPOTENCY_WINDOW_MS));
    } catch (err) {
      this.logger.warn({ err }, 'idempotency key purge failed');
    }
  }
}
