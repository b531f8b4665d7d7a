import { Knex } from 'knex';
import { forUpdate } from '../../db/knex';
import { Money } from '../../lib/money';

/** Subscriber status (CONTRACT §9). */
export type SubscriberStatus = 'active' | 'inactive' | 'suspended';
/** Subscriber payment type (CONTRACT §9). */
export type PaymentType = 'prepaid' | 'postpaid';

/** A subscriber account: msisdn canonical (digits), balance exact, currency ISO 4217. */
export interface Subscriber {
  id: number;
  tenantId: number;
  msisdn: string;
  status: SubscriberStatus;
  paymentType: PaymentType;
  balance: Money;
  currency: string;
}

const COLUMNS = ['id', 'tenant_id', 'msisdn', 'status', 'payment_type', 'balance_micros', 'currency'];

function toSubscriber(r: Record<string, unknown>): Subscriber {
  return {
    id: Number(r.id),
    tenantId: Number(r.tenant_id),
    msisdn: String(r.msisdn),
    status: r.status as SubscriberStatus,
    paymentType: r.payment_type as PaymentType,
    balance: Money.fromMicros(r.balance_micros as number | string),
    currency: String(r.currency),
  };
}

/** Finds a tenant's subscriber by canonical MSISDN. */
export async function findSubscriber(
  db: Knex,
  tenantId: number,
  msisdn: string,
): Promise<Subscriber | undefined> {
  const r = await db('subscribers').select(COLUMNS).where({ tenant_id: tenantId, msisdn }).first();
  return r ? toSubscriber(r) : undefined;
}

/**
 * Finds a subscriber inside a transaction and locks its row until the transaction ends (MySQL
 * `FOR UPDATE`; SQLite transactions already exclude each other), so that operations on one
 * balance serialise from the start.
 */
export async function findSubscriberForUpdate(
  trx: Knex.Transaction,
  tenantId: number,
  msisdn: string,
): Promise<Subscriber | undefined> {
  const r = await forUpdate(
    trx,
    trx('subscribers').select(COLUMNS).where({ tenant_id: tenantId, msisdn }),
  ).first();
  return r ? toSubscriber(r) : undefined;
}

/** The SELECT of a tenant's subscribers with these canonical MSISDNs (each once), in MSISDN order. */
function subscribersIn(db: Knex, tenantId: number, msisdns: readonly string[]): Knex.QueryBuilder {
  return db('subscribers')
    .select(COLUMNS)
    .where({ tenant_id: tenantId })
    .whereIn('msisdn', [...new Set(msisdns)].sort())
    .orderBy('msisdn');
}

/** Subscriber rows keyed by canonical MSISDN. */
function byMsisdn(rows: Record<string, unknown>[]): Map<string, Subscriber> {
  return new Map(rows.map((r) => [String(r.msisdn), toSubscriber(r)]));
}

/**
 * Finds a tenant's subscribers by canonical MSISDN in one statement (the batch behind
 * `node(ids:)` and `_entities`, docs/graphql.md "Ids"). MSISDNs not found are absent from the map.
 */
export async function findSubscribers(
  db: Knex,
  tenantId: number,
  msisdns: readonly string[],
): Promise<Map<string, Subscriber>> {
  return msisdns.length === 0 ? new Map() : byMsisdn(await subscribersIn(db, tenantId, msisdns));
}

/**
 * Finds a tenant's subscribers by canonical MSISDN in one statement and, inside a transaction on
 * MySQL/MariaDB, locks their rows until it ends (`FOR UPDATE` in MSISDN order, the order every
 * multi-subscriber lock takes, so two such transactions cannot deadlock on each other's rows;
 * SQLite transactions already exclude each other). MSISDNs not found are absent from the map.
 */
export async function findSubscribersForUpdate(
  trx: Knex.Transaction,
  tenantId: number,
  msisdns: string[],
): Promise<Map<string, Subscriber>> {
  if (msisdns.length === 0) return new Map();
  return byMsisdn(await forUpdate(trx, subscribersIn(trx, tenantId, msisdns)));
}

/** The writable fields of a subscriber. */
export type SubscriberWrite = Omit<Subscriber, 'id'>;

/** Inserts a subscriber; returns its id. */
export async function insertSubscriber(db: Knex, s: SubscriberWrite, nowMs: number): Promise<number> {
  const [id] = await db('subscribers').insert({
    tenant_id: s.tenantId,
    msisdn: s.msisdn,
    status: s.status,
    payment_type: s.paymentType,
    balance_micros: s.balance.toDb(),
    currency: s.currency,
    created_at: nowMs,
    updated_at: nowMs,
  });
  return Number(id);
}

/** Overwrites a subscriber's status, payment type, balance and currency. */
export async function updateSubscriber(
  db: Knex,
  id: number,
  s: SubscriberWrite,
  nowMs: number,
): Promise<void> {
  await db('subscribers').where({ id }).update({
    status: s.status,
    payment_type: s.paymentType,
    balance_micros: s.balance.toDb(),
    currency: s.currency,
    updated_at: nowMs,
  });
}
