import amqp, { ChannelModel, ConfirmChannel, ConsumeMessage } from 'amqplib';
import { RenewalsConfig } from '../../config';
import { databaseFailureOf } from '../../db/knex';
import { runInRequestScope } from '../../lib/request-scope';
import { jitteredBackoffMs } from '../../lib/wait';
import { Logger } from '../../logger';
import type { RenewalDeliveryOutcome } from '../../metrics';
import {
  RENEWAL_BINDING_KEY,
  RenewalEventOutcome,
  RenewalRejectedError,
  decodeRenewalEvent,
  RenewalEvent,
} from './renewal-events';

/** Applies one decoded event (RenewalEventService.apply); see that method for its errors. */
export type ApplyRenewal = (event: RenewalEvent) => Promise<RenewalEventOutcome>;

/** Backoff bounds of the consumer, ms: reconnecting to the broker and retrying an event after a database failure. */
export interface ConsumerBackoff {
  /** First wait (then doubled per consecutive failure, with full jitter). */
  minMs: number;
  /** Longest wait. */
  maxMs: number;
}

/** Serving defaults: 250 ms doubling up to 15 s. */
export const DEFAULT_CONSUMER_BACKOFF: ConsumerBackoff = { minMs: 250, maxMs: 15_000 };

/** The dead-letter queue of a renewal queue: `<queue>.dead`. */
export function deadLetterQueueOf(queue: string): string {
  return `${queue}.dead`;
}

/** Longest wait for the broker's TCP connection and handshake, ms. */
const CONNECT_TIMEOUT_MS = 5000;
/** AMQP heartbeat, seconds: a dead broker connection is noticed within about twice this. */
const HEARTBEAT_SECONDS = 10;

/** Options of {@link RenewalConsumer}. */
export interface RenewalConsumerOptions {
  /** The broker (`AMQP_URL`). */
  url: string;
  /** The topic exchange the queue is bound to (`AMQP_EXCHANGE`). */
  exchange: string;
  /** Queue, prefetch and the test-only ack delay (AMQP_RENEWAL_* variables). */
  renewals: RenewalsConfig;
  /** Deadline of one renewal (its database statements are bounded by it), ms. */
  deadlineMs: number;
  backoff?: ConsumerBackoff;
  /** Called once per delivery handled, with what was done (the `renewal_events_total` metric). */
  onOutcome?: (outcome: RenewalDeliveryOutcome) => void;
}

/**
 * The plan-renewal consumer (docs/events.md "Plan-renewal events").
 *
 * Topology, declared on every (re)connection: the durable topic exchange `AMQP_EXCHANGE`; the
 * durable queue `AMQP_RENEWAL_QUEUE` bound to it with {@link RENEWAL_BINDING_KEY}; the durable
 * dead-letter queue `<queue>.dead` (also the queue's `x-dead-letter-routing-key` on the default
 * exchange, so a message the broker itself dead-letters lands there too).
 *
 * Per delivery (at most `AMQP_RENEWAL_PREFETCH` unacknowledged at once):
 * - applied (renewed, or already applied before: a redelivery) → ack after the commit;
 * - malformed JSON, schema failure, unknown tenant or plan → published to the dead-letter queue
 *   with an `x-reason` header (publisher-confirmed), then ack: it never blocks the queue;
 * - database down, slow or locked, or any unexpected error → kept: nack with requeue after a
 *   backoff (never lost, never dead-lettered for an infrastructure failure).
 * A gateway that dies before its ack leaves the delivery to the broker, which redelivers it; the
 * event id recorded in the renewal's transaction makes that redelivery a no-op.
 *
 * The connection is re-established with backoff when it drops; {@link stop} cancels the
 * consumer, lets the events being applied finish and closes the connection.
 */
export class RenewalConsumer {
  private connection: ChannelModel | undefined;
  private channel: ConfirmChannel | undefined;
  private consumerTag: string | undefined;
  private stopping = false;
  private readonly stopController = new AbortController();
  private reconnectFailures = 0;
  private databaseFailures = 0;
  private readonly inflight = new Set<Promise<void>>();
  private running: Promise<void> | undefined;
  private consumingWaiters: (() => void)[] = [];

  constructor(
    private readonly options: RenewalConsumerOptions,
    private readonly apply: ApplyRenewal,
    private readonly logger: Logger,
  ) {}

  /** Starts connecting and consuming in the background (returns at once). */
  start(): void {
    this.running ??= this.connectLoop();
  }

