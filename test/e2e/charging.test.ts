import { TestApp, startTestApp } from '../helpers/app';
import { withFailingBalanceWrites, withSlowBalanceWrites, withTableMissing } from '../helpers/faults';
import { chargingDataset, ratingBody } from '../helpers/charging';

const PRE = {
  totalPrice: '1.15',
  retailPrice: '1.00',
  calculatedTax: '0.20',
  calculatedPromo: '0.10',
  downloadFeeWot: '0.05',
};

describe('processRating / processRefund over HTTP (CONTRACT §4): every return code', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ dataset: chargingDataset() });
  });
  afterAll(() => app.close());

  const rate = (body: unknown, path = '/crs-api/processRating') =>
    app.request('POST', path, {
      auth: 'Basic ' + Buffer.from('crs:crs-password').toString('base64'),
      json: true,
      headers: { tenant: 'acme' },
      body,
    });
  const balanceOf = async (msisdn: string) =>
    String((await app.tdb.db('subscribers').where({ msisdn }).first()).balance_micros);

  const cases: [string, () => Record<string, unknown>, number][] = [
    ['success from the most specific catalogue entry', () => ratingBody(), 0],
    ['success pre-rated', () => ratingBody({}, { preRating: PRE }), 0],
    ['success postpaid', () => ratingBody({}, { msisdn: '353870000002' }), 0],
    ['insufficient funds (prepaid)', () => ratingBody({}, { msisdn: '353870000001' }), 1000],
    ['unknown subscriber', () => ratingBody({}, { msisdn: '353870009999' }), 2000],
    ['subscriber not active', () => ratingBody({}, { msisdn: '353870000003' }), 2000],
    ["another tenant's subscriber", () => ratingBody({}, { msisdn: '353879999999' }), 2000],
    ['malformed msisdn', () => ratingBody({}, { top: { msisdn: '12ab' } }), 2000],
    ['msisdn a number', () => ratingBody({}, { top: { msisdn: 353871234567 } }), 2000],
    ['msisdn missing', () => ratingBody({}, { top: { msisdn: undefined } }), 2001],
    ['ratingParams.msisdn differs', () => ratingBody({ msisdn: '353870000002' }), 2001],
    ['operationId missing', () => ratingBody({ operationId: undefined }), 2001],
    ['operationId a number', () => ratingBody({ operationId: 42 }), 2001],
    ['lookup missing', () => ratingBody({ lookup: undefined }), 2001],
    ['unknown provider', () => ratingBody({}, { lookup: { providerId: '9999' } }), 2001],
    ['providerId a number', () => ratingBody({}, { lookup: { providerId: 6010 } }), 2001],
    ['ratingParams an array', () => ratingBody({}, { top: { ratingParams: [] } }), 2001],
    ['contentId too long', () => ratingBody({ contentId: 'x'.repeat(65) }), 2101],
    ['contentId a number', () => ratingBody({ contentId: 7 }), 2101],
    [
      'contentDescription with a control character',
      () => ratingBody({ contentDescription: 'bad\u0007' }),
      2102,
    ],
    [
      'totalPrice with 7 decimals',
      () => ratingBody({}, { preRating: { ...PRE, totalPrice: '1.1500000' } }),
      2103,
    ],
    ['totalPrice a number', () => ratingBody({}, { preRating: { ...PRE, totalPrice: 1.15 } }), 2103],
    ['retailPrice negative', () => ratingBody({}, { preRating: { ...PRE, retailPrice: '-1.00' } }), 2104],
    ['calculatedTax exponent', () => ratingBody({}, { preRating: { ...PRE, calculatedTax: '2e-1' } }), 2105],
    ['calculatedPromo empty', () => ratingBody({}, { preRating: { ...PRE, calculatedPromo: '' } }), 2106],
    ['downloadFeeWot garbage', () => ratingBody({}, { preRating: { ...PRE, downloadFeeWot: 'five' } }), 2107],
    ['totalPrice mismatch', () => ratingBody({}, { preRating: { ...PRE, totalPrice: '1.16' } }), 2108],
    [
      'no rating match',
      () =>
        ratingBody({}, { lookup: { providerId: '8000', applicationId: 'content-only', serviceId: 'S2' } }),
      3001,
    ],
    [
      'no content rating, only transport',
      () => ratingBody({}, { lookup: { providerId: '7000', applicationId: 'transport-only' } }),
      3001,
    ],
    [
      'download fee without transport rating',
      () =>
        ratingBody(
          {},
          { lookup: { providerId: '8000', applicationId: 'content-only', serviceId: 'S1' }, preRating: PRE },
        ),
      3003,
    ],
  ];

  it.each(cases)('%s → %d (HTTP 200, JSON and XML)', async (_name, body, code) => {
    const res = await rate(body());
    expect(res.status).toBe(200);
    expect(res.json()).toEqual({ returnCode: code });
    const xml = await app.request('POST', '/crs-api/processRating', {
      auth: 'Basic ' + Buffer.from('crs:crs-password').toString('base64'),
      headers: { tenant: 'acme' },
      body: body(),
    });
    expect(xml.xml()).toEqual({ returnCode: String(code) });
  });

  it('charges the most specific entry, the pre-rated total, and accumulates postpaid', async () => {
    const before = BigInt(await balanceOf('353871234567'));
    await rate(ratingBody());
    expect(BigInt(await balanceOf('353871234567'))).toBe(before - 120000n);
    await rate(ratingBody({}, { lookup: { originId: 'other' } }));
    expect(BigInt(await balanceOf('353871234567'))).toBe(before - 120000n - 240000n);
    await rate(ratingBody({}, { lookup: { serviceId: 'other' } }));
    expect(BigInt(await balanceOf('353871234567'))).toBe(before - 120000n - 240000n - 600000n);
    await rate(ratingBody({}, { preRating: PRE }));
    expect(BigInt(await balanceOf('353871234567'))).toBe(before - 120000n - 240000n - 600000n - 1150000n);
    const pp = BigInt(await balanceOf('353870000002'));
    await rate(ratingBody({}, { msisdn: '353870000002' }));
    expect(BigInt(await balanceOf('353870000002'))).toBe(pp - 120000n);
  });

  it('replays a repeated operationId, and 2001 when it is reused with a different request', async () => {
    const body = ratingBody();
    const before = await balanceOf('353871234567');
    expect((await rate(body)).json()).toEqual({ returnCode: 0 });
    const after = await balanceOf('353871234567');
    expect(BigInt(after)).toBe(BigInt(before) - 120000n);
    expect((await rate(body)).json()).toEqual({ returnCode: 0 });
    expect(await balanceOf('353871234567')).toBe(after);
    const changed = structuredClone(body) as { ratingParams: { contentId: string } };
    changed.ratingParams.contentId = 'other-content';
    expect((await rate(changed)).json()).toEqual({ returnCode: 2001 });
    expect(await balanceOf('353871234567')).toBe(after);
    // A repeat of a refused request gets the first outcome too.
    const poor = ratingBody({}, { msisdn: '353870000001' });
    expect((await rate(poor)).json()).toEqual({ returnCode: 1000 });
    await app.tdb.db('subscribers').where({ msisdn: '353870000001' }).update({ balance_micros: 100_000_000 });
    expect((await rate(poor)).json()).toEqual({ returnCode: 1000 });
    await app.tdb.db('subscribers').where({ msisdn: '353870000001' }).update({ balance_micros: 50_000 });
  });

  it('refunds once (0, then 0 crediting nothing), 3004 with a download fee, 4001 with nothing to refund', async () => {
    const body = ratingBody();
    await rate(body);
    const charged = await balanceOf('353871234567');
    expect((await rate(body, '/crs-api/processRefund')).json()).toEqual({ returnCode: 0 });
    expect(BigInt(await balanceOf('353871234567'))).toBe(BigInt(charged) + 120000n);
    expect((await rate(body, '/crs-api/processRefund')).json()).toEqual({ returnCode: 0 });
    expect(BigInt(await balanceOf('353871234567'))).toBe(BigInt(charged) + 120000n);
    expect((await rate(ratingBody({}, { preRating: PRE }), '/crs-api/processRefund')).json()).toEqual({
      returnCode: 3004,
    });
    expect((await rate(ratingBody(), '/crs-api/processRefund')).json()).toEqual({ returnCode: 4001 });
    const refused = ratingBody({}, { msisdn: '353870000001' });
    await rate(refused);
    expect((await rate(refused, '/crs-api/processRefund')).json()).toEqual({ returnCode: 4001 });
  });

  it('2002 when the subscriber repository fails, 3002 when rating fails, 4000 when the balance write fails, 5000 otherwise; nothing charged', async () => {
    const { db } = app.tdb;
    const before = await balanceOf('353871234567');
    await withTableMissing(db, 'subscribers', async () =>
      expect((await rate(ratingBody())).json()).toEqual({ returnCode: 2002 }),
    );
    await withTableMissing(db, 'ratings', async () =>
      expect((await rate(ratingBody())).json()).toEqual({ returnCode: 3002 }),
    );
    await withFailingBalanceWrites(db, app.tdb.dialect, async () =>
      expect((await rate(ratingBody())).json()).toEqual({ returnCode: 4000 }),
    );
    await withTableMissing(db, 'charges', async () =>
      expect((await rate(ratingBody())).json()).toEqual({ returnCode: 5000 }),
    );
    expect(await balanceOf('353871234567')).toBe(before);
  });

  it('GraphQL processRating takes the typed RatingRequestInput: a charge, then a bad field as its return code', async () => {
    const gql = async (input: unknown) =>
      (
        await app.request('POST', '/graphql', {
          auth: 'Basic ' + Buffer.from('crs:crs-password').toString('base64'),
          body: {
            query:
              'mutation($i: RatingRequestInput!) { processRating(input: $i) { returnCode returnCodeName chargedAmount } }',
            variables: { i: input },
          },
        })
      ).json() as { data?: { processRating: Record<string, unknown> }; errors?: unknown[] };
    const before = await balanceOf('353871234567');
    expect((await gql(ratingBody())).data?.processRating).toEqual({
      returnCode: 0,
      returnCodeName: 'SUCCESS',
      chargedAmount: '0.12',
    });
    expect(BigInt(await balanceOf('353871234567'))).toBe(BigInt(before) - 120_000n);
    expect((await gql(ratingBody({ contentId: 'x'.repeat(65) }))).data?.processRating.returnCode).toBe(2101);
    expect(
      (await gql(ratingBody({}, { preRating: { totalPrice: '1.0000001' } }))).data?.processRating.returnCode,
    ).toBe(2103);
    // A wrongly typed value is a GraphQL coercion error here (the REST row maps it to its return code).
    expect((await gql(ratingBody({ contentId: 5 }))).errors).toBeDefined();
  });

  it('2004 is reserved: no request produces it', async () => {
    const res = await rate(ratingBody({ extraParameterString: '<xml/>' }));
    expect(res.json()).toEqual({ returnCode: 0 });
  });

  it('400 for a body that is not a JSON object or a missing tenant header; 401/403 as usual', async () => {
    for (const raw of ['[]', '"x"', '{bad']) {
      const res = await app.request('POST', '/crs-api/processRating', {
        as: 'admin',
        json: true,
        headers: { tenant: 'acme', 'content-type': 'application/json' },
        raw,
      });
      expect(res.status).toBe(400);
    }
    const noTenant = await app.request('POST', '/crs-api/processRating', {
      as: 'admin',
      json: true,
      body: ratingBody(),
    });
    expect(noTenant.status).toBe(400);
    expect(noTenant.json()).toEqual({ errorCode: 1, message: 'tenant header is required' });
    expect(
      (
        await app.request('POST', '/crs-api/processRating', {
          as: 'admin',
          json: true,
          headers: { tenant: 'rival' },
          body: ratingBody(),
        })
      ).status,
    ).toBe(403);
    expect(
      (
        await app.request('POST', '/crs-api/processRating', {
          as: 'portal',
          json: true,
          headers: { tenant: 'acme' },
          body: ratingBody(),
        })
      ).status,
    ).toBe(403);
    expect(
      (
        await app.request('POST', '/crs-api/processRating', {
          json: true,
          headers: { tenant: 'acme' },
          body: ratingBody(),
        })
      ).status,
    ).toBe(401);
  });
});

describe('processRating past RATING_TIMEOUT_MS', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ dataset: chargingDataset(), env: { RATING_TIMEOUT_MS: '20' } });
  });
  afterAll(() => app.close());

  it('5001 and the transaction rolls back (nothing charged, nothing recorded)', async () => {
    const body = ratingBody();
    const before = await app.tdb.db('subscribers').where({ msisdn: '353871234567' }).first();
    const res = await withSlowBalanceWrites(app.tdb.db, app.tdb.dialect, () =>
      app.request('POST', '/crs-api/processRating', {
        as: 'admin',
        json: true,
        headers: { tenant: 'acme' },
        body,
      }),
    );
    expect(res.json()).toEqual({ returnCode: 5001 });
    expect(await app.tdb.db('subscribers').where({ msisdn: '353871234567' }).first()).toEqual(before);
    expect(
      await app.tdb
        .db('charges')
        .where({ operation_id: (body.ratingParams as { operationId: string }).operationId })
        .first(),
    ).toBeUndefined();
  });
});
