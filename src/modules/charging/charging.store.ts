import { Knex } from 'knex';
import { KeysetPage, byId, keysetPage } from '../../db/keyset';
import { tenantRowsByIds } from '../../db/by-ids';
import { preparedRows } from '../../db/prepared';
import { Money } from '../../lib/money';
import type { Subscriber } from '../subscribers/subscriber.store';

/** Rating kinds (CONTRACT §4 catalogue). */
export type RatingKind = 'content' | 'transport';

/** A catalogue entry; wildcard keys are `*`. */
export interface RatingRow {
  id: number;
  tenantId: number;
  providerId: string;
  applicationId: string;
  serviceId: string;
  originId: string;
  bundleId: string;
  kind: RatingKind;
  retailPrice: Money;
  tax: Money;
}

/** Ledger entry kinds. */
export type ChargeKind = 'charge' | 'refund' | 'adjustment';

/** A ledger row: one decided outcome of one operation. */
export interface ChargeRow {
  id: number;
  tenantId: number;
  kind: ChargeKind;
  operationId: string;
  msisdn: string;
  fingerprint: string | null;
  returnCode: number;
  amount: Money;
  balanceAfter: Money | null;
  currency: string | null;
  reason: string | null;
  createdAt: number;
}

/** The wildcard value of an optional lookup key. */
export const WILDCARD = '*';

const toRating = (r: Record<string, unknown>): RatingRow => ({
  id: Number(r.id),
  tenantId: Number(r.tenant_id),
  providerId: String(r.provider_id),
  applicationId: String(r.application_id),
  serviceId: String(r.service_id),
  originId: String(r.origin_id),
  bundleId: String(r.bundle_id),
  kind: r.kind as RatingKind,
  retailPrice: Money.fromMicros(r.retail_micros as number),
  tax: Money.fromMicros(r.tax_micros as number),
});

const toCharge = (r: Record<string, unknown>): ChargeRow => ({
  id: Number(r.id),
  tenantId: Number(r.tenant_id),
  kind: r.kind as ChargeKind,
  operationId: String(r.operation_id),
  msisdn: String(r.msisdn),
  fingerprint: (r.fingerprint as string | null) ?? null,
  returnCode: Number(r.return_code),
  amount: Money.fromMicros(r.amount_micros as number),
  balanceAfter:
    r.balance_after_micros === null || r.balance_after_micros === undefined
      ? null
      : Money.fromMicros(r.balance_after_micros as number),
  currency: (r.currency as string | null) ?? null,
  reason: (r.reason as string | null) ?? null,
  createdAt: Number(r.created_at),
});

/** The columns {@link toRating} reads (named: a prepared statement keeps its column list across migrations). */
const RATING_COLUMNS =
  'id, tenant_id, provider_id, application_id, service_id, origin_id, bundle_id, kind, retail_micros, tax_micros';

/** The columns {@link toCharge} reads. */
const CHARGE_COLUMNS =
  'id, tenant_id, kind, operation_id, msisdn, fingerprint, return_code, amount_micros, balance_after_micros,' +
  ' currency, reason, created_at';

/**
 * Every catalogue entry of a tenant for a provider and application (both kinds): the lookup of
 * every rating, hand-written SQL (prepared on SQLite; see {@link preparedRows}).
 */
export async function ratingsFor(
  db: Knex,
  tenantId: number,
  providerId: string,
  applicationId: string,
): Promise<RatingRow[]> {
  return (
    await preparedRows<Record<string, unknown>>(
      db,
      `select ${RATING_COLUMNS} from ratings where tenant_id = ? and provider_id = ? and application_id = ?`,
      [tenantId, providerId, applicationId],
    )
  ).map(toRating);
}

/**
 * One page of a tenant's catalogue, list order by id ascending: up to `page.limit + 1` rows in
 * the paging direction (src/db/keyset.ts).
 */
export async function listRatings(
  db: Knex,
  tenantId: number,
  page: KeysetPage<number>,
): Promise<RatingRow[]> {
  const q = db('ratings').select('*').where({ tenant_id: tenantId });
  return (await keysetPage(q, page, byId(), 'asc')).map(toRating);
}

/** How many catalogue entries a tenant has. */
export async function countRatings(db: Knex, tenantId: number): Promise<number> {
  const r = await db('ratings').where({ tenant_id: tenantId }).count({ n: '*' }).first();
  return Number(r?.n ?? 0);
}

/** A tenant's catalogue entries by row id, in one statement (see tenantRowsByIds). */
export async function findRatingsByIds(
  db: Knex,
  tenantId: number,
  ids: readonly number[],
): Promise<RatingRow[]> {
  return (await tenantRowsByIds(db, 'ratings', tenantId, ids)).map(toRating);
}

/** Inserts or updates a catalogue entry by its natural key; returns the row, whether it was created and whether it changed. */
export async function upsertRating(
  db: Knex,
  r: Omit<RatingRow, 'id'>,
  nowMs: number,
): Promise<{ row: RatingRow; created: boolean; changed: boolean }> {
  const key = {
    tenant_id: r.tenantId,
    provider_id: r.providerId,
    application_id: r.applicationId,
    service_id: r.serviceId,
    origin_id: r.originId,
    bundle_id: r.bundleId,
    kind: r.kind,
  };
  const existing = await db('ratings').select('*').where(key).first();
  if (!existing) {
    const [id] = await db('ratings').insert({
      ...key,
      retail_micros: r.retailPrice.toDb(),
      tax_micros: r.tax.toDb(),
      updated_at: nowMs,
    });
    return { row: { ...r, id: Number(id) }, created: true, changed: true };
  }
  const row = toRating(existing);
  if (row.retailPrice.cmp(r.retailPrice) === 0 && row.tax.cmp(r.tax) === 0)
    return { row, created: false, changed: false };
  await db('ratings')
    .where({ id: row.id })
    .update({ retail_micros: r.retailPrice.toDb(), tax_micros: r.tax.toDb(), updated_at: nowMs });
  return { row: { ...row, retailPrice: r.retailPrice, tax: r.tax }, created: false, changed: true };
}

