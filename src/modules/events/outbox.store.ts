import { randomFillSync } from 'node:crypto';
import { Knex } from 'knex';
import { monotonicFactory } from 'ulid';
import { Clock } from '../../lib/clock';
import { currentTraceparent } from '../../lib/tracing';

/**
 * An event to record in the outbox (docs/events.md "Events"), written by the service that makes the
 * change, in the change's own transaction.
 */
export interface NewOutboxEvent {
  /** The tenant the change belongs to (tenants.id); the routing key uses the tenant's name. */
  tenantId: number;
  /** Event type from the event catalogue (docs/events.md "Events"), such as `charge.completed`. */
  type: string;
  /** The msisdn or group id the event is about; the relay keeps order per subject. */
  subject: string;
  /**
   * The event's JSON document. Money is a decimal string, quota an integer in the plan's unit,
   * times epoch seconds, as in the catalogue.
   */
  payload: Record<string, unknown>;
}

/** A recorded outbox event as read back (relay, subscriptions). */
export interface OutboxEvent extends NewOutboxEvent {
  /** Insertion order; follows commit order per subject. */
  seq: number;
  /** The event's public id (ULID), the AMQP `message_id`. */
  eventId: string;
  /** Tenant name (tenants.name), the routing key's first word. */
  tenant: string;
  /** When the change was committed, epoch milliseconds (the writer's clock). */
  createdAtMs: number;
  /** When the broker confirmed the event, epoch milliseconds; null while unpublished. */
  publishedAtMs: number | null;
  /**
   * The W3C `traceparent` of the span that recorded the event (docs/platform.md
   * "Tracing"), or null when tracing was off: the relay's publish span is its child.
   */
  traceparent: string | null;
}

/** Random bytes for ULIDs, drawn from the OS in blocks (see {@link pooledRandom}). */
const randomPool = Buffer.alloc(4096);
let randomAt = randomPool.length;

/**
 * A uniform number in [0, 1) in steps of 1/256 from the OS's cryptographic random source, read
 * 4 KiB at a time. ulid's own default asks `crypto.getRandomValues` for one byte per character,
 * 16 calls for the first id of each millisecond: 84 µs per such id on the bench machine against
 * under 1 µs from the pool (measured: at 400 ratings/s, when most ratings fall in a millisecond
 * of their own, it was about 6 % of the gateway's busy time in a CPU profile).
 */
function pooledRandom(): number {
  if (randomAt >= randomPool.length) {
    randomFillSync(randomPool);
    randomAt = 0;
  }
  return randomPool[randomAt++]! / 256;
}

const nextUlid = monotonicFactory(pooledRandom);

/**
 * A new event id: a ULID (26 Crockford base32 characters, sortable by creation time, strictly
 * increasing within this process).
 */
export function newEventId(clock: Clock): string {
  return nextUlid(clock.nowMs());
}

/**
 * Inserts events into the outbox inside the caller's transaction `trx`, in the order given, and
 * returns their event ids. Must run in the same transaction as the change the events describe:
 * a rolled-back (or retried) transaction takes its events with it. With tracing on, each row
 * keeps the active span's `traceparent`. Raises whatever the database raises (the caller's
 * transaction handles it).
 */
export async function recordEvents(
  trx: Knex,
  clock: Clock,
  events: readonly NewOutboxEvent[],
): Promise<string[]> {
  if (events.length === 0) return [];
  const createdAt = clock.nowMs();
  const traceparent = currentTraceparent();
  const rows = events.map((e) => ({
    event_id: newEventId(clock),
    tenant_id: e.tenantId,
    type: e.type,
    subject: e.subject,
    payload: JSON.stringify(e.payload),
    created_at: createdAt,
    published_at: null,
    ...(traceparent ? { traceparent } : {}),
  }));
  await trx('outbox_events').insert(rows);
  return rows.map((r) => r.event_id);
}

/** One event; see {@link recordEvents}. Returns the event id. */
export async function recordEvent(trx: Knex, clock: Clock, event: NewOutboxEvent): Promise<string> {
  const [id] = await recordEvents(trx, clock, [event]);
  return id;
}

interface OutboxRow {
  seq: number | string;
  event_id: string;
  tenant_id: number;
  tenant: string;
  type: string;
  subject: string;
  payload: string;
  created_at: number | string;
  published_at: number | string | null;
  traceparent: string | null;
}

/** Maps an `outbox_events` row joined with its tenant's name. */
function outboxEventOf(row: OutboxRow): OutboxEvent {
  return {
    seq: Number(row.seq),
    eventId: row.event_id,
    tenantId: row.tenant_id,
    tenant: row.tenant,
    type: row.type,
    subject: row.subject,
    payload: JSON.parse(row.payload) as Record<string, unknown>,
    createdAtMs: Number(row.created_at),
    publishedAtMs: row.published_at === null ? null : Number(row.published_at),
    traceparent: row.traceparent ?? null,
  };
}

/** The columns {@link outboxEventOf} reads. */
function selectOutboxEvents(db: Knex): Knex.QueryBuilder {
  return db('outbox_events as e')
    .join('tenants as t', 't.id', 'e.tenant_id')
    .select(
      'e.seq',
      'e.event_id',
      'e.tenant_id',
      't.name as tenant',
      'e.type',
      'e.subject',
      'e.payload',
      'e.created_at',
      'e.published_at',
      'e.traceparent',
    );
}

