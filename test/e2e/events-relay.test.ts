import { listEventsAfter } from '../../src/modules/events/outbox.store';
import { TestApp, startTestApp } from '../helpers/app';
import {
  TestConsumer,
  brokerAddress,
  brokerReachable,
  brokerUrlVia,
  startConsumer,
  TEST_AMQP_URL,
} from '../helpers/amqp';
import { chargingDataset, ratingBody } from '../helpers/charging';
import { TcpProxy, startTcpProxy } from '../helpers/tcp-proxy';
import { quietPeriod, simulatedDelay, waitFor } from '../helpers/wait';

/**
 * The outbox relay against the real broker (TEST_AMQP_URL) and the test database: the relay
 * publishes every committed event once, in order per subject, through a broker outage.
 */
const describeBroker = brokerReachable() ? describe : describe.skip;

const CRS = 'Basic ' + Buffer.from('crs:crs-password').toString('base64');
const RICH = '353871234567'; // prepaid 10.00: 83 charges of 0.12 pass, then 1000
const POOR = '353870000001'; // prepaid 0.05: every charge refused (1000)
const POSTPAID = '353870000002'; // postpaid: every charge passes

const rate = (app: TestApp, msisdn: string) =>
  app.request('POST', '/crs-api/processRating', {
    auth: CRS,
    json: true,
    headers: { tenant: 'acme' },
    body: ratingBody({}, { msisdn }),
  });

/** Sends `bodies` `parallel` at a time; returns each answer's returnCode with its msisdn. */
async function storm(app: TestApp, msisdns: string[], parallel: number) {
  const out: { msisdn: string; returnCode: number }[] = [];
  for (let i = 0; i < msisdns.length; i += parallel) {
    const slice = msisdns.slice(i, i + parallel);
    const answers = await Promise.all(slice.map((m) => rate(app, m)));
    answers.forEach((a, j) => out.push({ msisdn: slice[j], returnCode: a.json().returnCode as number }));
  }
  return out;
}

const metric = async (app: TestApp, name: string) => {
  const text = (await app.request('GET', '/metrics')).text;
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line === undefined ? undefined : Number(line.split(' ')[1]);
};

/** The first delivery of each message id, in arrival order (consumers deduplicate by message_id). */
const firstDeliveries = <T extends { messageId: string }>(received: T[]) => {
  const seen = new Set<string>();
  return received.filter((r) => !seen.has(r.messageId) && seen.add(r.messageId));
};