/**
 * The ledger row of an operation, if any: read by every rating and refund, in its transaction
 * when `db` is one; hand-written SQL (prepared on SQLite; see {@link preparedRows}).
 */
export async function findCharge(
  db: Knex,
  tenantId: number,
  kind: ChargeKind,
  operationId: string,
): Promise<ChargeRow | undefined> {
  const [r] = await preparedRows<Record<string, unknown>>(
    db,
    `select ${CHARGE_COLUMNS} from charges where tenant_id = ? and kind = ? and operation_id = ? limit 1`,
    [tenantId, kind, operationId],
  );
  return r ? toCharge(r) : undefined;
}

/**
 * Inserts a ledger row and returns its id. The unique key (tenant, kind, operationId) rejects a
 * second row for the same operation with a unique violation.
 */
export async function insertCharge(db: Knex, c: Omit<ChargeRow, 'id'>): Promise<number> {
  const [id] = await db('charges').insert({
    tenant_id: c.tenantId,
    kind: c.kind,
    operation_id: c.operationId,
    msisdn: c.msisdn,
    fingerprint: c.fingerprint,
    return_code: c.returnCode,
    amount_micros: c.amount.toDb(),
    balance_after_micros: c.balanceAfter?.toDb() ?? null,
    currency: c.currency,
    reason: c.reason,
    created_at: c.createdAt,
  });
  return Number(id);
}

/**
 * One page of a subscriber's ledger, list order newest first (id descending): up to
 * `page.limit + 1` rows in the paging direction (src/db/keyset.ts); the index
 * (tenant_id, msisdn, id) serves it.
 */
export async function listCharges(
  db: Knex,
  tenantId: number,
  msisdn: string,
  page: KeysetPage<number>,
): Promise<ChargeRow[]> {
  const q = db('charges').select('*').where({ tenant_id: tenantId, msisdn });
  return (await keysetPage(q, page, byId(), 'desc')).map(toCharge);
}

/** How many ledger entries a subscriber has (an index range count). */
export async function countCharges(db: Knex, tenantId: number, msisdn: string): Promise<number> {
  const r = await db('charges').where({ tenant_id: tenantId, msisdn }).count({ n: '*' }).first();
  return Number(r?.n ?? 0);
}

/** A tenant's ledger entries by row id, in one statement (see tenantRowsByIds). */
export async function findChargesByIds(
  db: Knex,
  tenantId: number,
  ids: readonly number[],
): Promise<ChargeRow[]> {
  return (await tenantRowsByIds(db, 'charges', tenantId, ids)).map(toCharge);
}

/**
 * Debits a prepaid balance only if it covers `amount` (one conditional UPDATE, atomic on both
 * databases); returns false when the balance is short.
 */
export async function debitIfCovered(db: Knex, subscriberId: number, amount: Money): Promise<boolean> {
  const n = await db('subscribers')
    .where({ id: subscriberId })
    .andWhere('balance_micros', '>=', amount.toDb())
    .update({ balance_micros: db.raw('balance_micros - ?', [amount.toDb()]) });
  return n === 1;
}

/** Adds `delta` (negative to debit) to a balance atomically. */
export async function addToBalance(db: Knex, subscriberId: number, delta: Money): Promise<void> {
  await db('subscribers')
    .where({ id: subscriberId })
    .update({ balance_micros: db.raw('balance_micros + ?', [delta.toDb()]) });
}

/**
 * A subscriber row this transaction has locked (`findSubscriberForUpdate`, src/modules/subscribers/
 * subscriber.store.ts) and the balance it read under that lock.
 */
export type LockedSubscriber = Pick<Subscriber, 'id' | 'paymentType' | 'balance'>;

/**
 * Charges `amount` (decimal currency, exact, positive) to a locked subscriber (CONTRACT §4): a
 * prepaid balance only if it covers it ({@link debitIfCovered}), a postpaid one accumulates.
 * Answers the balance after, or undefined when a prepaid balance is short (nothing taken).
 *
 * The balance after is the locked read's less `amount`, without reading the row again (one
 * statement fewer per charge): until this transaction ends no other can change the row
 * (`FOR UPDATE` on MySQL/MariaDB, a Galera certification conflict reruns the whole transaction;
 * SQLite transactions and group-commit members run one at a time), and this transaction does
 * not change it between that read and this UPDATE.
 * @throws database failures, as the UPDATE raises them.
 */
export async function chargeLockedSubscriber(
  trx: Knex.Transaction,
  sub: LockedSubscriber,
  amount: Money,
): Promise<Money | undefined> {
  if (sub.paymentType === 'prepaid') {
    if (!(await debitIfCovered(trx, sub.id, amount))) return undefined;
  } else {
    await addToBalance(trx, sub.id, Money.ZERO.sub(amount));
  }
  return sub.balance.sub(amount);
}

/**
 * Credits `amount` (decimal currency, exact, not negative) to a locked subscriber (a refund,
 * CONTRACT §4, or an operator's balance adjustment) and answers the balance after, computed as
 * {@link chargeLockedSubscriber} does.
 * @throws database failures, as the UPDATE raises them.
 */
export async function creditLockedSubscriber(
  trx: Knex.Transaction,
  sub: LockedSubscriber,
  amount: Money,
): Promise<Money> {
  await addToBalance(trx, sub.id, amount);
  return sub.balance.add(amount);
}