/**
 * Events recorded after `afterSeq` (exclusive), oldest first, at most `limit` (1–1000), optionally
 * of one tenant and of some types. Committed rows only (the caller's isolation level). Used by
 * the GraphQL subscription feed, which polls it from the last seq it saw.
 */
export async function listEventsAfter(
  db: Knex,
  options: { afterSeq: number; limit: number; tenantId?: number; types?: readonly string[] },
): Promise<OutboxEvent[]> {
  const q = selectOutboxEvents(db)
    .where('e.seq', '>', options.afterSeq)
    .orderBy('e.seq', 'asc')
    .limit(Math.max(1, Math.min(1000, options.limit)));
  if (options.tenantId !== undefined) q.where('e.tenant_id', options.tenantId);
  if (options.types) q.whereIn('e.type', options.types);
  const rows = (await q) as OutboxRow[];
  return rows.map(outboxEventOf);
}

/** The events with these seqs that exist, oldest first (the subscription feed's re-read of skipped seqs). */
export async function listEventsBySeq(db: Knex, seqs: readonly number[]): Promise<OutboxEvent[]> {
  if (seqs.length === 0) return [];
  const rows = (await selectOutboxEvents(db).whereIn('e.seq', seqs).orderBy('e.seq', 'asc')) as OutboxRow[];
  return rows.map(outboxEventOf);
}

/**
 * A tenant's events of one of `types` by their public ids (ULIDs), in one statement, in no
 * particular order; ids that name no such event of that tenant are left out (the `node(id:)` /
 * `nodes(ids:)` read of the event object types).
 */
export async function findEventsByIds(
  db: Knex,
  tenantId: number,
  eventIds: readonly string[],
  types: readonly string[],
): Promise<OutboxEvent[]> {
  if (eventIds.length === 0) return [];
  const rows = (await selectOutboxEvents(db)
    .where('e.tenant_id', tenantId)
    .whereIn('e.event_id', eventIds)
    .whereIn('e.type', types)) as OutboxRow[];
  return rows.map(outboxEventOf);
}

/** The highest seq recorded so far (0 when the outbox is empty): where a new feed starts. */
export async function lastEventSeq(db: Knex): Promise<number> {
  const row = (await db('outbox_events').max({ seq: 'seq' }).first()) as
    { seq: number | string | null } | undefined;
  return Number(row?.seq ?? 0);
}

/* The relay's reads and writes (see relay.ts). */

/**
 * The oldest unpublished events, in `seq` order, at most `limit`. Order per subject follows
 * `seq` (see the migration), so publishing them in this order keeps it.
 */
export async function listUnpublished(db: Knex, limit: number): Promise<OutboxEvent[]> {
  const rows = (await selectOutboxEvents(db)
    .whereNull('e.published_at')
    .orderBy('e.seq', 'asc')
    .limit(Math.max(1, limit))) as OutboxRow[];
  return rows.map(outboxEventOf);
}

/**
 * Marks events published at `nowMs` (epoch ms), once the broker confirmed them. Rows already
 * marked keep their first time. Returns how many rows it marked.
 */
export async function markPublished(db: Knex, seqs: readonly number[], nowMs: number): Promise<number> {
  if (seqs.length === 0) return 0;
  return db('outbox_events').whereIn('seq', seqs).whereNull('published_at').update({ published_at: nowMs });
}

/** The unpublished backlog: how many events wait, and when the oldest was recorded (epoch ms; null when none). */
export async function outboxBacklog(db: Knex): Promise<{ count: number; oldestCreatedAtMs: number | null }> {
  const row = (await db('outbox_events')
    .whereNull('published_at')
    .count({ n: '*' })
    .min({ oldest: 'created_at' })
    .first()) as { n: number | string; oldest: number | string | null } | undefined;
  return {
    count: Number(row?.n ?? 0),
    oldestCreatedAtMs: row?.oldest === null || row?.oldest === undefined ? null : Number(row.oldest),
  };
}

/**
 * Claims or renews the relay lease for `holder` until `nowMs + leaseMs`: succeeds when the lease
 * is `holder`'s already or has expired. One conditional UPDATE, atomic on SQLite and MySQL, and a
 * row write, so on Galera two nodes claiming at once conflict at certification (the loser's error
 * counts as not claimed). Returns true when `holder` holds the lease now.
 */
export async function claimRelayLease(
  db: Knex,
  holder: string,
  nowMs: number,
  leaseMs: number,
): Promise<boolean> {
  const claimed = await db('outbox_relay_lease')
    .where({ name: 'relay' })
    .andWhere((q) => q.where('holder', holder).orWhere('expires_at', '<', nowMs))
    .update({ holder, expires_at: nowMs + leaseMs });
  return claimed === 1;
}

/** Gives the lease up (graceful shutdown) so another instance takes over at once. */
export async function releaseRelayLease(db: Knex, holder: string): Promise<void> {
  await db('outbox_relay_lease').where({ name: 'relay', holder }).update({ holder: null, expires_at: 0 });
}
