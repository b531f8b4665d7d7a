import { Client } from 'graphql-ws';
import { Dataset } from '../../src/dataset/dataset.schema';
import { recordEvent } from '../../src/modules/events/outbox.store';
import { TestApp, startTestApp } from '../helpers/app';
import { chargingDataset, ratingBody } from '../helpers/charging';
import { basic } from '../helpers/fixtures';
import { noSubscriptions, subscribe, subscribed, wsClient } from '../helpers/graphql-ws';
import { DONOR, PLAN, R, SQS_AUTH, sharingDataset, sqsClient } from '../helpers/sharing';
import { quietPeriod, simulatedDelay, waitFor } from '../helpers/wait';

/**
 * GraphQL subscriptions over graphql-ws on /graphql, fed from the outbox, so a subscriber on one
 * instance sees changes made through another; tenant-scoped and checked with the permission of
 * the corresponding query.
 */

const SUBSCRIBER = '353871234567';
const CRS_AUTH = basic('crs', 'crs-password');

/**
 * Sharing fixture plus the charging catalogue, its subscriber and its `crs` client; the rival
 * tenant has a subscriber with the same MSISDN (a subscription names a subscriber of its tenant).
 */
function dataset(): Dataset {
  const ds = sharingDataset();
  const charging = chargingDataset();
  ds.ratings = charging.ratings;
  const subscriber = charging.subscribers!.find((s) => s.msisdn === SUBSCRIBER)!;
  ds.subscribers!.push(subscriber, { ...subscriber, tenant: 'rival' });
  ds.clients!.push(charging.clients!.find((c) => c.username === 'crs')!);
  return ds;
}

const BALANCE = `subscription ($msisdn: MSISDN!) {
  balanceChanged(msisdn: $msisdn) { eventId kind operationId msisdn amount balance currency occurredAt }
}`;
const QUOTA = `subscription ($msisdn: MSISDN!) {
  quotaReceived(msisdn: $msisdn) {
    eventId donationId recipient donor amount unit planName planDefinitionId donorPlanId occurredAt
  }
}`;

