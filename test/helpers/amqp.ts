import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import amqplib, { ChannelModel, ConsumeMessage } from 'amqplib';
import { waitFor as poll } from './wait';

/**
 * The RabbitMQ the event tests use: `TEST_AMQP_URL` (CI sets it and must have a broker), else
 * the local default `amqp://guest:guest@127.0.0.1:5672`.
 */
export const TEST_AMQP_URL = process.env.TEST_AMQP_URL || 'amqp://guest:guest@127.0.0.1:5672';

/**
 * Whether the broker answers, checked once synchronously (so a test file can choose
 * `describe` or `describe.skip` at load). When `TEST_AMQP_URL` is set explicitly an unreachable
 * broker is an error (CI must have it); otherwise the reason is printed and the tests skip.
 */
export function brokerReachable(): boolean {
  const probe = `require('amqplib').connect(${JSON.stringify(TEST_AMQP_URL)},{timeout:3000})
    .then(c=>c.close()).then(()=>process.exit(0),e=>{console.error(e.message);process.exit(1)})`;
  try {
    execFileSync(process.execPath, ['-e', probe], { timeout: 8000, stdio: ['ignore', 'ignore', 'pipe'] });
    return true;
  } catch (err) {
    const why = String((err as { stderr?: Buffer }).stderr ?? err).trim();
    if (process.env.TEST_AMQP_URL)
      throw new Error(`TEST_AMQP_URL=${TEST_AMQP_URL} is not reachable: ${why}`, { cause: err });
    console.warn(`skipping the RabbitMQ tests: no broker at ${TEST_AMQP_URL} (${why}); set TEST_AMQP_URL`);
    return false;
  }
}

/** The broker's host and port, for a tcp-proxy in front of it. */
export function brokerAddress(): { host: string; port: number } {
  const u = new URL(TEST_AMQP_URL);
  return { host: u.hostname, port: Number(u.port || 5672) };
}

/** `TEST_AMQP_URL` with its host and port replaced (to go through a proxy). */
export function brokerUrlVia(port: number): string {
  const u = new URL(TEST_AMQP_URL);
  u.hostname = '127.0.0.1';
  u.port = String(port);
  return u.toString();
}

/** A message as a test consumer received it. */
export interface Received {
  routingKey: string;
  messageId: string;
  persistent: boolean;
  contentType: string | undefined;
  payload: Record<string, unknown>;
}

/**
 * A uniquely named durable topic exchange and a queue bound to it with `#`, consumed directly
 * (not through any proxy). `close()` deletes both.
 */
export interface TestConsumer {
  exchange: string;
  received: Received[];
  /** Waits until `pred(received)` holds, or fails after `ms`. */
  waitFor(pred: (r: Received[]) => boolean, ms: number): Promise<void>;
  close(): Promise<void>;
}

/** Declares the exchange and queue and starts consuming; see {@link TestConsumer}. */
export async function startConsumer(): Promise<TestConsumer> {
  const name = `sg-test-${randomBytes(5).toString('hex')}`;
  const connection: ChannelModel = await amqplib.connect(TEST_AMQP_URL, { timeout: 5000 });
  const channel = await connection.createChannel();
  await channel.assertExchange(name, 'topic', { durable: true });
  await channel.assertQueue(name, { durable: false, exclusive: true });
  await channel.bindQueue(name, name, '#');
  const received: Received[] = [];
  await channel.consume(
    name,
    (m: ConsumeMessage | null) => {
      if (!m) return;
      received.push({
        routingKey: m.fields.routingKey,
        messageId: String(m.properties.messageId),
        persistent: m.properties.deliveryMode === 2,
        contentType: m.properties.contentType as string | undefined,
        payload: JSON.parse(m.content.toString('utf8')) as Record<string, unknown>,
      });
    },
    { noAck: true },
  );
  return {
    exchange: name,
    received,
    async waitFor(pred, ms) {
      await poll(() => pred(received), {
        what: 'the consumer to receive the expected messages',
        timeoutMs: ms,
        intervalMs: 50,
        detail: () => `${received.length} received`,
      });
    },
    async close() {
      await channel.deleteQueue(name).catch(() => undefined);
      await channel.deleteExchange(name).catch(() => undefined);
      await connection.close().catch(() => undefined);
    },
  };
}
