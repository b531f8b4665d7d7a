import { randomUUID } from 'node:crypto';
import os from 'node:os';
import amqplib, { ChannelModel, ConfirmChannel } from 'amqplib';
import { Knex } from 'knex';
import { Counter, Gauge } from 'prom-client';
import { EventsConfig } from '../../config';
import { Clock } from '../../lib/clock';
import { runInRequestScope } from '../../lib/request-scope';
import { publishSpans } from '../../lib/tracing-publish';
import { jitteredBackoffMs, withTimeout } from '../../lib/wait';
import { Logger } from '../../logger';
import {
  OutboxEvent,
  claimRelayLease,
  listUnpublished,
  markPublished,
  releaseRelayLease,
} from './outbox.store';

/**
 * The outbox relay (docs/events.md "Events"): publishes committed outbox events to
 * RabbitMQ with amqplib, at least once, in `seq` order.
 *
 * - **One active relay** across every gateway instance of a database: each instance runs a
 *   relay, and the one holding the lease row (`outbox_relay_lease`, see
 *   {@link claimRelayLease}) publishes; it renews the lease before every batch, the others look
 *   again every {@link RELAY_LEASE_MS}/3. So in the normal case each event is published once,
 *   and order per subject holds across instances. A lease held by a crashed instance expires
 *   after {@link RELAY_LEASE_MS} of wall-clock time; one paused for longer than that may overlap with its
 *   successor for one batch (duplicates, consumers deduplicate by `message_id`).
 * - **Publishing**: a durable topic exchange (`AMQP_EXCHANGE`), routing key
 *   `<tenant>.<type>`, persistent JSON messages with `message_id` = the event id, on a confirm
 *   channel. A batch (oldest unpublished first, at most {@link RELAY_BATCH_SIZE}) is marked
 *   published only after the broker confirmed all of it; a nack, a timeout or a lost
 *   connection leaves it unpublished and it is sent again in full (in order) after a backoff.
 *   A crash between the confirm and the mark also sends it again: at least once.
 * - **Failures**: the broker or the database down: the relay backs off (full jitter, from
 *   {@link RELAY_BACKOFF_MIN_MS} doubling to {@link RELAY_BACKOFF_MAX_MS}) and tries again; the
 *   gateway keeps serving and the outbox keeps growing (`outbox_unpublished_events`). Every wait
 *   has a deadline: connecting and each batch's confirms `AMQP_TIMEOUT_MS`, database statements
 *   the same budget (run in a request scope, so {@link Knex} bounds them).
 * - **Shutdown**: {@link OutboxRelay.stop} ends the loop after the batch in flight (bounded),
 *   closes the connection and releases the lease.
 */
