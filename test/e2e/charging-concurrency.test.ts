import fc from 'fast-check';
import { Knex } from 'knex';
import { createKnex } from '../../src/db/knex';
import { TestApp, startTestApp } from '../helpers/app';
import { chargingDataset, ratingBody } from '../helpers/charging';

const AUTH = { as: 'admin', json: true, headers: { tenant: 'acme' } };

describe('charging under concurrency on the real database (CONTRACT §4)', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ dataset: chargingDataset(), env: { RATING_TIMEOUT_MS: '60000' } });
  });
  afterAll(() => app.close());

  const balance = async (msisdn: string) =>
    BigInt((await app.tdb.db('subscribers').where({ msisdn }).first()).balance_micros);
  const setBalance = (msisdn: string, micros: bigint) =>
    app.tdb
      .db('subscribers')
      .where({ msisdn })
      .update({ balance_micros: Number(micros) });

  it('100 simultaneous distinct charges against a balance covering exactly K: K succeed, the rest 1000, balance 0', async () => {
    const K = 37n;
    await setBalance('353871234567', K * 120000n);
    const results = await Promise.all(
      Array.from({ length: 100 }, () =>
        app.request('POST', '/crs-api/processRating', { ...AUTH, body: ratingBody() }),
      ),
    );
    const codes = results.map((r) => (r.json() as { returnCode: number }).returnCode);
    expect(codes.filter((c) => c === 0).length).toBe(Number(K));
    expect(codes.filter((c) => c === 1000).length).toBe(100 - Number(K));
    expect(await balance('353871234567')).toBe(0n);
    const ledger = await app.tdb
      .db('charges')
      .where({ msisdn: '353871234567', kind: 'charge', return_code: 0 })
      .sum({ s: 'amount_micros' })
      .first();
    expect(BigInt(ledger!.s as number)).toBe(K * 120000n);
    // Each success records the balance it left, computed from the row read under its lock: the
    // K successes recorded exactly K-1, K-2, … 0 times the price, none twice.
    expect(await balancesAfter('353871234567')).toEqual(
      Array.from({ length: Number(K) }, (_, i) => BigInt(i) * 120000n),
    );
  });

  /** `balance_after_micros` of a subscriber's successful charges, ascending. */
  const balancesAfter = async (msisdn: string) =>
    (
      await app.tdb
        .db('charges')
        .where({ msisdn, kind: 'charge', return_code: 0 })
        .select('balance_after_micros')
    )
      .map((r) => BigInt(r.balance_after_micros as number))
      .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

  it('30 simultaneous charges of a postpaid subscriber all succeed, each recording its own balance after', async () => {
    const msisdn = '353870000002';
    await setBalance(msisdn, 5_000_000n);
    const results = await Promise.all(
      Array.from({ length: 30 }, () =>
        app.request('POST', '/crs-api/processRating', { ...AUTH, body: ratingBody({}, { msisdn }) }),
      ),
    );
    expect(results.map((r) => (r.json() as { returnCode: number }).returnCode)).toEqual(Array(30).fill(0));
    expect(await balance(msisdn)).toBe(5_000_000n - 30n * 120000n);
    expect(await balancesAfter(msisdn)).toEqual(
      Array.from({ length: 30 }, (_, i) => 5_000_000n - BigInt(30 - i) * 120000n),
    );
  });

  it('50 simultaneous repeats of one operationId charge once and all answer 0', async () => {
    await setBalance('353871234567', 10_000_000n);
    const body = ratingBody();
    const results = await Promise.all(
      Array.from({ length: 50 }, () => app.request('POST', '/crs-api/processRating', { ...AUTH, body })),
    );
    expect(results.map((r) => (r.json() as { returnCode: number }).returnCode)).toEqual(Array(50).fill(0));
    expect(await balance('353871234567')).toBe(10_000_000n - 120000n);
    const op = (body.ratingParams as { operationId: string }).operationId;
    expect(await app.tdb.db('charges').where({ operation_id: op }).count({ n: '*' }).first()).toEqual({
      n: 1,
    });
  });

  it('simultaneous refunds of one charge credit it once', async () => {
    await setBalance('353871234567', 1_000_000n);
    const body = ratingBody();
    await app.request('POST', '/crs-api/processRating', { ...AUTH, body });
    const results = await Promise.all(
      Array.from({ length: 20 }, () => app.request('POST', '/crs-api/processRefund', { ...AUTH, body })),
    );
    expect(results.map((r) => (r.json() as { returnCode: number }).returnCode)).toEqual(Array(20).fill(0));
    expect(await balance('353871234567')).toBe(1_000_000n);
  });

  it('property: any sequence of charges, repeats and refunds (some fired 3 at once) matches a model balance, never below zero, and the ledger agrees', async () => {
    const msisdn = '353871234567';
    const step = fc.record({
      kind: fc.constantFrom('charge', 'charge', 'repeat', 'refund'),
      price: fc.constantFrom(100_000n, 333_333n, 1_000_000n, 2_500_000n, 1n),
      target: fc.nat(),
      concurrent: fc.boolean(),
    });
    const decimal = (micros: bigint) =>
      `${micros / 1_000_000n}.${(micros % 1_000_000n).toString().padStart(6, '0')}`;
    await fc.assert(
      fc.asyncProperty(
        fc.bigInt({ min: 0n, max: 5_000_000n }),
        fc.array(step, { minLength: 1, maxLength: 12 }),
        async (opening, steps) => {
          await setBalance(msisdn, opening);
          const ledgerStart = Number((await app.tdb.db('charges').max({ id: 'id' }).first())?.id ?? 0);
          // The model: what CONTRACT §4 says must happen, computed without the service.
          let model = opening;
          const charges: { body: Record<string, unknown>; price: bigint; code: number; refunded: boolean }[] =
            [];
          for (const s of steps) {
            let body: Record<string, unknown>;
            let path = '/crs-api/processRating';
            let expected: number;
            if (s.kind === 'charge' || charges.length === 0) {
              const price = decimal(s.price);
              body = ratingBody({}, { preRating: { totalPrice: price, retailPrice: price } });
              expected = model >= s.price ? 0 : 1000;
              if (expected === 0) model -= s.price;
              charges.push({ body, price: s.price, code: expected, refunded: false });
            } else {
              const c = charges[s.target % charges.length];
              body = c.body;
              if (s.kind === 'repeat') expected = c.code;
              else {
                path = '/crs-api/processRefund';
                expected = c.code === 0 ? 0 : 4001;
                if (c.code === 0 && !c.refunded) {
                  model += c.price;
                  c.refunded = true;
                }
              }
            }
            const n = s.concurrent ? 3 : 1;
            const res = await Promise.all(
              Array.from({ length: n }, () => app.request('POST', path, { ...AUTH, body })),
            );
            expect(res.map((r) => (r.json() as { returnCode: number }).returnCode)).toEqual(
              Array(n).fill(expected),
            );
            const now = await balance(msisdn);
            expect(now).toBe(model);
            expect(now >= 0n).toBe(true);
          }
          const rows = await app.tdb
            .db('charges')
            .where('id', '>', ledgerStart)
            .andWhere({ msisdn, return_code: 0 });
          const net = rows.reduce(
            (acc, r) => acc + (r.kind === 'refund' ? BigInt(r.amount_micros) : -BigInt(r.amount_micros)),
            0n,
          );
          expect(opening + net).toBe(model);
        },
      ),
      { numRuns: 25 },
    );
  });
});

describe('subscriber repository timeout (MariaDB row lock)', () => {
  const mysql = (process.env.TEST_DATABASE_URL ?? '').startsWith('mysql://');
  let app: TestApp;
  let holder: Knex;
  beforeAll(async () => {
    app = await startTestApp({ dataset: chargingDataset() });
    holder = createKnex(app.tdb.url);
  });
  afterAll(async () => {
    await holder.destroy();
    await app.close();
  });

  (mysql ? it : it.skip)(
    '2003 when the subscriber row stays locked past the lock wait, nothing charged',
    async () => {
      const trx = await holder.transaction();
      try {
        await trx('subscribers').where({ msisdn: '353871234567' }).forUpdate().first();
        const res = await app.request('POST', '/crs-api/processRating', { ...AUTH, body: ratingBody() });
        expect(res.json()).toEqual({ returnCode: 2003 });
      } finally {
        await trx.rollback();
      }
      expect(
        String((await app.tdb.db('subscribers').where({ msisdn: '353871234567' }).first()).balance_micros),
      ).toBe('10000000');
    },
  );
});
