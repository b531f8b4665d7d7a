import fc from 'fast-check';
import { ReturnCode } from '../../src/modules/charging/return-codes';
import { TestApp, startTestApp } from '../helpers/app';
import { chargingDataset, ratingBody } from '../helpers/charging';
import { dumpTables } from '../helpers/db';

const KNOWN = new Set<number>(Object.values(ReturnCode));

describe('charging with hostile input: a documented code or 400, never 500, nothing charged', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ dataset: chargingDataset() });
  });
  afterAll(() => app.close());

  it('random bodies of every JSON type', async () => {
    const before = await dumpTables(app.tdb.db, ['subscribers']);
    const leaf = fc.oneof(
      fc.string(),
      fc.string({ unit: 'binary', maxLength: 300 }),
      fc.integer(),
      fc.double(),
      fc.boolean(),
      fc.constant(null),
      fc.constantFrom(
        '353871234567',
        '+353871234567',
        '1.00',
        '-1',
        '1e9',
        '0.1234567',
        'x'.repeat(70_000),
        '\u0000',
        '<a>&amp;</a>',
      ),
    );
    const json = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: 'small' },
        leaf,
        fc.array(tie('node'), { maxLength: 3 }),
        fc.dictionary(fc.string(), tie('node'), { maxKeys: 4 }),
      ),
    })).node;
    const mutated = fc.record({
      path: fc.constantFrom(
        'msisdn',
        'ratingParams',
        'operationId',
        'contentId',
        'contentDescription',
        'lookup',
        'preRating',
        'providerId',
        'totalPrice',
      ),
      value: json,
    });
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(json, mutated),
        fc.constantFrom('/crs-api/processRating', '/crs-api/processRefund'),
        async (input, path) => {
          let body: unknown = input;
          if (input && typeof input === 'object' && 'path' in input && 'value' in input) {
            const b = ratingBody() as {
              ratingParams: Record<string, unknown> & {
                lookup: Record<string, unknown>;
                preRating?: Record<string, unknown>;
              };
            };
            b.ratingParams.preRating = { totalPrice: '0.12', retailPrice: '0.12' };
            const p = input.path as string;
            if (p === 'msisdn' || p === 'ratingParams') (b as Record<string, unknown>)[p] = input.value;
            else if (p === 'providerId') b.ratingParams.lookup[p] = input.value;
            else if (p === 'totalPrice') b.ratingParams.preRating[p] = input.value;
            else b.ratingParams[p] = input.value;
            body = b;
          }
          const res = await app.request('POST', path, {
            as: 'admin',
            json: true,
            headers: { tenant: 'acme' },
            body,
          });
          expect([200, 400, 413]).toContain(res.status);
          expect(res.text).not.toMatch(/stack|Error:|\.ts:\d|\.js:\d/);
          if (res.status === 200)
            expect(KNOWN.has((res.json() as { returnCode: number }).returnCode)).toBe(true);
        },
      ),
      { numRuns: 200 },
    );
    // Some mutated bodies stay valid and charge: the balance must move by exactly what the ledger recorded.
    const after = await dumpTables(app.tdb.db, ['subscribers']);
    const rows = await app.tdb.db('charges').where({ return_code: 0 });
    for (const sub of before.subscribers as { msisdn: string; balance_micros: number }[]) {
      const net = rows
        .filter((r) => r.msisdn === sub.msisdn)
        .reduce(
          (acc, r) => acc + (r.kind === 'refund' ? BigInt(r.amount_micros) : -BigInt(r.amount_micros)),
          0n,
        );
      const now = (after.subscribers as { msisdn: string; balance_micros: number }[]).find(
        (x) => x.msisdn === sub.msisdn,
      )!;
      expect(BigInt(now.balance_micros)).toBe(BigInt(sub.balance_micros) + net);
    }
  });

  it('numbers where strings belong, huge strings and control characters get their field codes', async () => {
    const before = await dumpTables(app.tdb.db, ['subscribers']);
    const cases: [Record<string, unknown>, number][] = [
      [ratingBody({ contentId: 123 }), 2101],
      [ratingBody({ contentDescription: 'x'.repeat(256) }), 2102],
      [ratingBody({ contentDescription: { html: '<b>' } }), 2102],
      [ratingBody({ operationId: 'x'.repeat(129) }), 2001],
      [ratingBody({ operationId: 'bad\nid' }), 2001],
      [ratingBody({}, { lookup: { serviceId: ['a'] } }), 2001],
      [ratingBody({}, { preRating: { totalPrice: '99999999999999999.00' } }), 2103],
      [ratingBody({ preRating: 'cheap' }), 2001],
      [ratingBody({}, { top: { msisdn: 'x'.repeat(100_000) } }), 2000],
    ];
    for (const [body, code] of cases) {
      const res = await app.request('POST', '/crs-api/processRating', {
        as: 'admin',
        json: true,
        headers: { tenant: 'acme' },
        body,
      });
      expect({ status: res.status, body: res.json() }).toEqual({ status: 200, body: { returnCode: code } });
    }
    expect(await dumpTables(app.tdb.db, ['subscribers'])).toEqual(before);
  });
});