export class OutboxRelay {
  /** This instance's name in the lease row. */
  readonly holder = `${os.hostname().slice(0, 24)}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private stopping = false;
  private loop: Promise<void> | undefined;
  private wakeUp: (() => void) | undefined;
  private connection: ChannelModel | undefined;
  private channel: ConfirmChannel | undefined;
  private failures = 0;

  constructor(
    private readonly db: Knex,
    private readonly clock: Clock,
    private readonly config: EventsConfig & { amqpUrl: string },
    private readonly logger: Logger,
    private readonly metrics: RelayMetrics,
  ) {}

  /** Starts relaying in the background (idempotent). */
  start(): void {
    if (this.loop) return;
    this.logger.info(
      {
        exchange: this.config.exchange,
        broker: this.config.amqpUrl.replace(/\/\/[^@]*@/, '//***@'),
        holder: this.holder,
      },
      'outbox relay started',
    );
    this.loop = this.run();
  }

  /** Ends the sleep between polls, so a new event goes out at once (tests, after a write). */
  wake(): void {
    this.wakeUp?.();
  }

  /**
   * Stops relaying: waits for the batch in flight up to `timeoutMs`, closes the broker
   * connection and gives the lease up (each bounded). Unpublished events stay in the outbox for
   * the next relay. Never throws.
   */
  async stop(timeoutMs: number = this.config.timeoutMs): Promise<void> {
    this.stopping = true;
    this.wake();
    if (this.loop) await withTimeout(this.loop, timeoutMs).catch(() => undefined);
    await this.disconnect();
    this.metrics.active.set(0);
    await this.bounded(() => releaseRelayLease(this.db, this.holder)).catch(() => undefined);
  }

  private async run(): Promise<void> {
    while (!this.stopping) {
      let pause: number;
      try {
        const outcome = await this.step();
        if (this.failures > 0) this.logger.info({ failures: this.failures }, 'outbox relay recovered');
        this.failures = 0;
        pause =
          outcome === 'more' ? 0 : outcome === 'standby' ? RELAY_LEASE_MS / 3 : this.config.pollIntervalMs;
      } catch (err) {
        this.failures++;
        this.metrics.failures.inc();
        // The first failure of a streak and then every 20th, so an outage does not flood the log.
        if (this.failures === 1 || this.failures % 20 === 0)
          this.logger.warn({ err, failures: this.failures }, 'outbox relay failed; backing off');
        await this.disconnect();
        pause = jitteredBackoffMs(this.failures, RELAY_BACKOFF_MIN_MS, RELAY_BACKOFF_MAX_MS);
      }
      if (pause > 0 && !this.stopping) await this.sleep(pause);
    }
  }

  /**
   * One round: claim or renew the lease, read the oldest unpublished events, publish them and
   * wait for the confirms, mark them published.
   * @returns `more` when a full batch went out, `idle` when the outbox is drained, `standby`
   *   when another instance holds the lease.
   */
  private async step(): Promise<'more' | 'idle' | 'standby'> {
    const held = await this.bounded(() =>
      claimRelayLease(this.db, this.holder, Date.now(), RELAY_LEASE_MS),
    ).catch((err: unknown) => {
      // A Galera certification conflict or lock wait on the lease row: another instance claimed it.
      if ((err as { errno?: number }).errno === 1213 || (err as { errno?: number }).errno === 1205)
        return false;
      throw err;
    });
    this.metrics.active.set(held ? 1 : 0);
    if (!held) {
      await this.disconnect();
      return 'standby';
    }
    const events = await this.bounded(() => listUnpublished(this.db, RELAY_BATCH_SIZE));
    if (events.length === 0) return 'idle';
    const channel = await this.openChannel();
    await this.publish(channel, events);
    await this.bounded(() =>
      markPublished(
        this.db,
        events.map((e) => e.seq),
        this.clock.nowMs(),
      ),
    );
    this.metrics.published.inc(events.length);
    return events.length === RELAY_BATCH_SIZE ? 'more' : 'idle';
  }

  /**
   * Publishes `events` in order and waits for the broker to confirm every one (AMQP_TIMEOUT_MS).
   * With tracing on, each event's publication is a producer span, the child of the span that
   * recorded it, ended at the confirm, and its message carries that span's `traceparent` header.
   */
  private async publish(channel: ConfirmChannel, events: readonly OutboxEvent[]): Promise<void> {
    const spans = publishSpans(this.config.exchange, events, routingKeyOf);
    const sent = async (): Promise<void> => {
      events.forEach((e, i) =>
        channel.publish(this.config.exchange, routingKeyOf(e), Buffer.from(JSON.stringify(e.payload)), {
          persistent: true,
          messageId: e.eventId,
          type: e.type,
          contentType: 'application/json',
          timestamp: Math.floor(e.createdAtMs / 1000),
          appId: 'subscriber-gateway',
          headers: { tenant: e.tenant, subject: e.subject, seq: e.seq, ...spans?.headers[i] },
        }),
      );
      await withTimeout(channel.waitForConfirms(), this.config.timeoutMs, 'publisher confirms');
    };
    await (spans ? spans.settle(sent()) : sent());
  }

  /** The open confirm channel, or a new connection, channel and the exchange declared (AMQP_TIMEOUT_MS). */
  private async openChannel(): Promise<ConfirmChannel> {
    if (this.channel) return this.channel;
    const pending = amqplib.connect(this.config.amqpUrl, { timeout: this.config.timeoutMs });
    let connection: ChannelModel;
    try {
      connection = await withTimeout(pending, this.config.timeoutMs, 'connecting to the broker');
    } catch (err) {
      // A connection that completes after the deadline is closed, not leaked.
      pending.then(
        (late) => closeQuietly(late, 1000),
        () => undefined,
      );
      throw err;
    }
    this.connection = connection;
    connection.on('error', (err: unknown) => this.logger.warn({ err }, 'AMQP connection error'));
    connection.on('close', () => {
      if (this.connection === connection) {
        this.connection = undefined;
        this.channel = undefined;
      }
    });
    const channel = await withTimeout(
      connection.createConfirmChannel(),
      this.config.timeoutMs,
      'opening a channel',
    );
    channel.on('error', (err: unknown) => this.logger.warn({ err }, 'AMQP channel error'));
    channel.on('close', () => {
      if (this.channel === channel) this.channel = undefined;
    });
    await withTimeout(
      channel.assertExchange(this.config.exchange, 'topic', { durable: true }),
      this.config.timeoutMs,
      'declaring the exchange',
    );
    this.channel = channel;
    return channel;
  }

  /** Drops the connection (bounded: a dead peer's socket is destroyed after 1 s). */
  private async disconnect(): Promise<void> {
    const connection = this.connection;
    this.connection = undefined;
    this.channel = undefined;
    if (connection) await closeQuietly(connection, 1000);
  }

  /** Runs database work with the relay's deadline (statements bounded as in a request). */
  private bounded<T>(fn: () => Promise<T>): Promise<T> {
    return runInRequestScope(this.config.timeoutMs, fn);
  }

  private sleep(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        if (this.wakeUp === done) this.wakeUp = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wakeUp = done;
    });
  }
}

/** The relay's Prometheus metrics (created in src/metrics.ts). */
export interface RelayMetrics {
  /** `outbox_events_published_total`. */
  published: Counter;
  /** `outbox_publish_failures_total`: relay rounds that failed (broker or database). */
  failures: Counter;
  /** `outbox_relay_active`: 1 while this instance holds the relay lease. */
  active: Gauge;
}

/** Events per batch (one confirm wait per batch). */
export const RELAY_BATCH_SIZE = 200;
/** How long a relay lease lasts without renewal, ms. */
export const RELAY_LEASE_MS = 15_000;
/** First backoff after a failure, ms. */
export const RELAY_BACKOFF_MIN_MS = 200;
/** Longest backoff, ms. */
export const RELAY_BACKOFF_MAX_MS = 10_000;

/** The routing key of an event: `<tenant>.<type>` (docs/events.md "Events"). */
export function routingKeyOf(e: Pick<OutboxEvent, 'tenant' | 'type'>): string {
  return `${e.tenant}.${e.type}`;
}

/** Closes a connection, destroying its socket if the peer does not answer within `ms`. */
async function closeQuietly(connection: ChannelModel, ms: number): Promise<void> {
  // An 'error' event without a listener would be thrown by the emitter.
  connection.on('error', () => undefined);
  try {
    await withTimeout(connection.close(), ms, 'closing the connection');
  } catch {
    (
      connection as unknown as { connection?: { stream?: { destroy(): void } } }
    ).connection?.stream?.destroy();
  }
}
