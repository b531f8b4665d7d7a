import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { Writable } from 'node:stream';
import amqp, { Channel, ChannelModel, GetMessage } from 'amqplib';
import { Knex } from 'knex';
import { createLogger } from '../../src/logger';
import { TestApp, startTestApp } from '../helpers/app';
import { withFailingWrites } from '../helpers/faults';
import { TcpProxy, startTcpProxy } from '../helpers/tcp-proxy';
import { DONOR, PLAN, R, sharingDataset, sqsClient } from '../helpers/sharing';
import { quietPeriod, waitFor } from '../helpers/wait';

/**
 * Plan-renewal events consumed from a durable queue renew exactly once per event
 * id (redelivered, consumed by two instances, or left unacknowledged by a gateway killed after
 * its commit); malformed or unknown-plan events are dead-lettered with their reason. Real broker
 * on 127.0.0.1:5672; every exchange and queue is uniquely named and deleted afterwards.
 */

const AMQP_URL = process.env.TEST_AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672';
const ROUTING_KEY = 'acme.billing.plan-renewed';

/** Unique broker names for one describe block. */
function names() {
  const id = `${process.pid}-${randomBytes(4).toString('hex')}`;
  const queue = `sg-test.renewals.${id}`;
  return { exchange: `sg-test.events.${id}`, queue, dead: `${queue}.dead` };
}

/** Log lines (parsed pino JSON) written by an in-process gateway. */
function captureLogger() {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      for (const l of chunk.toString().split('\n')) if (l.trim()) lines.push(JSON.parse(l));
      cb();
    },
  });
  return { lines, logger: createLogger('info', stream) };
}

/** Polls `check` every 50 ms until it holds, failing after `ms` naming `what`. */
function until<T>(what: string, check: () => Promise<T> | T, ms = 20_000) {
  return waitFor(check, { what, timeoutMs: ms, intervalMs: 50 });
}

async function periodOf(db: Knex, planId: number): Promise<number> {
  return Number((await db('subscriber_plans').where({ id: planId }).first()).period);
}

async function donationsOf(db: Knex, planId: number): Promise<number> {
  const r = await db('donations').count({ n: '*' }).where({ donor_plan_id: planId }).first();
  return Number(r?.n ?? 0);
}

/** A broker connection of the test itself: publishes events, reads the dead-letter queue, cleans up. */
async function brokerOf(n: ReturnType<typeof names>) {
  const connection: ChannelModel = await amqp.connect(AMQP_URL);
  const channel: Channel = await connection.createChannel();
  await channel.assertExchange(n.exchange, 'topic', { durable: true });
  return {
    channel,
    publish(body: unknown, routingKey = ROUTING_KEY) {
      const content = Buffer.isBuffer(body)
        ? body
        : Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
      channel.publish(n.exchange, routingKey, content, { persistent: true, contentType: 'application/json' });
    },
    async dead(): Promise<GetMessage[]> {
      const out: GetMessage[] = [];
      for (;;) {
        const m = await channel.get(n.dead, { noAck: true });
        if (!m) return out;
        out.push(m);
      }
    },
    async close() {
      await channel.deleteQueue(n.queue).catch(() => undefined);
      await channel.deleteQueue(n.dead).catch(() => undefined);
      await channel.deleteExchange(n.exchange).catch(() => undefined);
      await connection.close();
    },
  };
}

const env = (n: ReturnType<typeof names>, extra: Record<string, string> = {}) => ({
  AMQP_URL,
  AMQP_EXCHANGE: n.exchange,
  AMQP_RENEWAL_QUEUE: n.queue,
  ...extra,
});

const event = (eventId: string, subscriberPlanId: number | string = PLAN.credit, tenant = 'acme') => ({
  eventId,
  tenant,
  subscriberPlanId,
  renewedAt: 1_795_000_000,
});

const HANDLED = [
  'renewal event applied',
  'renewal event already applied; acknowledged',
  'renewal event dead-lettered',
];