describe('GraphQL subscriptions (graphql-ws on /graphql)', () => {
  let a: TestApp;
  let b: TestApp;
  const clients: Client[] = [];
  const client = (app: TestApp, auth: string | undefined, closes?: { code: number; reason: string }[]) => {
    const c = wsClient(app, auth, closes);
    clients.push(c);
    return c;
  };

  beforeAll(async () => {
    a = await startTestApp({ dataset: dataset(), env: { SUBSCRIPTION_POLL_MS: '50' } });
    b = await startTestApp({ sameDatabaseAs: a, env: { SUBSCRIPTION_POLL_MS: '50' } });
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.dispose()));
    // The subscriptions are gone once their connections are.
    await noSubscriptions(a, b);
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it('a subscription on one instance receives the balance change of a charge made through the other', async () => {
    const acme = subscribe(client(a, CRS_AUTH), BALANCE, { msisdn: `+${SUBSCRIBER}` });
    // Another tenant's client watching its own subscriber of the same MSISDN sees nothing of acme's.
    const rival = subscribe(client(a, basic('rival-admin')), BALANCE, { msisdn: SUBSCRIBER });
    await subscribed(a, 2);
    const body = ratingBody();
    const rated = await b.request('POST', '/crs-api/processRating', {
      auth: CRS_AUTH,
      json: true,
      headers: { tenant: 'acme' },
      body,
    });
    expect(rated.json().returnCode).toBe(0);
    const [first] = await acme.waitFor(1);
    expect(first.errors).toBeUndefined();
    const change = first.data!.balanceChanged as Record<string, unknown>;
    const after = await b.request('POST', '/graphql', {
      auth: CRS_AUTH,
      body: { query: `{ subscriber(msisdn: "${SUBSCRIBER}") { balance currency } }` },
    });
    const balance = (after.json().data as { subscriber: { balance: string; currency: string } }).subscriber;
    expect(change).toMatchObject({
      kind: 'CHARGE',
      operationId: (body.ratingParams as { operationId: string }).operationId,
      msisdn: SUBSCRIBER,
      balance: balance.balance,
      currency: balance.currency,
    });
    expect(change.amount).toMatch(/^\d+(\.\d+)?$/);
    expect(Number(change.amount)).toBeGreaterThan(0);
    expect(change.eventId).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    // A DateTime (RFC 3339, UTC with milliseconds) of the commit, to the second.
    expect(change.occurredAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(Math.abs(Date.parse(change.occurredAt as string) - a.clock.nowMs())).toBeLessThanOrEqual(1000);

    // A refund through instance A arrives too, after the charge.
    const refunded = await a.request('POST', '/crs-api/processRefund', {
      auth: CRS_AUTH,
      json: true,
      headers: { tenant: 'acme' },
      body,
    });
    expect(refunded.json().returnCode).toBe(0);
    const [, second] = await acme.waitFor(2);
    expect(second.data!.balanceChanged).toMatchObject({
      kind: 'REFUND',
      msisdn: SUBSCRIBER,
      amount: change.amount,
    });

    // Still nothing for the other tenant. Both subscriptions are fed by instance A's one poller,
    // which hands an event to every matching subscription in the same pass: acme's two results
    // prove both events were read.
    await quietPeriod(300, 'the feed polls every 50 ms: 6 polls for a stray result to arrive');
    expect(rival.results).toEqual([]);
  });

  it('quotaReceived delivers the quota a recipient got from a donation through the other instance, in the plan unit', async () => {
    const watching = subscribe(client(a, SQS_AUTH), QUOTA, { msisdn: R(0) });
    const other = subscribe(client(a, SQS_AUTH), QUOTA, { msisdn: R(1) });
    await subscribed(a, 2);
    const res = await sqsClient(b).donate({
      donorId: DONOR,
      donorPlanId: PLAN.amount,
      quotaType: 'amount',
      recipients: [{ recipientId: R(0), quota: 250 }],
    });
    expect(res.status).toBe(200);
    const [first] = await watching.waitFor(1);
    expect(first.errors).toBeUndefined();
    expect(first.data!.quotaReceived).toMatchObject({
      donationId: String(res.json().id),
      recipient: R(0),
      donor: DONOR,
      amount: 250,
      unit: 'VOLUME',
      planName: 'Gift 1000',
      donorPlanId: PLAN.amount,
    });
    // Both subscriptions are fed by instance A's one poller in the same pass: `watching`'s result
    // proves the donation's events were read.
    await quietPeriod(300, 'the feed polls every 50 ms: 6 polls for a stray result to arrive');
    expect(other.results).toEqual([]);
  });

  it('an event recorded in the outbox by any writer reaches the matching subscription exactly once, in order', async () => {
    const s = subscribe(client(b, CRS_AUTH), BALANCE, { msisdn: SUBSCRIBER });
    await subscribed(b, 1);
    const tenant = await a.tdb.db('tenants').where({ name: 'acme' }).first();
    for (const [i, amount] of ['0.10', '0.20', '0.30'].entries())
      await a.tdb.db.transaction((trx) =>
        recordEvent(trx, a.clock, {
          tenantId: tenant.id,
          type: 'balance.adjusted',
          subject: SUBSCRIBER,
          payload: {
            msisdn: SUBSCRIBER,
            amount,
            balance: `${i}.00`,
            currency: 'EUR',
            reason: 'test',
            occurredAt: 1,
          },
        }),
      );
    const results = await s.waitFor(3);
    await quietPeriod(200, 'the feed polls every 50 ms: 4 polls for a second delivery to arrive');
    expect(s.results.map((r) => (r.data!.balanceChanged as { amount: string }).amount)).toEqual([
      '0.10',
      '0.20',
      '0.30',
    ]);
    expect(results[0].data!.balanceChanged).toMatchObject({ kind: 'ADJUSTMENT', operationId: null });
  });

  it('an event whose seq was taken before one already delivered (a later commit) is still delivered, once', async () => {
    const s = subscribe(client(a, CRS_AUTH), BALANCE, { msisdn: SUBSCRIBER });
    await subscribed(a, 1);
    const tenant = await a.tdb.db('tenants').where({ name: 'acme' }).first();
    const last = Number((await a.tdb.db('outbox_events').max({ m: 'seq' }).first())?.m ?? 0);
    const row = (seq: number, amount: string) => ({
      seq,
      event_id: `01TESTGAP${String(seq).padStart(17, '0')}`,
      tenant_id: tenant.id,
      type: 'balance.adjusted',
      subject: SUBSCRIBER,
      payload: JSON.stringify({
        msisdn: SUBSCRIBER,
        amount,
        balance: '1.00',
        currency: 'EUR',
        occurredAt: 1,
      }),
      created_at: 1,
      published_at: null,
    });
    // seq last+2 commits first; last+1 (taken earlier by a slower transaction) commits later.
    await a.tdb.db('outbox_events').insert(row(last + 2, '2.00'));
    await s.waitFor(1);
    await simulatedDelay(200, 'the slower transaction committing 4 polls (50 ms each) later');
    await a.tdb.db('outbox_events').insert(row(last + 1, '1.00'));
    await s.waitFor(2);
    await quietPeriod(300, 'the feed polls every 50 ms: 6 polls for a second delivery to arrive');
    expect(s.results.map((r) => (r.data!.balanceChanged as { amount: string }).amount)).toEqual([
      '2.00',
      '1.00',
    ]);
  });

  it('needs the permission of the corresponding query: FORBIDDEN without it', async () => {
    const noRating = subscribe(client(a, SQS_AUTH), BALANCE, { msisdn: SUBSCRIBER });
    const noSharing = subscribe(client(a, CRS_AUTH), QUOTA, { msisdn: R(0) });
    for (const s of [noRating, noSharing]) {
      const [r] = await s.waitFor(1);
      expect(r.errors?.[0]).toMatchObject({ extensions: { code: 'FORBIDDEN' } });
      await s.ended;
    }
    expect(a.app.services.events.subscriptionCount).toBe(0);
  });

  it('rejects a malformed MSISDN with BAD_USER_INPUT (the MSISDN scalar, before any resolver)', async () => {
    const s = subscribe(client(a, CRS_AUTH), BALANCE, { msisdn: 'not-a-number' });
    const err = await s.ended.then(
      () => null,
      (e: Error) => e,
    );
    const errors = JSON.parse(err!.message) as { message: string; extensions: { code: string } }[];
    expect(errors[0]).toMatchObject({ extensions: { code: 'BAD_USER_INPUT' } });
    expect(errors[0].message).toMatch(/MSISDN/);
    expect(err!.message).not.toMatch(/stack|at .*\.ts/);
    expect(s.results).toEqual([]);
  });

  it('closes the connection with 4403 at connection_init without valid credentials', async () => {
    for (const auth of [undefined, basic('crs', 'wrong-password')]) {
      const closes: { code: number; reason: string }[] = [];
      const s = subscribe(client(a, auth, closes), BALANCE, { msisdn: SUBSCRIBER });
      await expect(s.ended).rejects.toBeDefined();
      expect(closes[0]?.code).toBe(4403);
    }
  });

  it('serves only subscriptions over WebSocket: a query is refused', async () => {
    const s = subscribe(client(a, CRS_AUTH), `{ subscriber(msisdn: "${SUBSCRIBER}") { balance } }`, {});
    await expect(s.ended).rejects.toBeDefined();
    expect(s.results).toEqual([]);
  });

  it('the poller runs only while a subscription is open', async () => {
    expect(a.app.services.events.subscriptionCount).toBe(0);
    const s = subscribe(client(a, CRS_AUTH), BALANCE, { msisdn: SUBSCRIBER });
    await subscribed(a, 1);
    s.stop();
    await waitFor(() => a.app.services.events.subscriptionCount === 0, {
      what: 'the subscription to be released',
      timeoutMs: 5000,
    });
    expect(a.app.services.events.active).toBe(false);
  });
});
