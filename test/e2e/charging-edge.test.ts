import { ROUTES } from '../../src/rest/routes';
import { RestRoute } from '../../src/rest/route';
import { TestApp, startTestApp } from '../helpers/app';
import { chargingDataset, ratingBody } from '../helpers/charging';
import { basic } from '../helpers/fixtures';
import { genericAnswer } from '../helpers/rest-generic';

/**
 * The rating operations: `RatingRequestInput`'s required fields are non-null
 * and its MSISDNs the MSISDN scalar, so GraphQL refuses a missing, null or malformed one by
 * coercion (BAD_USER_INPUT, nothing charged, no CDR, no rating counted); the REST rows read the
 * legacy body at the edge and answer what cannot become the typed request with the legacy
 * return code (HTTP 200), recorded by the service as before: a charging CDR with the body's keys
 * and `rating_requests_total`. The REST assertions hold on the code before this change too, but
 * for three CDRs that recorded a stand-in value there ('?' for a msisdn of another JSON type,
 * '\u0000' for such a serviceId, originId or bundleId, no keys at all for a preRating that is not an object): they now
 * record the body's own strings, as the service's legacy parser did on the raw body.
 */
describe('rating inputs: typed in the graph, legacy codes at the REST edge', () => {
  let app: TestApp;
  const CRS = 'Basic ' + Buffer.from('crs:crs-password').toString('base64');

  beforeAll(async () => {
    app = await startTestApp({ dataset: chargingDataset() });
  });
  afterAll(() => app.close());

  const balance = async () =>
    String((await app.tdb.db('subscribers').where({ msisdn: '353871234567' }).first()).balance_micros);
  const count = async (table: string) => Number((await app.tdb.db(table).count({ n: '*' }))[0].n);
  const metric = async (operation: string, code: number) => {
    const text = (await app.request('GET', '/metrics')).text;
    const series = `rating_requests_total{operation="${operation}",returnCode="${code}"} `;
    const line = text.split('\n').find((l) => l.startsWith(series));
    return line === undefined ? 0 : Number(line.slice(series.length));
  };
  /** The charging CDRs, oldest first, with the fields a refusal records. */
  const chargingCdrs = async () => {
    const res = await app.request('POST', '/graphql', {
      as: 'admin',
      body: {
        query: `{ cdrs(type: CHARGING, from: "2026-01-01T00:00:00Z", to: "2027-01-01", first: 500) {
          nodes { transactionType recordId charging { msisdn returnCode amount providerId applicationId serviceId originId bundleId } } } }`,
      },
    });
    const body = res.json() as { data: { cdrs: { nodes: Record<string, unknown>[] } } };
    return body.data.cdrs.nodes;
  };

  const gql = async (input: unknown, field = 'processRating') =>
    (
      await app.request('POST', '/graphql', {
        auth: CRS,
        body: {
          query: `mutation($i: RatingRequestInput!) { r: ${field}(input: $i) { outcome returnCode } }`,
          variables: { i: input },
        },
      })
    ).json() as { data?: unknown; errors?: { message: string; extensions: { code: string } }[] };

  it('GraphQL refuses a missing, null or malformed required field by coercion: nothing charged, no CDR, nothing counted', async () => {
    const before = {
      balance: await balance(),
      ledger: await count('charges'),
      cdrs: await count('cdrs'),
      counted: await metric('rating', 2001),
      counted2000: await metric('rating', 2000),
    };
    const drop = (path: string[]) => {
      const b = ratingBody({}, { preRating: { totalPrice: '0.12', retailPrice: '0.12' } });
      let o = b as Record<string, unknown>;
      for (const k of path.slice(0, -1)) o = o[k] as Record<string, unknown>;
      delete o[path.at(-1)!];
      return b;
    };
    const cases: [string, unknown][] = [
      ['msisdn missing', drop(['msisdn'])],
      ['msisdn null', { ...ratingBody(), msisdn: null }],
      ['msisdn malformed', ratingBody({}, { top: { msisdn: '35387abc' } })],
      ['ratingParams missing', drop(['ratingParams'])],
      ['ratingParams.msisdn missing', drop(['ratingParams', 'msisdn'])],
      ['ratingParams.msisdn malformed', ratingBody({ msisdn: '12' })],
      ['operationId missing', drop(['ratingParams', 'operationId'])],
      ['operationId null', ratingBody({ operationId: null })],
      ['contentId missing', drop(['ratingParams', 'contentId'])],
      ['lookup missing', drop(['ratingParams', 'lookup'])],
      ['providerId missing', drop(['ratingParams', 'lookup', 'providerId'])],
      ['applicationId null', ratingBody({}, { lookup: { applicationId: null } })],
      ['totalPrice missing', drop(['ratingParams', 'preRating', 'totalPrice'])],
      ['contentId of another type', ratingBody({ contentId: 5 })],
    ];
    for (const field of ['processRating', 'processRefund'])
      for (const [what, input] of cases) {
        const res = await gql(input, field);
        expect({ field, what, data: res.data, code: res.errors?.[0]?.extensions.code }).toEqual({
          field,
          what,
          data: undefined,
          code: 'BAD_USER_INPUT',
        });
      }
    expect({
      balance: await balance(),
      ledger: await count('charges'),
      cdrs: await count('cdrs'),
      counted: await metric('rating', 2001),
      counted2000: await metric('rating', 2000),
    }).toEqual(before);
    // A typed value the rules refuse is still an outcome with its code (and its CDR).
    expect((await gql(ratingBody({ contentId: '' }))).data).toEqual({
      r: { outcome: 'INVALID_PARAMETER', returnCode: 2001 },
    });
    expect(await count('cdrs')).toBe(before.cdrs + 1);
  });

  it('REST answers a body that cannot be the typed request with its legacy code, HTTP 200, its CDR and its count', async () => {
    const rest = (body: Record<string, unknown>, path = 'processRating') =>
      app.request('POST', `/crs-api/${path}`, { auth: CRS, json: true, headers: { tenant: 'acme' }, body });
    /** The CDR's recordId: the body's operationId as a string (cut to 128), else a generated id. */
    const recordIdOf = (b: Record<string, unknown>) => {
      const op = (b.ratingParams as { operationId?: unknown } | undefined)?.operationId;
      return typeof op === 'string' ? op.slice(0, 128) : expect.any(String);
    };
    const KEYS = {
      providerId: '6010',
      applicationId: '50000029',
      serviceId: '30000020',
      originId: '9',
      bundleId: '1234',
    };
    const cases: [string, Record<string, unknown>, number, string | null, Record<string, unknown>][] = [
      ['msisdn missing', { ratingParams: ratingBody().ratingParams }, 2001, null, KEYS],
      ['msisdn null', { ...ratingBody(), msisdn: null }, 2001, null, KEYS],
      ['msisdn a number', { ...ratingBody(), msisdn: 353871234567 }, 2000, null, KEYS],
      ['msisdn malformed', ratingBody({}, { top: { msisdn: '+35387abc' } }), 2000, '+35387abc', KEYS],
      ['ratingParams a string', { msisdn: '353871234567', ratingParams: 'x' }, 2001, '353871234567', {}],
      ['ratingParams.msisdn null', ratingBody({ msisdn: null }), 2001, '353871234567', KEYS],
      ['operationId a number', ratingBody({ operationId: 7 }), 2001, '353871234567', KEYS],
      ['lookup null', ratingBody({ lookup: null }), 2001, '353871234567', {}],
      [
        'providerId missing',
        ratingBody({}, { lookup: { providerId: undefined } }),
        2001,
        '353871234567',
        { ...KEYS, providerId: null },
      ],
      [
        'serviceId a number',
        ratingBody({}, { lookup: { serviceId: 30000020 } }),
        2001,
        '353871234567',
        { ...KEYS, serviceId: null },
      ],
      ['contentId null', ratingBody({ contentId: null }), 2001, '353871234567', KEYS],
      ['contentId a number', ratingBody({ contentId: 5 }), 2101, '353871234567', KEYS],
      // The rules on the fields before decide first (CONTRACT §4 order), as the legacy parser did.
      [
        'contentId a number after a long operationId',
        ratingBody({ contentId: 5, operationId: 'o'.repeat(129) }),
        2001,
        '353871234567',
        KEYS,
      ],
      ['contentDescription an object', ratingBody({ contentDescription: {} }), 2102, '353871234567', KEYS],
      [
        'contentDescription a number after a long contentId',
        ratingBody({ contentDescription: 1, contentId: 'c'.repeat(65) }),
        2101,
        '353871234567',
        KEYS,
      ],
      ['preRating a string', ratingBody({ preRating: 'cheap' }), 2001, '353871234567', KEYS],
      [
        'totalPrice missing',
        ratingBody({}, { preRating: { retailPrice: '0.12' } }),
        2103,
        '353871234567',
        KEYS,
      ],
      [
        'totalPrice a number',
        ratingBody({}, { preRating: { totalPrice: 0.12 } }),
        2103,
        '353871234567',
        KEYS,
      ],
      [
        'retailPrice a number',
        ratingBody({}, { preRating: { totalPrice: '0.12', retailPrice: 0.12 } }),
        2104,
        '353871234567',
        KEYS,
      ],
      [
        'calculatedTax a boolean',
        ratingBody({}, { preRating: { totalPrice: '0.12', calculatedTax: true } }),
        2105,
        '353871234567',
        KEYS,
      ],
      [
        'calculatedPromo an array',
        ratingBody({}, { preRating: { totalPrice: '0.12', calculatedPromo: [] } }),
        2106,
        '353871234567',
        KEYS,
      ],
      [
        'downloadFeeWot a number after a bad totalPrice',
        ratingBody({}, { preRating: { totalPrice: '-1', downloadFeeWot: 1 } }),
        2103,
        '353871234567',
        KEYS,
      ],
      [
        'downloadFeeWot a number',
        ratingBody({}, { preRating: { totalPrice: '0.12', downloadFeeWot: 1 } }),
        2107,
        '353871234567',
        KEYS,
      ],
      // A typed request the rules refuse: its CDR records the msisdn as the body gave it.
      [
        'contentId too long, msisdn with +',
        ratingBody({ contentId: 'c'.repeat(65) }, { top: { msisdn: '+353871234567' } }),
        2101,
        '+353871234567',
        KEYS,
      ],
    ];
    const before = await balance();
    for (const path of ['processRating', 'processRefund']) {
      const operation = path === 'processRating' ? 'rating' : 'refund';
      for (const [what, body, code, msisdn, keys] of cases) {
        const counted = await metric(operation, code);
        await app.tdb.db('cdrs').delete();
        const res = await rest(body, path);
        expect({ path, what, status: res.status, text: res.text }).toEqual({
          path,
          what,
          status: 200,
          text: JSON.stringify({ returnCode: code }),
        });
        const rows = await chargingCdrs();
        const lookup = {
          providerId: null,
          applicationId: null,
          serviceId: null,
          originId: null,
          bundleId: null,
          ...keys,
        };
        expect({ path, what, rows }).toEqual({
          path,
          what,
          rows: [
            {
              transactionType: operation === 'rating' ? 0 : 1,
              recordId: recordIdOf(body),
              charging: { msisdn, returnCode: code, amount: null, ...lookup },
            },
          ],
        });
        expect({ path, what, counted: await metric(operation, code) }).toEqual({
          path,
          what,
          counted: counted + 1,
        });
      }
    }
    expect(await balance()).toBe(before);
  });

  it('a caller without the grant gets 403 for any body, before its values are judged', async () => {
    for (const body of [ratingBody(), ratingBody({ contentId: 5 }), { msisdn: null }]) {
      const res = await app.request('POST', '/crs-api/processRating', {
        as: 'nogrant',
        json: true,
        headers: { tenant: 'acme' },
        body,
      });
      expect(res.status).toBe(403);
    }
  });

  it.each(['json', 'xml'] as const)(
    'the rows answer through resolve as the generic path would, %s',
    async (format) => {
      for (const field of ['processRating', 'processRefund'] as const) {
        const row = ROUTES.find((r) => r.path === `/crs-api/${field}`) as RestRoute<never>;
        expect(typeof row.resolve).toBe('function');
        const bodies = [
          ratingBody(),
          ratingBody({}, { top: { msisdn: '+353871234567' }, msisdn: '+353871234567' }),
          ratingBody({ contentId: 'c'.repeat(65) }),
          ratingBody({}, { preRating: { totalPrice: '1.00', retailPrice: '0.5' } }),
          ratingBody({}, { msisdn: '353870000001', preRating: { totalPrice: '5.00', retailPrice: '5.00' } }),
          ratingBody({}, { msisdn: '353879999999' }),
          ratingBody({ contentId: 5 }),
          { msisdn: null },
        ];
        for (const body of bodies)
          for (const as of ['crs', 'nogrant']) {
            const auth = as === 'crs' ? CRS : basic(as);
            const mine = await app.request('POST', `/crs-api/${field}`, {
              auth,
              body,
              headers: { tenant: 'acme', accept: `application/${format}` },
            });
            // The same body again on the generic path: a repeated operationId answers the first outcome.
            const theirs = await genericAnswer(app, row, { params: {}, query: {}, body }, format, auth);
            expect({ field, body, as, status: mine.status, text: mine.text }).toEqual({
              field,
              body,
              as,
              ...theirs,
            });
          }
      }
    },
  );
});