describeBroker('outbox relay to RabbitMQ', () => {
  jest.setTimeout(120_000);

  describe('a storm of charges with the broker cut and restored midway', () => {
    let consumer: TestConsumer;
    let proxy: TcpProxy;
    let app: TestApp;
    beforeAll(async () => {
      consumer = await startConsumer();
      proxy = await startTcpProxy(brokerAddress());
      app = await startTestApp({
        dataset: chargingDataset(),
        env: {
          AMQP_URL: brokerUrlVia(proxy.port),
          AMQP_EXCHANGE: consumer.exchange,
          AMQP_TIMEOUT_MS: '1000',
          OUTBOX_POLL_INTERVAL_MS: '50',
        },
      });
    });
    afterAll(async () => {
      await app?.close();
      await proxy?.close();
      await consumer?.close();
    });

    it('every committed charge event arrives, in order per subscriber, none for a refused charge', async () => {
      const plan = [
        ...Array.from({ length: 110 }, () => RICH),
        ...Array.from({ length: 20 }, () => POOR),
        ...Array.from({ length: 50 }, () => POSTPAID),
      ].sort(() => Math.random() - 0.5);
      const third = Math.floor(plan.length / 3);

      const before = await storm(app, plan.slice(0, third), 8);
      proxy.set('down');
      const during = await storm(app, plan.slice(third, 2 * third), 8);
      // The gateway kept serving, and the backlog shows in /metrics while the broker is away.
      expect(during.filter((r) => r.returnCode === 0).length).toBeGreaterThan(0);
      await waitFor(async () => (await metric(app, 'outbox_publish_failures_total'))! > 0, {
        what: 'the relay to count a failed publish',
      });
      expect(await metric(app, 'outbox_unpublished_events')).toBeGreaterThan(0);
      expect(await metric(app, 'outbox_oldest_unpublished_age_seconds')).toBeGreaterThanOrEqual(0);
      expect(await metric(app, 'outbox_publish_failures_total')).toBeGreaterThan(0);
      proxy.set('pass');
      const after = await storm(app, plan.slice(2 * third), 8);
      const answers = [...before, ...during, ...after];
      // Under load a rating may time out (5001, nothing committed); the ledger is the truth.
      expect(answers.filter((r) => r.returnCode === 0 || r.returnCode === 1000).length).toBeGreaterThan(
        answers.length * 0.9,
      );

      const db = app.tdb.db;
      const ledger = await db('charges').where({ kind: 'charge', return_code: 0 }).orderBy('id');
      expect(ledger.length).toBe(answers.filter((r) => r.returnCode === 0).length);
      const refused = await db('charges').where({ kind: 'charge' }).whereNot({ return_code: 0 });
      expect(refused.length).toBeGreaterThan(0);

      await consumer.waitFor((r) => new Set(r.map((m) => m.messageId)).size >= ledger.length, 60_000);
      const events = await listEventsAfter(db, { afterSeq: 0, limit: 1000 });
      const firsts = firstDeliveries(consumer.received);
      // Exactly the committed charges' events, nothing for a refused one.
      expect(new Set(firsts.map((m) => m.messageId))).toEqual(new Set(events.map((e) => e.eventId)));
      expect(new Set(firsts.map((m) => m.payload.operationId))).toEqual(
        new Set(ledger.map((row: { operation_id: string }) => row.operation_id)),
      );
      for (const row of refused)
        expect(firsts.some((m) => m.payload.operationId === row.operation_id)).toBe(false);
      for (const m of firsts) {
        expect(m.routingKey).toBe('acme.charge.completed');
        expect(m.persistent).toBe(true);
        expect(m.contentType).toBe('application/json');
      }
      // In order per subscriber: the outbox order (seq), which is the ledger order.
      for (const msisdn of [RICH, POSTPAID]) {
        const arrived = firsts.filter((m) => m.payload.msisdn === msisdn).map((m) => m.messageId);
        const committed = events.filter((e) => e.subject === msisdn).map((e) => e.eventId);
        expect(arrived).toEqual(committed);
        const balances = firsts
          .filter((m) => m.payload.msisdn === msisdn)
          .map((m) => Number(m.payload.balance));
        expect(balances).toEqual([...balances].sort((a, b) => b - a));
      }
      // Every event marked published; the backlog is gone.
      await consumer.waitFor(() => true, 0);
      await waitFor(async () => (await metric(app, 'outbox_unpublished_events')) === 0, {
        what: 'every event marked published',
        intervalMs: 100,
      });
      expect(await metric(app, 'outbox_unpublished_events')).toBe(0);
      expect(await db('outbox_events').whereNull('published_at').count({ n: '*' })).toEqual([{ n: 0 }]);
    });

    it('shuts down within its deadline while the broker is frozen', async () => {
      proxy.set('frozen');
      await rate(app, POSTPAID);
      // The relay polls every 50 ms: by then it has picked the new event up and is publishing it
      // to the frozen broker (no metric shows a publish in progress, so this is a fixed wait).
      await simulatedDelay(200, 'four relay polls');
      const started = Date.now();
      await app.app.relay!.stop();
      expect(Date.now() - started).toBeLessThan(4000);
      proxy.set('pass');
    });
  });

  it('two instances relaying the same database publish each event once', async () => {
    const consumer = await startConsumer();
    const env = { AMQP_URL: TEST_AMQP_URL, AMQP_EXCHANGE: consumer.exchange, OUTBOX_POLL_INTERVAL_MS: '20' };
    const first = await startTestApp({ dataset: chargingDataset(), env });
    const second = await startTestApp({ sameDatabaseAs: first, env });
    try {
      for (let round = 0; round < 6; round++)
        await Promise.all(
          Array.from({ length: 10 }, (_, i) => rate(i % 2 ? first : second, i % 3 ? POSTPAID : RICH)),
        );
      const [{ n }] = await first.tdb.db('charges').where({ return_code: 0 }).count({ n: '*' });
      const passed = Number(n);
      expect(passed).toBeGreaterThan(50);
      await consumer.waitFor((r) => r.length >= passed, 30_000);
      // Every event marked published on both: neither relay has one left to send.
      await waitFor(
        async () =>
          (await metric(first, 'outbox_unpublished_events')) === 0 &&
          (await metric(second, 'outbox_unpublished_events')) === 0,
        { what: 'every event marked published' },
      );
      await quietPeriod(500, 'the relays poll every 20 ms: 25 polls for a second publish to arrive');
      const ids = consumer.received.map((m) => m.messageId);
      expect(ids.length).toBe(passed);
      expect(new Set(ids).size).toBe(passed);
      const active = [
        await metric(first, 'outbox_relay_active'),
        await metric(second, 'outbox_relay_active'),
      ];
      expect(active.sort()).toEqual([0, 1]);
      const published =
        (await metric(first, 'outbox_events_published_total'))! +
        (await metric(second, 'outbox_events_published_total'))!;
      expect(published).toBe(passed);
    } finally {
      await second.close();
      await first.close();
      await consumer.close();
    }
  });
});

describe('the outbox relay without AMQP_URL', () => {
  it('runs no relay, still writes the outbox and shows the backlog in /metrics', async () => {
    const app = await startTestApp({ dataset: chargingDataset() });
    try {
      expect(app.app.relay).toBeNull();
      expect((await rate(app, POSTPAID)).json().returnCode).toBe(0);
      expect((await rate(app, POSTPAID)).json().returnCode).toBe(0);
      expect(await metric(app, 'outbox_unpublished_events')).toBe(2);
      expect(await metric(app, 'outbox_relay_active')).toBe(0);
      app.clock.advanceSeconds(30);
      expect(await metric(app, 'outbox_oldest_unpublished_age_seconds')).toBe(30);
    } finally {
      await app.close();
    }
  });
});
