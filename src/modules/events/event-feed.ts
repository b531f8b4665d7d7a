import { Knex } from 'knex';
import { runInRequestScope } from '../../lib/request-scope';
import { Logger } from '../../logger';
import { OutboxEvent, findEventsByIds, lastEventSeq, listEventsAfter, listEventsBySeq } from './outbox.store';

/** Which events one subscription receives: one tenant's events of some types about one subject. */
export interface FeedFilter {
  /** tenants.id of the subscriber's API client: no other tenant's event is ever delivered. */
  tenantId: number;
  /** Event types from the catalogue, e.g. `charge.completed`. */
  types: readonly string[];
  /** The event subject (a canonical msisdn). */
  subject: string;
}

/** Events read per outbox query. */
const PAGE = 500;
/** Unread events a subscription may accumulate before it is ended as too slow. */
export const MAX_UNREAD_EVENTS = 1000;
/**
 * How long a missing seq is waited for, ms: a transaction that took its seq before another but
 * commits after it (MariaDB allocates AUTO_INCREMENT values at insert time) shows as a gap until
 * it commits. Transactions are bounded by the request deadlines, so after this the gap is a
 * rollback (or Galera's auto_increment_increment stride) and is skipped.
 */
const GAP_WAIT_MS = 10_000;
/** Gaps wider than this many seqs are not waited for (an AUTO_INCREMENT jump, not a transaction in flight). */
const MAX_GAP = 1000;
/** Missing seqs waited for at once; past it the oldest are given up (bounds memory and the gap query). */
const MAX_GAPS = 5000;
/** Deadline of one outbox read (bounds its statement), ms. */
const READ_DEADLINE_MS = 2000;

interface Subscriber {
  filter: FeedFilter;
  deliver(event: OutboxEvent): void;
  end(): void;
}

/**
 * The outbox feed behind the GraphQL subscriptions: one poller per gateway
 * reads new outbox events (`listEventsAfter`) every `pollMs` while at least one subscription is
 * open, and hands each event to the subscriptions whose {@link FeedFilter} it matches. Because it
 * reads the shared database, every gateway sees every committed event, whichever gateway made
 * the change. A subscription sees the events committed after it started, each once, in commit
 * order per subject. The poller stops when the last subscription ends; a database failure is
 * logged and the read retried at the next tick with a backoff (subscriptions stay open).
 *
 * Seqs are taken at insert time, so on MariaDB a transaction can commit a lower seq after a
 * higher one was read. Each read therefore asks for the seqs above the highest seen and, again,
 * for the seqs it skipped (gaps), for up to {@link GAP_WAIT_MS}: a late commit is delivered when it
 * shows up (after the events committed before it), a rollback's or Galera's stride's gap expires.
 */
export class EventFeed {
  private readonly subscribers = new Set<Subscriber>();
  /** The highest seq read (delivered, or the outbox's last when the poller started). */
  private cursor: number | undefined;
  /** Seqs below the cursor not seen yet, with when they were first missed (ms), oldest first. */
  private readonly gaps = new Map<number, number>();
  private timer: NodeJS.Timeout | undefined;
  private inflightPoll: Promise<void> | undefined;
  private starting: Promise<void> | undefined;
  private stopped = false;
  private failures = 0;

  constructor(
    private readonly db: Knex,
    private readonly pollMs: number,
    private readonly logger: Logger,
  ) {}

  /** Open subscriptions on this gateway. */
  get subscriptionCount(): number {
    return this.subscribers.size;
  }

  /**
   * A subscription: an async iterator of the matching events committed from now on. Resolves
   * once the feed knows where "now" is (the outbox's last seq), so an event committed after this
   * resolves is delivered. Returning from the iterator (the client unsubscribes) ends it.
   * @throws the database's error when the outbox's position cannot be read.
   */
  async subscribe(filter: FeedFilter): Promise<AsyncIterableIterator<OutboxEvent>> {
    if (this.stopped) throw new Error('event feed stopped');
    await this.start();
    const queue = new EventQueue(() => {
      this.subscribers.delete(subscriber);
      this.stopIfIdle();
    });
    const subscriber: Subscriber = { filter, deliver: (event) => queue.push(event), end: () => queue.end() };
    this.subscribers.add(subscriber);
    return queue;
  }

  /**
   * The recorded events of the tenant with these public ids (ULIDs) that are of one of `types`,
   * in one statement, in any order; ids naming none (another tenant's event included) left out.
   * Reads the outbox, not the feed.
   */
  events(tenantId: number, eventIds: readonly string[], types: readonly string[]): Promise<OutboxEvent[]> {
    return findEventsByIds(this.db, tenantId, eventIds, types);
  }

  /** True while the poller runs (a read scheduled or under way): only while subscriptions are open. */
  get active(): boolean {
    return this.timer !== undefined || this.inflightPoll !== undefined;
  }