  /** Resolves once the consumer is subscribed to its queue (tests; readiness). */
  consuming(): Promise<void> {
    if (this.consumerTag) return Promise.resolve();
    return new Promise((resolve) => this.consumingWaiters.push(resolve));
  }

  /** True while subscribed to the queue. */
  get isConsuming(): boolean {
    return this.consumerTag !== undefined;
  }

  /**
   * Graceful stop: no new deliveries, the events being applied finish (up to `timeoutMs`; one
   * not acknowledged by then is redelivered by the broker), then the connection closes.
   */
  async stop(timeoutMs = 10_000): Promise<void> {
    if (this.stopping) return this.running;
    this.stopping = true;
    this.stopController.abort();
    const channel = this.channel;
    if (channel && this.consumerTag) await channel.cancel(this.consumerTag).catch(() => undefined);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled([...this.inflight]),
      new Promise((r) => (timer = setTimeout(r, timeoutMs))),
    ]);
    clearTimeout(timer);
    await this.connection?.close().catch(() => undefined);
    await this.running;
    this.logger.info({ queue: this.options.renewals.queue }, 'renewal consumer stopped');
  }

  private async connectLoop(): Promise<void> {
    while (!this.stopping) {
      try {
        const closed = await this.connectOnce();
        this.reconnectFailures = 0;
        const err = await closed;
        if (this.stopping) break;
        this.logger.warn({ err }, 'renewal consumer: broker connection lost, reconnecting');
      } catch (err) {
        if (this.stopping) break;
        this.reconnectFailures++;
        this.logger.warn(
          { err, attempt: this.reconnectFailures },
          'renewal consumer: cannot reach the broker, retrying',
        );
        await this.cleanup();
      }
      await this.sleep(this.backoffMs(this.reconnectFailures));
    }
    await this.cleanup();
  }

  /** Connects, declares the topology and subscribes; resolves a promise of the connection's end. */
  private async connectOnce(): Promise<Promise<Error | undefined>> {
    const { renewals: cfg, exchange } = this.options;
    const url = new URL(this.options.url);
    if (!url.searchParams.has('heartbeat')) url.searchParams.set('heartbeat', String(HEARTBEAT_SECONDS));
    const connection = await amqp.connect(url.toString(), { timeout: CONNECT_TIMEOUT_MS });
    this.connection = connection;
    const closed = new Promise<Error | undefined>((resolve) => {
      let error: Error | undefined;
      connection.on('error', (err: Error) => (error = err));
      connection.on('close', () => {
        this.channel = undefined;
        this.consumerTag = undefined;
        resolve(error);
      });
    });
    const channel = await connection.createConfirmChannel();
    channel.on('error', (err: Error) => this.logger.warn({ err }, 'renewal consumer: channel error'));
    // A channel closed by the broker (e.g. a precondition failure) ends the connection: reconnect.
    channel.on('close', () => {
      if (!this.stopping) connection.close().catch(() => undefined);
    });
    this.channel = channel;
    const dead = deadLetterQueueOf(cfg.queue);
    await channel.assertExchange(exchange, 'topic', { durable: true });
    await channel.assertQueue(dead, { durable: true });
    await channel.assertQueue(cfg.queue, {
      durable: true,
      arguments: { 'x-dead-letter-exchange': '', 'x-dead-letter-routing-key': dead },
    });
    await channel.bindQueue(cfg.queue, exchange, RENEWAL_BINDING_KEY);
    await channel.prefetch(cfg.prefetch);
    if (this.stopping) {
      await connection.close().catch(() => undefined);
      return closed;
    }
    const { consumerTag } = await channel.consume(
      cfg.queue,
      (msg) => {
        if (!msg) {
          // Cancelled by the broker (the queue was deleted): reconnect, which declares it again.
          this.logger.warn({ queue: cfg.queue }, 'renewal consumer cancelled by the broker; reconnecting');
          connection.close().catch(() => undefined);
          return;
        }
        const done = this.handle(channel, msg).finally(() => this.inflight.delete(done));
        this.inflight.add(done);
      },
      { noAck: false },
    );
    this.consumerTag = consumerTag;
    this.logger.info(
      { exchange, queue: cfg.queue, bindingKey: RENEWAL_BINDING_KEY },
      'renewal consumer subscribed',
    );
    for (const w of this.consumingWaiters.splice(0)) w();
    return closed;
  }

  /** One delivery: apply, dead-letter or requeue (see the class comment). Never throws. */
  private async handle(channel: ConfirmChannel, msg: ConsumeMessage): Promise<void> {
    const fields = { deliveryTag: msg.fields.deliveryTag, redelivered: msg.fields.redelivered };
    let event: RenewalEvent | undefined;
    try {
      event = decodeRenewalEvent(msg.content);
      const applied = event;
      const outcome = await runInRequestScope(this.options.deadlineMs, () => this.apply(applied));
      this.databaseFailures = 0;
      const facts = {
        ...fields,
        eventId: event.eventId,
        tenant: event.tenant,
        planId: event.subscriberPlanId,
      };
      if (outcome.status === 'duplicate')
        this.logger.info(facts, 'renewal event already applied; acknowledged');
      else
        this.logger.info(
          { ...facts, donationId: outcome.renewal.donation?.id ?? null },
          'renewal event applied',
        );
      if (this.options.renewals.testAckDelayMs > 0) {
        this.logger.warn(
          { eventId: event.eventId, delayMs: this.options.renewals.testAckDelayMs },
          'renewal committed; holding the ack (TEST_RENEWAL_ACK_DELAY_MS, test only)',
        );
        await new Promise((r) => setTimeout(r, this.options.renewals.testAckDelayMs));
      }
      this.settle(() => channel.ack(msg));
      this.options.onOutcome?.(outcome.status === 'duplicate' ? 'duplicate' : 'renewed');
    } catch (err) {
      if (err instanceof RenewalRejectedError) {
        await this.deadLetter(channel, msg, err.message, event);
        return;
      }
      this.databaseFailures++;
      const wait = this.backoffMs(this.databaseFailures);
      this.logger.warn(
        {
          ...fields,
          err,
          eventId: event?.eventId,
          database: databaseFailureOf(err) ?? null,
          retryInMs: Math.round(wait),
        },
        'renewal event not applied (infrastructure failure); requeued after a backoff',
      );
      await this.sleep(wait);
      this.settle(() => channel.nack(msg, false, true));
      this.options.onOutcome?.('requeued');
    }
  }

  /**
   * Publishes the message to `<queue>.dead` with `x-reason` (and the original exchange, routing
   * key and queue), waits for the broker's confirm, then acks the original. When either fails
   * the original stays unacknowledged and is redelivered.
   */
  private async deadLetter(
    channel: ConfirmChannel,
    msg: ConsumeMessage,
    reason: string,
    event: RenewalEvent | undefined,
  ): Promise<void> {
    const renewalQueue = this.options.renewals.queue;
    const dead = deadLetterQueueOf(renewalQueue);
    try {
      channel.publish('', dead, msg.content, {
        persistent: true,
        contentType: msg.properties.contentType as string | undefined,
        messageId: msg.properties.messageId as string | undefined,
        headers: {
          ...(msg.properties.headers ?? {}),
          'x-reason': reason,
          'x-original-exchange': msg.fields.exchange,
          'x-original-routing-key': msg.fields.routingKey,
          'x-original-queue': renewalQueue,
        },
      });
      await channel.waitForConfirms();
      channel.ack(msg);
      this.options.onOutcome?.('dead_lettered');
      this.logger.warn(
        { reason, eventId: event?.eventId, routingKey: msg.fields.routingKey, deadLetterQueue: dead },
        'renewal event dead-lettered',
      );
    } catch (err) {
      this.logger.warn(
        { err, reason },
        'renewal event could not be dead-lettered; the broker will redeliver it',
      );
    }
  }

  /** Acks or nacks, ignoring a channel that closed meanwhile (the broker then redelivers). */
  private settle(fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.logger.warn(
        { err },
        'renewal consumer: channel closed before the acknowledgement; the broker will redeliver',
      );
    }
  }

  private async cleanup(): Promise<void> {
    const connection = this.connection;
    this.connection = undefined;
    this.channel = undefined;
    this.consumerTag = undefined;
    await connection?.close().catch(() => undefined);
  }

  /** Backoff for the n-th consecutive failure (n ≥ 1), ms (see jitteredBackoffMs). */
  private backoffMs(n: number): number {
    const { minMs, maxMs } = this.options.backoff ?? DEFAULT_CONSUMER_BACKOFF;
    return jitteredBackoffMs(n, minMs, maxMs);
  }

  /** Waits `ms`, or less when the consumer is stopping. */
  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      if (this.stopController.signal.aborted) return resolve();
      const signal = this.stopController.signal;
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal.addEventListener('abort', done, { once: true });
    });
  }
}
