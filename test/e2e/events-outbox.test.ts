import { listEventsAfter } from '../../src/modules/events/outbox.store';
import { TestApp, startTestApp } from '../helpers/app';
import { chargingDataset, ratingBody } from '../helpers/charging';
import { withFailingBalanceWrites, withTableMissing } from '../helpers/faults';

/** Events are written in the change's own transaction, only for committed changes. */
describe('outbox events of charging', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ dataset: chargingDataset() });
  });
  afterAll(() => app.close());

  const call = (path: string, body: unknown) =>
    app.request('POST', path, {
      auth: 'Basic ' + Buffer.from('crs:crs-password').toString('base64'),
      json: true,
      headers: { tenant: 'acme' },
      body,
    });
  const all = () => listEventsAfter(app.tdb.db, { afterSeq: 0, limit: 1000 });
  let seen = 0;
  const fresh = async () => {
    const events = await listEventsAfter(app.tdb.db, { afterSeq: seen, limit: 1000 });
    if (events.length) seen = events[events.length - 1].seq;
    return events;
  };

  it('a successful charge writes one charge.completed event with amount, balance after and currency', async () => {
    await fresh();
    const body = ratingBody();
    const res = await call('/crs-api/processRating', body);
    expect(res.json().returnCode).toBe(0);
    const events = await fresh();
    expect(events).toHaveLength(1);
    const [e] = events;
    expect(e).toMatchObject({
      type: 'charge.completed',
      subject: '353871234567',
      tenant: 'acme',
      publishedAtMs: null,
    });
    expect(e.eventId).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(e.payload).toEqual({
      operationId: (body.ratingParams as { operationId: string }).operationId,
      msisdn: '353871234567',
      amount: '0.12',
      balance: '9.88',
      currency: 'EUR',
      occurredAt: Math.floor(app.clock.nowMs() / 1000),
    });

    // The same operationId again is answered from the ledger: no second event.
    expect((await call('/crs-api/processRating', body)).json().returnCode).toBe(0);
    expect(await fresh()).toHaveLength(0);

    // Its refund: one refund.completed with the amount credited back.
    expect((await call('/crs-api/processRefund', body)).json().returnCode).toBe(0);
    const refunds = await fresh();
    expect(refunds.map((r) => [r.type, r.payload.amount, r.payload.balance])).toEqual([
      ['refund.completed', '0.12', '10.00'],
    ]);
    expect((await call('/crs-api/processRefund', body)).json().returnCode).toBe(0);
    expect(await fresh()).toHaveLength(0);
  });

  it('refused and failed charges write no event', async () => {
    await fresh();
    expect(
      (await call('/crs-api/processRating', ratingBody({}, { msisdn: '353870000001' }))).json().returnCode,
    ).toBe(1000);
    expect(
      (await call('/crs-api/processRating', ratingBody({}, { msisdn: '353870009999' }))).json().returnCode,
    ).toBe(2000);
    expect(
      (await call('/crs-api/processRating', ratingBody({}, { lookup: { providerId: '9999' } }))).json()
        .returnCode,
    ).toBe(2001);
    expect((await call('/crs-api/processRefund', ratingBody())).json().returnCode).toBe(4001);
    expect(await fresh()).toHaveLength(0);
  });

  it('the event and the change commit together: no event without the change, no change without the event', async () => {
    await fresh();
    const db = app.tdb.db;
    const balance = async () =>
      String((await db('subscribers').where({ msisdn: '353871234567' }).first()).balance_micros);
    const before = await balance();
    const ledger = async () => Number((await db('charges').count({ n: '*' }))[0].n);
    const rows = await ledger();
    // The balance write fails: nothing charged, no event.
    await withFailingBalanceWrites(db, app.tdb.dialect, async () =>
      expect((await call('/crs-api/processRating', ratingBody())).json().returnCode).toBe(4000),
    );
    expect(await fresh()).toHaveLength(0);
    // The event cannot be written (after the balance and ledger writes): the whole charge rolls back.
    await withTableMissing(db, 'outbox_events', async () =>
      expect((await call('/crs-api/processRating', ratingBody())).json().returnCode).not.toBe(0),
    );
    expect(await balance()).toBe(before);
    expect(await ledger()).toBe(rows);
    expect(await fresh()).toHaveLength(0);
  });

  it('a postpaid charge reports the balance after (negative)', async () => {
    await fresh();
    expect(
      (await call('/crs-api/processRating', ratingBody({}, { msisdn: '353870000002' }))).json().returnCode,
    ).toBe(0);
    const [e] = await fresh();
    expect(e.payload).toMatchObject({ msisdn: '353870000002', amount: '0.12', balance: '-0.12' });
  });

  it('an ADMIN balance adjustment writes balance.adjusted with the signed delta; a refused one writes nothing', async () => {
    await fresh();
    const acme = await app.tdb.db('tenants').where({ name: 'acme' }).first();
    const caller = { tenantId: Number(acme.id) };
    await app.app.services.charging.adjustBalance(caller, '353870000001', '-0.05', 'goodwill reversal');
    const [e] = await fresh();
    expect(e).toMatchObject({ type: 'balance.adjusted', subject: '353870000001' });
    expect(e.payload).toMatchObject({
      msisdn: '353870000001',
      amount: '-0.05',
      balance: '0.00',
      currency: 'EUR',
    });
    await expect(
      app.app.services.charging.adjustBalance(caller, '353870000001', '-1', 'overdraft'),
    ).rejects.toThrow();
    expect(await fresh()).toHaveLength(0);
  });

  it('events are in seq order with strictly increasing ids', async () => {
    const events = await all();
    const ids = events.map((e) => e.eventId);
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