  /** Ends every subscription and the poller (shutdown). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    for (const s of [...this.subscribers]) s.end();
    this.subscribers.clear();
    await this.inflightPoll;
  }

  /** Reads the outbox's position when the poller is not running, then schedules the first read. */
  private start(): Promise<void> {
    if (this.cursor !== undefined) return Promise.resolve();
    this.starting ??= (async () => {
      try {
        const seq = await runInRequestScope(READ_DEADLINE_MS, () => lastEventSeq(this.db));
        this.cursor = seq;
        this.gaps.clear();
        this.schedule();
      } finally {
        this.starting = undefined;
      }
    })();
    return this.starting;
  }

  private schedule(): void {
    if (this.stopped || this.timer) return;
    const wait = this.failures ? Math.min(5000, this.pollMs * 2 ** this.failures) : this.pollMs;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.inflightPoll = this.poll().finally(() => {
        this.inflightPoll = undefined;
        if (this.subscribers.size > 0 || this.starting) this.schedule();
        else this.cursor = undefined;
      });
    }, wait);
    this.timer.unref();
  }

  private stopIfIdle(): void {
    if (this.subscribers.size > 0 || this.inflightPoll) return;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.cursor = undefined;
  }

  /** One read of the outbox above the cursor and of the gaps, delivering what it finds. */
  private async poll(): Promise<void> {
    if (this.cursor === undefined || this.subscribers.size === 0) return;
    try {
      for (;;) {
        const from: number = this.cursor;
        const events = await runInRequestScope(READ_DEADLINE_MS, () =>
          listEventsAfter(this.db, { afterSeq: from, limit: PAGE }),
        );
        for (const event of events) {
          if (event.seq - this.cursor - 1 <= MAX_GAP)
            for (let s = this.cursor + 1; s < event.seq; s++) this.gaps.set(s, Date.now());
          this.cursor = event.seq;
          this.deliver(event);
        }
        if (events.length < PAGE) break;
      }
      await this.readGaps();
      this.failures = 0;
    } catch (err) {
      this.failures = Math.min(this.failures + 1, 6);
      this.logger.warn({ err }, 'subscription feed: outbox read failed; retrying');
    }
  }

  /** Gives up expired gaps, then delivers the gap seqs committed since. */
  private async readGaps(): Promise<void> {
    const now = Date.now();
    for (const [seq, since] of this.gaps) {
      if (now - since < GAP_WAIT_MS && this.gaps.size <= MAX_GAPS) break;
      this.gaps.delete(seq);
    }
    if (this.gaps.size === 0) return;
    const seqs = [...this.gaps.keys()];
    const events = await runInRequestScope(READ_DEADLINE_MS, () => listEventsBySeq(this.db, seqs));
    for (const event of events) if (this.gaps.delete(event.seq)) this.deliver(event);
  }

  /** Hands `event` to every subscription whose filter it matches. */
  private deliver(event: OutboxEvent): void {
    for (const s of this.subscribers) {
      const f = s.filter;
      if (f.tenantId === event.tenantId && f.subject === event.subject && f.types.includes(event.type))
        s.deliver(event);
    }
  }
}

/**
 * One subscription's unread events: an async iterator fed by the poller. Past
 * {@link MAX_UNREAD_EVENTS} unread events it fails (the subscription ends with an error rather
 * than silently missing events). `return()` (the client unsubscribed) or the end of the feed
 * ends it; `onEnd` runs once either way.
 */
class EventQueue implements AsyncIterableIterator<OutboxEvent> {
  private readonly buffer: OutboxEvent[] = [];
  private waiting: ((result: IteratorResult<OutboxEvent>) => void) | undefined;
  private failure: Error | undefined;
  private ended = false;

  constructor(private readonly onEnd: () => void) {}

  push(event: OutboxEvent): void {
    if (this.ended || this.failure) return;
    if (this.waiting) {
      const resolve = this.waiting;
      this.waiting = undefined;
      resolve({ value: event, done: false });
    } else if (this.buffer.length >= MAX_UNREAD_EVENTS) {
      this.failure = new Error(`subscription ended: more than ${MAX_UNREAD_EVENTS} events unread`);
      this.onEndOnce();
    } else this.buffer.push(event);
  }

  /** Ends the subscription from the feed's side (shutdown). */
  end(): void {
    this.finish();
  }

  next(): Promise<IteratorResult<OutboxEvent>> {
    if (this.buffer.length) return Promise.resolve({ value: this.buffer.shift()!, done: false });
    if (this.failure) {
      const err = this.failure;
      this.failure = undefined;
      this.ended = true;
      return Promise.reject(err);
    }
    if (this.ended) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => (this.waiting = resolve));
  }

  return(): Promise<IteratorResult<OutboxEvent>> {
    this.buffer.length = 0;
    this.finish();
    return Promise.resolve({ value: undefined, done: true });
  }

  throw(err?: unknown): Promise<IteratorResult<OutboxEvent>> {
    this.finish();
    return Promise.reject(err instanceof Error ? err : new Error(String(err)));
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<OutboxEvent> {
    return this;
  }

  private finish(): void {
    if (this.ended) return;
    this.ended = true;
    this.onEndOnce();
    const resolve = this.waiting;
    this.waiting = undefined;
    resolve?.({ value: undefined, done: true });
  }

  private endNotified = false;
  private onEndOnce(): void {
    if (this.endNotified) return;
    this.endNotified = true;
    this.onEnd();
  }
}
