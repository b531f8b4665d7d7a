import { TestApp, startTestApp } from '../helpers/app';
import { chargingDataset, ratingBody } from '../helpers/charging';
import { ClientName, basic } from '../helpers/fixtures';

/** A JSON value of a GraphQL answer (tests read it loosely). */
type Json = ReturnType<typeof JSON.parse>;
type Result = {
  data?: Record<string, Json> | null;
  errors?: { message: string; extensions: { code: string } }[];
};

/**
 * The charging graph's mutations and scalars (docs/graphql.md): processRating/processRefund
 * payloads carry the enum outcome beside the numeric returnCode; adjustBalance and upsertRating
 * answer refusals as typed userErrors; MSISDN and Decimal arguments are refused before any change.
 */
describe('charging graph: payloads, outcomes and scalars', () => {
  let app: TestApp;
  beforeAll(async () => {
    const ds = chargingDataset();
    ds.clients!.push({
      tenant: 'acme',
      username: 'refunder',
      password: 'refunder-password',
      permissions: ['CRS_REFUND'] as never,
    });
    app = await startTestApp({ dataset: ds });
  });
  afterAll(() => app.close());

  const crs = 'Basic ' + Buffer.from('crs:crs-password').toString('base64');
  async function gql(
    query: string,
    variables: Record<string, unknown> = {},
    as: ClientName | 'crs' = 'admin',
  ) {
    const res = await app.request('POST', '/graphql', {
      auth: as === 'crs' ? crs : basic(as),
      body: { query, variables },
    });
    return res.json() as Result;
  }
  const balanceOf = async (msisdn: string) =>
    String((await app.tdb.db('subscribers').where({ msisdn }).first()).balance_micros);
  const ledgerSize = async () => Number((await app.tdb.db('charges').count({ n: '*' }))[0].n);

  const PAYLOAD =
    '{ outcome returnCode operationId chargedAmount balance currency subscriber { id msisdn balance } }';
  const rate = (input: unknown, field = 'processRating') =>
    gql(`mutation($i: RatingRequestInput!) { r: ${field}(input: $i) ${PAYLOAD} }`, { i: input }, 'crs');

  it('processRating answers the outcome enum beside returnCode, and the subscriber with its new balance', async () => {
    const body = ratingBody();
    const ok = await rate(body);
    expect(ok.errors).toBeUndefined();
    const sub = ok.data!.r.subscriber;
    expect(ok.data!.r).toEqual({
      outcome: 'SUCCESS',
      returnCode: 0,
      operationId: (body.ratingParams as { operationId: string }).operationId,
      chargedAmount: '0.12',
      balance: '9.88',
      currency: 'EUR',
      subscriber: { id: sub.id, msisdn: '353871234567', balance: '9.88' },
    });
    // The subscriber's id is the one the subscriber query gives (a normalised cache merges them).
    expect((await gql('{ subscriber(msisdn: "353871234567") { id } }')).data!.subscriber.id).toBe(sub.id);

    const short = await rate(ratingBody({}, { msisdn: '353870000001' }));
    expect(short.data!.r).toMatchObject({
      outcome: 'INSUFFICIENT_FUNDS',
      returnCode: 1000,
      chargedAmount: null,
      balance: '0.05',
      subscriber: { msisdn: '353870000001', balance: '0.05' },
    });
    const unknown = await rate(ratingBody({}, { msisdn: '353870009999' }));
    expect(unknown.data!.r).toMatchObject({ outcome: 'INVALID_NUMBER', returnCode: 2000, subscriber: null });
    const badContent = await rate(ratingBody({ contentId: 'x'.repeat(65) }));
    expect(badContent.data!.r).toMatchObject({ outcome: 'INVALID_CONTENT_ID', returnCode: 2101 });
    const mismatch = await rate(ratingBody({}, { preRating: { totalPrice: '1.00', retailPrice: '0.50' } }));
    expect(mismatch.data!.r).toMatchObject({ outcome: 'TOTAL_PRICE_MISMATCH', returnCode: 2108 });
  });

  it('processRefund answers SUCCESS once the charge exists, REFUND_FAILED otherwise', async () => {
    const body = ratingBody({}, { msisdn: '353870000002' });
    expect((await rate(body)).data!.r.outcome).toBe('SUCCESS');
    const refund = await rate(body, 'processRefund');
    expect(refund.data!.r).toMatchObject({ outcome: 'SUCCESS', returnCode: 0, chargedAmount: '0.12' });
    const none = await rate(ratingBody({}, { msisdn: '353870000002' }), 'processRefund');
    expect(none.data!.r).toMatchObject({ outcome: 'REFUND_FAILED', returnCode: 4001, chargedAmount: null });
    const fee = await rate(
      ratingBody({}, { preRating: { totalPrice: '0.05', downloadFeeWot: '0.05' } }),
      'processRefund',
    );
    expect(fee.data!.r.outcome).toBe('DOWNLOAD_FEE_IN_REFUND');
  });

  it('the payload subscriber needs CRS_RATING, as the subscriber query', async () => {
    const body = ratingBody({}, { msisdn: '353870000002' });
    expect((await rate(body)).data!.r.outcome).toBe('SUCCESS');
    const res = await app.request('POST', '/graphql', {
      auth: basic('refunder', 'refunder-password'),
      body: {
        query: `mutation($i: RatingRequestInput!) { processRefund(input: $i) { outcome subscriber { balance } } }`,
        variables: { i: body },
      },
    });
    const r = res.json() as Result;
    expect(r.data!.processRefund).toEqual({ outcome: 'SUCCESS', subscriber: null });
    expect(r.errors?.map((e) => e.extensions.code)).toEqual(['FORBIDDEN']);
  });

  it('subscriber(msisdn: MSISDN!) reads typed fields and refuses a malformed MSISDN before any resolver', async () => {
    const r = await gql(
      'query($m: MSISDN!) { subscriber(msisdn: $m) { msisdn status paymentType balance currency } }',
      { m: '+353870000003' },
    );
    expect(r.data!.subscriber).toEqual({
      msisdn: '353870000003',
      status: 'SUSPENDED',
      paymentType: 'PREPAID',
      balance: '10.00',
      currency: 'EUR',
    });
    for (const m of ['12ab', '1234', 353870000003, '+']) {
      const bad = await gql('query($m: MSISDN!) { subscriber(msisdn: $m) { msisdn } }', { m });
      expect(bad.errors?.[0].extensions.code).toBe('BAD_USER_INPUT');
      expect(bad.data).toBeUndefined();
    }
  });

  const ADJUST = `mutation($m: MSISDN!, $a: Decimal!, $r: String!) {
    adjustBalance(msisdn: $m, amount: $a, reason: $r) {
      subscriber { id msisdn balance }
      charge { id kind amount balanceAfter reason outcome }
      userErrors { __typename code field message }
    }
  }`;

  it('adjustBalance returns the subscriber and its ledger entry', async () => {
    const before = BigInt(await balanceOf('353870000003'));
    const r = await gql(ADJUST, { m: '+353870000003', a: '-2.5', r: 'goodwill' });
    expect(r.data!.adjustBalance).toMatchObject({
      subscriber: { msisdn: '353870000003', balance: '7.50' },
      charge: {
        kind: 'ADJUSTMENT',
        amount: '-2.50',
        balanceAfter: '7.50',
        reason: 'goodwill',
        outcome: 'SUCCESS',
      },
      userErrors: [],
    });
    expect(BigInt(await balanceOf('353870000003'))).toBe(before - 2_500_000n);
    const node = await gql('query($id: ID!) { node(id: $id) { ... on Charge { reason } } }', {
      id: r.data!.adjustBalance.charge.id,
    });
    expect(node.data!.node).toEqual({ reason: 'goodwill' });
  });

  it('adjustBalance refusals are userErrors with their code and field; nothing changes', async () => {
    const before = await balanceOf('353870000001');
    const ledger = await ledgerSize();
    const cases: [Record<string, unknown>, string, string[]][] = [
      [{ m: '353870009999', a: '1', r: 'x' }, 'SUBSCRIBER_NOT_FOUND', ['msisdn']],
      [{ m: '353879999999', a: '1', r: 'x' }, 'SUBSCRIBER_NOT_FOUND', ['msisdn']],
      [{ m: '353870000001', a: '1', r: '  ' }, 'INVALID_REASON', ['reason']],
      [{ m: '353870000001', a: '1', r: 'x'.repeat(256) }, 'INVALID_REASON', ['reason']],
      [{ m: '353870000001', a: '-0.06', r: 'overdraft' }, 'PREPAID_BALANCE_EXCEEDED', ['amount']],
    ];
    for (const [vars, code, field] of cases) {
      const r = await gql(ADJUST, vars);
      expect(r.errors).toBeUndefined();
      expect(r.data!.adjustBalance).toEqual({
        subscriber: null,
        charge: null,
        userErrors: [{ __typename: 'AdjustBalanceUserError', code, field, message: expect.any(String) }],
      });
    }
    expect(await balanceOf('353870000001')).toBe(before);
    expect(await ledgerSize()).toBe(ledger);
  });

  it('a malformed Decimal or MSISDN is BAD_USER_INPUT before any change', async () => {
    const before = await balanceOf('353870000001');
    const ledger = await ledgerSize();
    for (const vars of [
      { m: '353870000001', a: '1.2.3', r: 'x' },
      { m: '353870000001', a: 1.5, r: 'x' },
      { m: '353870000001', a: '0.0000001', r: 'x' },
      { m: '353870000001', a: '1e3', r: 'x' },
      { m: 'abc', a: '1', r: 'x' },
    ]) {
      const r = await gql(ADJUST, vars);
      expect(r.errors?.[0].extensions.code).toBe('BAD_USER_INPUT');
      expect(r.data).toBeUndefined();
    }
    expect(await balanceOf('353870000001')).toBe(before);
    expect(await ledgerSize()).toBe(ledger);
  });

  const UPSERT = `mutation($i: RatingInput!) {
    upsertRating(input: $i) {
      rating { id providerId serviceId kind retailPrice tax }
      userErrors { __typename code field message }
    }
  }`;
  const entry = (patch: Record<string, unknown> = {}) => ({
    providerId: '9100',
    applicationId: 'app',
    kind: 'TRANSPORT',
    retailPrice: '0.30',
    tax: '0.06',
    ...patch,
  });

  it('upsertRating returns the stored entry, the same id on update, and typed userErrors', async () => {
    const created = await gql(UPSERT, { i: entry() });
    const rating = created.data!.upsertRating.rating;
    expect(created.data!.upsertRating).toEqual({
      rating: {
        id: rating.id,
        providerId: '9100',
        serviceId: '*',
        kind: 'TRANSPORT',
        retailPrice: '0.30',
        tax: '0.06',
      },
      userErrors: [],
    });
    const updated = await gql(UPSERT, { i: entry({ retailPrice: '0.40' }) });
    expect(updated.data!.upsertRating.rating).toMatchObject({ id: rating.id, retailPrice: '0.40' });

    const refused = await gql(UPSERT, { i: entry({ providerId: '*', tax: '-0.01', serviceId: 'a b' }) });
    expect(refused.data!.upsertRating.rating).toBeNull();
    expect(
      refused.data!.upsertRating.userErrors.map((e: { code: string; field: string[] }) => [e.code, e.field]),
    ).toEqual([
      ['INVALID_KEY', ['input', 'providerId']],
      ['INVALID_KEY', ['input', 'serviceId']],
      ['NEGATIVE_AMOUNT', ['input', 'tax']],
    ]);
    expect(refused.data!.upsertRating.userErrors[0].__typename).toBe('UpsertRatingUserError');
    // A kind outside the enum (the stored lowercase string) or a price that is not a decimal: coercion errors.
    for (const i of [entry({ kind: 'transport' }), entry({ retailPrice: 0.3 })]) {
      const r = await gql(UPSERT, { i });
      expect(r.errors?.[0].extensions.code).toBe('BAD_USER_INPUT');
    }
    const rows = await app.tdb.db('ratings').where({ provider_id: '9100' });
    expect(rows).toHaveLength(1);
  });

  it('the REST rows still answer only {returnCode}, whatever the payload holds', async () => {
    const res = await app.request('POST', '/crs-api/processRating', {
      auth: crs,
      json: true,
      headers: { tenant: 'acme' },
      body: ratingBody({}, { msisdn: '353870000001' }),
    });
    expect(res.status).toBe(200);
    expect(res.text).toBe('{"returnCode":1000}');
  });
});
