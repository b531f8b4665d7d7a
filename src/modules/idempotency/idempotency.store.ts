import { Knex } from 'knex';

/** `pending`: the first request is running (or died); `completed`: its result is stored. */
export type IdempotencyState = 'pending' | 'completed';

/** One idempotency key of a tenant. Times in epoch milliseconds. */
export interface IdempotencyRecord {
  tenantId: number;
  key: string;
  /** SHA-256 (hex) of the operation name and the canonical request. */
  fingerprint: string;
  state: IdempotencyState;
  /** The attempt holding the row: a random token, changed by every claim and takeover. */
  owner: string;
  /** The operation's result as JSON, once `completed`. */
  result: string | null;
  createdAt: number;
  /** A `pending` row whose lease ends before now has a dead owner. */
  lockedUntil: number;
}

/** What a claim writes: a fresh `pending` row. */
export type PendingClaim = Pick<IdempotencyRecord, 'fingerprint' | 'owner' | 'createdAt' | 'lockedUntil'>;

const TABLE = 'idempotency_keys';

function fromRow(r: Record<string, unknown>): IdempotencyRecord {
  return {
    tenantId: Number(r.tenant_id),
    key: r.idempotency_key as string,
    fingerprint: r.fingerprint as string,
    state: r.state as IdempotencyState,
    owner: r.owner as string,
    result: (r.result as string | null) ?? null,
    createdAt: Number(r.created_at),
    lockedUntil: Number(r.locked_until),
  };
}

const pendingColumns = (c: PendingClaim) => ({
  fingerprint: c.fingerprint,
  state: 'pending',
  owner: c.owner,
  result: null,
  created_at: c.createdAt,
  locked_until: c.lockedUntil,
});

/** The tenant's record of `key`, or undefined. */
export async function findIdempotencyRecord(
  db: Knex,
  tenantId: number,
  key: string,
): Promise<IdempotencyRecord | undefined> {
  const r = await db(TABLE).where({ tenant_id: tenantId, idempotency_key: key }).first();
  return r ? fromRow(r) : undefined;
}

/**
 * Inserts a `pending` record.
 * @throws the database's unique violation when the tenant already has `key`.
 */
export async function insertIdempotencyRecord(
  db: Knex,
  tenantId: number,
  key: string,
  claim: PendingClaim,
): Promise<void> {
  await db(TABLE).insert({ tenant_id: tenantId, idempotency_key: key, ...pendingColumns(claim) });
}

/**
 * Replaces the record held by `expectedOwner` with a fresh `pending` one (a takeover, or a key
 * past its window). Compare-and-swap: false when another attempt changed the row first.
 */
export async function replaceIdempotencyRecord(
  db: Knex,
  tenantId: number,
  key: string,
  expectedOwner: string,
  claim: PendingClaim,
): Promise<boolean> {
  const n = await db(TABLE)
    .where({ tenant_id: tenantId, idempotency_key: key, owner: expectedOwner })
    .update(pendingColumns(claim));
  return n === 1;
}

/**
 * Marks the record `completed` with `result`, inside the effect's transaction `trx`; false when
 * `owner` no longer holds it `pending` (it was taken over), in which case the caller must roll back.
 */
export async function completeIdempotencyRecord(
  trx: Knex.Transaction,
  tenantId: number,
  key: string,
  owner: string,
  result: string,
): Promise<boolean> {
  const n = await trx(TABLE)
    .where({ tenant_id: tenantId, idempotency_key: key, owner, state: 'pending' })
    .update({ state: 'completed', result });
  return n === 1;
}

/** Deletes the record if `owner` still holds it `pending` (its effect failed and rolled back). */
export async function releaseIdempotencyRecord(
  db: Knex,
  tenantId: number,
  key: string,
  owner: string,
): Promise<void> {
  await db(TABLE).where({ tenant_id: tenantId, idempotency_key: key, owner, state: 'pending' }).delete();
}

/** Deletes every record created before `createdBefore` (epoch ms); returns how many. */
export function purgeIdempotencyRecords(db: Knex, createdBefore: number): Promise<number> {
  return db(TABLE).where('created_at', '<', createdBefore).delete();
}
