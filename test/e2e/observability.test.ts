import { Dataset } from '../../src/dataset/dataset.schema';
import { createLogger } from '../../src/logger';
import { TestApp, TestResponse, startTestApp } from '../helpers/app';
import { chargingDataset, ratingBody } from '../helpers/charging';
import { basic } from '../helpers/fixtures';
import { DONOR, PLAN, R, SQS_AUTH, sharingDataset } from '../helpers/sharing';

/** The sharing fixture plus the charging subscribers, catalogue and `crs` client. */
function mixedDataset(): Dataset {
  const ds = sharingDataset();
  const charging = chargingDataset();
  const msisdns = new Set(ds.subscribers!.map((s) => s.msisdn));
  const usernames = new Set(ds.clients!.map((c) => c.username));
  ds.subscribers!.push(...charging.subscribers!.filter((s) => !msisdns.has(s.msisdn)));
  ds.clients!.push(...charging.clients!.filter((c) => !usernames.has(c.username)));
  ds.ratings = charging.ratings;
  return ds;
}

type LogLine = Record<string, unknown>;

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const GUESSED = 'guessed-Secret-42';
const CRS = basic('crs', 'crs-password');

describe('access log, secrets kept out of logs, business metrics', () => {
  let app: TestApp;
  const written: string[] = [];
  const lines = (): LogLine[] => written.map((l) => JSON.parse(l) as LogLine);
  const accessLine = (res: TestResponse): LogLine => {
    const id = res.headers.get('x-request-id');
    const found = lines().filter((l) => l.msg === 'request' && l.requestId === id);
    expect(found).toHaveLength(1);
    return found[0];
  };
  /** Every value a log line must never hold, gathered from the traffic. */
  const secrets: string[] = [];

  beforeAll(async () => {
    app = await startTestApp({
      dataset: mixedDataset(),
      logger: createLogger('info', { write: (s: string) => written.push(s) }),
    });
  });
  afterAll(() => app.close());

  it('logs one line per request with its facts, and never a password, credentials header or token', async () => {
    const sent: TestResponse[] = [];
    const go = async (res: Promise<TestResponse>) => {
      const r = await res;
      sent.push(r);
      return r;
    };
    secrets.push('portal-password', 'crs-password', 'sqs-password', GUESSED);
    secrets.push(
      basic('portal').slice(6),
      CRS.slice(6),
      SQS_AUTH.slice(6),
      basic('portal', GUESSED).slice(6),
    );

    const issued = await go(
      app.request('POST', '/token', {
        as: 'portal',
        json: true,
        body: { grant_type: 'client_credentials', client_id: '+353871234567' },
      }),
    );
    expect(issued.status).toBe(201);
    const legacyToken = issued.json().access_token as string;
    const introspected = await go(
      app.request('POST', '/token/introspect', { as: 'portal', json: true, body: { token: legacyToken } }),
    );
    expect(introspected.json().active).toBe(true);
    await go(
      app.request('POST', '/token/introspect', {
        as: 'portal',
        json: true,
        body: { token: 'no-such-token' },
      }),
    );

    const oauth2 = await go(
      app.request('POST', '/oauth2/token', {
        headers: FORM,
        raw: 'grant_type=client_credentials&msisdn=353871234567&client_id=portal&client_secret=portal-password',
      }),
    );
    expect(oauth2.status).toBe(200);
    const oauth2Token = oauth2.json().access_token as string;
    const active = await go(
      app.request('POST', '/oauth2/introspect', {
        headers: FORM,
        raw: `token=${oauth2Token}&client_id=portal&client_secret=portal-password`,
      }),
    );
    expect(active.json().active).toBe(true);
    expect(
      (await go(app.request('POST', '/token', { auth: basic('portal', GUESSED), json: true, body: {} })))
        .status,
    ).toBe(401);

    const graphql = await go(
      app.request('POST', '/graphql', {
        as: 'portal',
        body: {
          query:
            'mutation { issueToken(grantType: CLIENT_CREDENTIALS, clientId: "353871234567") { token { accessToken } } }',
        },
      }),
    );
    const graphqlToken = (graphql.json().data as { issueToken: { token: { accessToken: string } } })
      .issueToken.token.accessToken;
    secrets.push(legacyToken, oauth2Token, graphqlToken);

    const rating = await go(
      app.request('POST', '/crs-api/processRating', {
        auth: CRS,
        json: true,
        headers: { tenant: 'acme' },
        body: ratingBody(),
      }),
    );
    expect(rating.json()).toEqual({ returnCode: 0 });
    const ratedByGraphql = await go(
      app.request('POST', '/graphql', {
        auth: CRS,
        headers: { tenant: 'acme' },
        body: {
          query: 'mutation($r: RatingRequestInput!) { processRating(input: $r) { returnCode } }',
          variables: { r: ratingBody() },
        },
      }),
    );
    expect(ratedByGraphql.status).toBe(200);

    const donation = await go(
      app.request('POST', '/sqs/api/donations', {
        auth: SQS_AUTH,
        json: true,
        headers: { tenant: 'acme', permissions: 'SQS_DONATION_PERMISSION' },
        body: {
          donorId: DONOR,
          donorPlanId: PLAN.amount,
          quotaType: 'amount',
          recipients: [
            { recipientId: R(0), quota: 10 },
            { recipientId: R(1), quota: 10 },
          ],
        },
      }),
    );
    expect(donation.status).toBe(200);
    const missingGroup = await go(
      app.request('GET', '/sqs/api/groups/no-such-group', {
        auth: SQS_AUTH,
        json: true,
        headers: { tenant: 'acme', permissions: 'SQS_GROUP_READ_PERMISSION' },
      }),
    );
    expect(missingGroup.status).toBe(404);
    await go(app.request('GET', '/healthz'));

    for (const res of sent) {
      const line = accessLine(res);
      expect(line).toMatchObject({ level: 30, method: expect.any(String), status: res.status });
      expect(typeof line.time).toBe('string');
      expect(typeof line.durationMs).toBe('number');
      expect(line.bytes).toBe(Number(res.headers.get('content-length')));
    }
    expect(accessLine(issued)).toMatchObject({
      route: '/token',
      client: 'portal',
      tenant: 'acme',
      status: 201,
    });
    expect(accessLine(oauth2)).toMatchObject({ route: '/oauth2/token', client: 'portal', tenant: 'acme' });
    expect(accessLine(graphql)).toMatchObject({ route: '/graphql', method: 'POST', client: 'portal' });
    expect(accessLine(rating)).toMatchObject({
      route: '/crs-api/processRating',
      client: 'crs',
      tenant: 'acme',
      returnCode: 0,
    });
    expect(accessLine(donation)).toMatchObject({ route: '/sqs/api/donations', client: 'sqs', errorCode: 0 });
    expect(accessLine(missingGroup)).toMatchObject({
      route: '/sqs/api/groups/:id',
      status: 404,
      errorCode: 5,
    });
    expect(accessLine(sent.at(-1)!)).toMatchObject({ route: '/healthz', status: 200 });
    expect(accessLine(sent.at(-1)!).client).toBeUndefined();

    const everything = written.join('');
    for (const secret of secrets)
      expect({ secret, found: everything.includes(secret) }).toEqual({ secret, found: false });
    expect(everything).not.toMatch(/basic |bearer |authori[sz]ation|client_secret|password/i);
  });

  it('error lines carry the requestId, route pattern and tenant of their request', async () => {
    await app.tdb.db.schema.renameTable('charges', 'charges_gone');
    try {
      const res = await app.request('POST', '/crs-api/processRating', {
        auth: CRS,
        json: true,
        headers: { tenant: 'acme' },
        body: ratingBody(),
      });
      expect(res.status).toBe(200);
      const errors = lines().filter((l) => l.level === 50 && l.requestId === res.headers.get('x-request-id'));
      expect(errors.length).toBeGreaterThan(0);
      for (const e of errors)
        expect(e).toMatchObject({ route: '/crs-api/processRating', tenant: 'acme', client: 'crs' });
    } finally {
      await app.tdb.db.schema.renameTable('charges_gone', 'charges');
    }
  });

  it('exposes business counters and pool gauges at /metrics', async () => {
    const text = (await app.request('GET', '/metrics')).text;
    const value = (series: string): number => {
      const line = text.split('\n').find((l) => l.startsWith(`${series} `));
      return line === undefined ? NaN : Number(line.slice(series.length + 1));
    };
    expect(value('tokens_issued_total')).toBe(3);
    expect(value('token_introspections_total{active="true"}')).toBe(2);
    expect(value('token_introspections_total{active="false"}')).toBe(1);
    // Two successful ratings (REST and GraphQL); the one with its table gone is a failure code.
    expect(value('rating_requests_total{operation="rating",returnCode="0"}')).toBe(2);
    expect(text).toMatch(/^rating_requests_total\{operation="rating",returnCode="[1-9]\d*"\} 1$/m);
    expect(value('donation_recipients_total{errorCode="0"}')).toBe(2);
    expect(value('sqs_requests_total{route="/sqs/api/donations",status="200",errorCode="0"}')).toBe(1);
    expect(value('sqs_requests_total{route="/sqs/api/groups/:id",status="404",errorCode="5"}')).toBe(1);
    expect(value('http_requests_shed_total')).toBe(0);
    expect(value('login_attempts_throttled_total')).toBe(0);
    expect(value('db_pool_connections{state="used"}')).toBeGreaterThanOrEqual(0);
    expect(value('db_pool_connections{state="free"}')).toBeGreaterThanOrEqual(0);
    expect(value('db_pool_pending_acquires')).toBe(0);
    expect(text).toContain(
      'http_request_duration_seconds_bucket{le="0.005",method="POST",route="/token",status="201"}',
    );
  });
});