describe('renewal consumer: two instances on one queue', () => {
  const n = names();
  const logsA = captureLogger();
  const logsB = captureLogger();
  let a: TestApp;
  let b: TestApp;
  /** Instance B reaches the broker through this proxy (to cut its connection). */
  let brokerProxy: TcpProxy;
  let broker: Awaited<ReturnType<typeof brokerOf>>;
  const handledBy = (logs: ReturnType<typeof captureLogger>) =>
    logs.lines.filter((l) => HANDLED.includes(l.msg as string));
  const handled = () => [...handledBy(logsA), ...handledBy(logsB)];

  beforeAll(async () => {
    const target = new URL(AMQP_URL);
    brokerProxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5672) });
    target.port = String(brokerProxy.port);
    a = await startTestApp({ dataset: sharingDataset(), env: env(n), logger: logsA.logger });
    b = await startTestApp({
      sameDatabaseAs: a,
      env: { ...env(n), AMQP_URL: target.toString() },
      logger: logsB.logger,
    });
    await Promise.all([a.app.renewals!.consuming(), b.app.renewals!.consuming()]);
    broker = await brokerOf(n);
    // The credit plan's recurring donation: each renewal gives R(0) 100 minor units.
    const rec = await sqsClient(a).createRecurring({
      donorId: DONOR,
      donorPlanId: PLAN.credit,
      quotaType: 'amount',
      recipients: [{ recipientId: R(0), quota: 100 }],
    });
    expect(rec.status).toBe(201);
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
    await broker?.close();
    await brokerProxy?.close();
  });

  it('the same event delivered twice, to two instances, renews once and runs the recurring donation once', async () => {
    const db = a.tdb.db;
    const period = await periodOf(db, PLAN.credit);
    const donations = await donationsOf(db, PLAN.credit);
    const before = handled().length;
    const [beforeA, beforeB] = [handledBy(logsA).length, handledBy(logsB).length];
    const e = event(`evt-${randomBytes(6).toString('hex')}`);
    // Enough copies that both instances take some (prefetch spreads them round-robin).
    for (let i = 0; i < 6; i++) broker.publish(e);
    await until('six deliveries handled', () => handled().length - before >= 6);
    const lines = handled().slice(before);
    expect(lines.filter((l) => l.msg === 'renewal event applied')).toHaveLength(1);
    expect(lines.filter((l) => l.msg === 'renewal event already applied; acknowledged')).toHaveLength(5);
    // Both instances took copies of the event.
    expect(handledBy(logsA).length).toBeGreaterThan(beforeA);
    expect(handledBy(logsB).length).toBeGreaterThan(beforeB);
    expect(await periodOf(db, PLAN.credit)).toBe(period + 1);
    expect(await donationsOf(db, PLAN.credit)).toBe(donations + 1);
    const row = await db('renewal_events').where({ event_id: e.eventId }).first();
    expect([Number(row.subscriber_plan_id), Number(row.renewed_at)]).toEqual([PLAN.credit, e.renewedAt]);
    expect(row.donation_id).toEqual(expect.any(String));
    // Counted on /metrics of the two instances (the first events of this file).
    const count = async (outcome: string) => {
      let sum = 0;
      for (const app of [a, b]) {
        const text = (await app.request('GET', '/metrics')).text;
        const m = new RegExp(`^renewal_events_total\\{outcome="${outcome}"\\} (\\d+)$`, 'm').exec(text);
        sum += Number(m?.[1]);
      }
      return sum;
    };
    expect([await count('renewed'), await count('duplicate'), await count('dead_lettered')]).toEqual([
      1, 5, 0,
    ]);
    // Nothing left on the queue, nothing dead-lettered.
    const q = await broker.channel.checkQueue(n.queue);
    expect(q.messageCount).toBe(0);
    expect(await broker.dead()).toEqual([]);
  });

  it('distinct events each renew once (a string plan id is accepted too)', async () => {
    const db = a.tdb.db;
    const period = await periodOf(db, PLAN.credit);
    const handledBefore = handled().length;
    for (let i = 0; i < 4; i++)
      broker.publish(event(`evt-${randomBytes(6).toString('hex')}`, String(PLAN.credit)));
    await until('four renewals', async () => (await periodOf(db, PLAN.credit)) === period + 4);
    // All four deliveries handled (and acknowledged): nothing of them is left to deliver.
    await until('four events handled', () => handled().length >= handledBefore + 4);
    await quietPeriod(
      300,
      'the broker redelivers only an unacknowledged message, within milliseconds; 300 ms leaves room for a loaded machine',
    );
    expect(await periodOf(db, PLAN.credit)).toBe(period + 4);
  });

  it('dead-letters malformed JSON, a schema failure, an unknown tenant and an unknown plan, with the reason, and keeps consuming', async () => {
    const db = a.tdb.db;
    const period = await periodOf(db, PLAN.credit);
    broker.publish('{not json');
    broker.publish({ eventId: 'x', tenant: 'acme', subscriberPlanId: -3 });
    broker.publish(event(`evt-${randomBytes(6).toString('hex')}`, PLAN.credit, 'nobody'));
    broker.publish(event(`evt-unknown-plan-${randomBytes(6).toString('hex')}`, 999_999));
    broker.publish(event(`evt-rival-plan-${randomBytes(6).toString('hex')}`, PLAN.rival));
    const good = event(`evt-${randomBytes(6).toString('hex')}`);
    broker.publish(good);
    await until(
      'the good event after the bad ones',
      async () => (await periodOf(db, PLAN.credit)) === period + 1,
    );
    const all: GetMessage[] = [];
    await until('five dead letters', async () => {
      all.push(...(await broker.dead()));
      return all.length >= 5;
    });
    // Two instances consume: the order between them is not fixed. Sorted by reason.
    const reasons = all.map((m) => String(m.properties.headers?.['x-reason'])).sort();
    expect(reasons).toEqual([
      expect.stringMatching(/^invalid payload: .*subscriberPlanId.*renewedAt/),
      expect.stringMatching(/^malformed JSON/),
      // Another tenant's plan is unknown to this tenant.
      `unknown plan: ${PLAN.rival} of tenant acme`,
      'unknown plan: 999999 of tenant acme',
      'unknown tenant: nobody',
    ]);
    const malformed = all.find((m) => String(m.properties.headers?.['x-reason']).startsWith('malformed'))!;
    expect(malformed.content.toString()).toBe('{not json');
    expect(malformed.properties.headers?.['x-original-routing-key']).toBe(ROUTING_KEY);
    expect(malformed.properties.headers?.['x-original-exchange']).toBe(n.exchange);
    expect(malformed.properties.headers?.['x-original-queue']).toBe(n.queue);
    // A dead-lettered event recorded nothing: it may be fixed and sent again.
    expect(await db('renewal_events').where('event_id', 'like', 'evt-unknown-plan-%')).toEqual([]);
    expect(await periodOf(db, PLAN.rival)).toBe(1);
  });

  it('a database failure requeues the event after a backoff (never dead-lettered); it renews once when the database is back', async () => {
    const db = a.tdb.db;
    const period = await periodOf(db, PLAN.credit);
    const requeued = () =>
      [...logsA.lines, ...logsB.lines].filter((l) => String(l.msg).startsWith('renewal event not applied'))
        .length;
    const before = requeued();
    const e = event(`evt-dbdown-${randomBytes(6).toString('hex')}`);
    await withFailingWrites(db, a.tdb.dialect, 'subscriber_plans', async () => {
      broker.publish(e);
      await until('two failed attempts', () => requeued() - before >= 2);
      expect(await db('renewal_events').where({ event_id: e.eventId })).toEqual([]);
    });
    await until(
      'the renewal once the database is back',
      async () => (await periodOf(db, PLAN.credit)) === period + 1,
    );
    // The event was handled (applied and acknowledged): it is not delivered again.
    await until('the event handled', () => handled().some((l) => l.eventId === e.eventId));
    await quietPeriod(
      300,
      'the broker redelivers only an unacknowledged message, within milliseconds; 300 ms leaves room for a loaded machine',
    );
    expect(await periodOf(db, PLAN.credit)).toBe(period + 1);
    expect(await broker.dead()).toEqual([]);
  });

  it('reconnects after losing the broker and consumes again', async () => {
    const subscribedB = () => logsB.lines.filter((l) => l.msg === 'renewal consumer subscribed').length;
    const before = subscribedB();
    brokerProxy.set('down');
    await until('B to notice', () =>
      logsB.lines.some((l) => String(l.msg).includes('broker connection lost')),
    );
    expect(b.app.renewals!.isConsuming).toBe(false);
    brokerProxy.set('pass');
    await until('B to subscribe again', () => subscribedB() > before);
    // Events keep flowing, and B takes its share again.
    const beforeB = handledBy(logsB).length;
    const db = a.tdb.db;
    const period = await periodOf(db, PLAN.credit);
    for (let i = 0; i < 6; i++) broker.publish(event(`evt-${randomBytes(6).toString('hex')}`));
    await until('six renewals', async () => (await periodOf(db, PLAN.credit)) === period + 6);
    await until('B to handle some', () => handledBy(logsB).length > beforeB);
  });
});

describe('renewal consumer: a gateway killed between commit and ack', () => {
  const n = names();
  let seed: TestApp;
  let broker: Awaited<ReturnType<typeof brokerOf>>;
  const children: ChildProcess[] = [];

  /** Starts `node dist/src/main.js` on the test database; resolves its output so far, live. */
  function gateway(extra: Record<string, string>) {
    const proc = spawn(process.execPath, [path.join(__dirname, '../../dist/src/main.js')], {
      env: {
        PATH: process.env.PATH ?? '',
        DATABASE_URL: seed.tdb.url,
        HOST: '127.0.0.1',
        PORT: '0',
        LOG_LEVEL: 'info',
        DEMO_DATA: 'false',
        ...env(n, extra),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(proc);
    const out = { text: '' };
    proc.stdout!.on('data', (c: Buffer) => (out.text += c.toString()));
    proc.stderr!.on('data', (c: Buffer) => (out.text += c.toString()));
    const exited = new Promise<number | null>((resolve) =>
      proc.on('exit', (code, signal) => resolve(code ?? (signal as never))),
    );
    return { proc, out, exited };
  }

  beforeAll(async () => {
    seed = await startTestApp({ dataset: sharingDataset() });
    broker = await brokerOf(n);
  });
  afterAll(async () => {
    for (const c of children) c.kill('SIGKILL');
    await seed?.close();
    await broker?.close();
  });

  it('renews once: the redelivery after a restart finds the event id recorded and is only acknowledged', async () => {
    const db = seed.tdb.db;
    const period = await periodOf(db, PLAN.credit);
    const first = gateway({ TEST_RENEWAL_ACK_DELAY_MS: '60000' });
    await until(
      'the first gateway to subscribe',
      () => /renewal consumer subscribed/.test(first.out.text),
      30_000,
    );
    const e = event(`evt-kill-${randomBytes(6).toString('hex')}`);
    broker.publish(e);
    await until('the commit', () => /holding the ack/.test(first.out.text), 30_000);
    // Committed, not acknowledged: kill -9.
    expect(await periodOf(db, PLAN.credit)).toBe(period + 1);
    first.proc.kill('SIGKILL');
    await first.exited;

    const second = gateway({});
    await until(
      'the redelivery to be handled',
      () => /renewal event already applied/.test(second.out.text),
      30_000,
    );
    expect(second.out.text).not.toMatch(/"msg":"renewal event applied"/);
    expect(await periodOf(db, PLAN.credit)).toBe(period + 1);
    expect(await db('renewal_events').where({ event_id: e.eventId })).toHaveLength(1);
    expect((await broker.channel.checkQueue(n.queue)).messageCount).toBe(0);

    // SIGTERM: the consumer stops cleanly and the process exits 0.
    second.proc.kill('SIGTERM');
    expect(await second.exited).toBe(0);
    expect(second.out.text).toMatch(/renewal consumer stopped/);
  }, 90_000);
});
