import { Client } from 'graphql-ws';
import { Dataset } from '../../src/dataset/dataset.schema';
import { TestApp, startTestApp } from '../helpers/app';
import { chargingDataset, ratingBody } from '../helpers/charging';
import { basic } from '../helpers/fixtures';
import { noSubscriptions, subscribe, subscribed, wsClient } from '../helpers/graphql-ws';
import { DONOR, PLAN, R, RIVAL_SUB, SQS_AUTH, sharingDataset, sqsClient } from '../helpers/sharing';

/**
 * One tenant rule for HTTP, REST and graphql-ws (a graphql-ws connection whose
 * `tenant` names another tenant is refused, as HTTP answers 403), and a subscription to an MSISDN
 * that names no subscriber of the caller's tenant is an error, not silence. The subscription
 * payloads are entities: `node(id:)` refetches them in their tenant only.
 */

const SUBSCRIBER = '353871234567';
const CRS_AUTH = basic('crs', 'crs-password');

function dataset(): Dataset {
  const ds = sharingDataset();
  const charging = chargingDataset();
  ds.ratings = charging.ratings;
  ds.subscribers!.push(charging.subscribers!.find((s) => s.msisdn === SUBSCRIBER)!);
  ds.clients!.push(charging.clients!.find((c) => c.username === 'crs')!);
  return ds;
}

const BALANCE = `subscription ($msisdn: MSISDN!) { balanceChanged(msisdn: $msisdn) { id eventId kind msisdn amount balance } }`;
const QUOTA = `subscription ($msisdn: MSISDN!) { quotaReceived(msisdn: $msisdn) { id eventId donationId recipient amount unit donorPlanId planDefinitionId } }`;

describe('subscriptions: one tenant rule, subjects of your tenant, event nodes', () => {
  let a: TestApp;
  const clients: Client[] = [];
  const client = (
    auth: string | undefined,
    closes?: { code: number; reason: string }[],
    params?: Record<string, string>,
  ) => {
    const c = wsClient(a, auth, closes, params);
    clients.push(c);
    return c;
  };
  const graphql = (auth: string, query: string, variables: Record<string, unknown> = {}, tenant?: string) =>
    a.request('POST', '/graphql', { auth, headers: tenant ? { tenant } : {}, body: { query, variables } });

  beforeAll(async () => {
    a = await startTestApp({ dataset: dataset(), env: { SUBSCRIPTION_POLL_MS: '50' } });
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.dispose()));
    await noSubscriptions(a);
  });
  afterAll(async () => {
    await a?.close();
  });

  it('refuses a graphql-ws connection whose tenant names another tenant (4403), as HTTP and REST answer 403', async () => {
    const closes: { code: number; reason: string }[] = [];
    const refused = subscribe(client(CRS_AUTH, closes, { tenant: 'rival' }), BALANCE, { msisdn: SUBSCRIBER });
    await expect(refused.ended).rejects.toBeDefined();
    expect(closes[0]).toMatchObject({ code: 4403, reason: expect.stringMatching(/tenant/) });
    expect(refused.results).toEqual([]);
    expect(a.app.services.events.subscriptionCount).toBe(0);

    // The same rule on /graphql and on a REST row.
    const http = await graphql(CRS_AUTH, `{ subscriber(msisdn: "${SUBSCRIBER}") { msisdn } }`, {}, 'rival');
    expect(http.status).toBe(403);
    const rest = await a.request('POST', '/crs-api/processRating', {
      auth: CRS_AUTH,
      json: true,
      headers: { tenant: 'rival' },
      body: ratingBody(),
    });
    expect(rest.status).toBe(403);

    // Naming the client's own tenant is accepted and delivers.
    const own = subscribe(client(CRS_AUTH, [], { tenant: 'acme' }), BALANCE, { msisdn: SUBSCRIBER });
    await subscribed(a, 1);
    const rated = await a.request('POST', '/crs-api/processRating', {
      auth: CRS_AUTH,
      json: true,
      headers: { tenant: 'acme' },
      body: ratingBody(),
    });
    expect(rated.json().returnCode).toBe(0);
    const [r] = await own.waitFor(1);
    expect(r.data!.balanceChanged).toMatchObject({ kind: 'CHARGE', msisdn: SUBSCRIBER });
  });

  it("a subscription to an unknown or another tenant's MSISDN is NOT_FOUND, and nothing stays open", async () => {
    const cases = [
      subscribe(client(CRS_AUTH), BALANCE, { msisdn: '+353870009999' }),
      subscribe(client(CRS_AUTH), BALANCE, { msisdn: RIVAL_SUB }),
      subscribe(client(SQS_AUTH), QUOTA, { msisdn: '353870009999' }),
      subscribe(client(SQS_AUTH), QUOTA, { msisdn: RIVAL_SUB }),
    ];
    for (const s of cases) {
      const [r] = await s.waitFor(1);
      expect(r.errors?.[0]).toMatchObject({
        message: expect.stringMatching(/not found/),
        extensions: { code: 'NOT_FOUND' },
      });
      expect(r.data ?? null).toBeNull();
      await s.ended;
    }
    expect(a.app.services.events.subscriptionCount).toBe(0);
  });

  it('BalanceChange and QuotaReceived are nodes: node(id:) refetches them in their tenant, null in another', async () => {
    const balance = subscribe(client(CRS_AUTH), BALANCE, { msisdn: SUBSCRIBER });
    const quota = subscribe(client(SQS_AUTH), QUOTA, { msisdn: R(0) });
    await subscribed(a, 2);
    const rated = await a.request('POST', '/crs-api/processRating', {
      auth: CRS_AUTH,
      json: true,
      headers: { tenant: 'acme' },
      body: ratingBody(),
    });
    expect(rated.json().returnCode).toBe(0);
    const donated = await sqsClient(a).donate({
      donorId: DONOR,
      donorPlanId: PLAN.amount,
      quotaType: 'amount',
      recipients: [{ recipientId: R(0), quota: 250 }],
    });
    expect(donated.status).toBe(200);
    const change = (await balance.waitFor(1))[0].data!.balanceChanged as Record<string, unknown>;
    const grant = (await quota.waitFor(1))[0].data!.quotaReceived as Record<string, unknown>;
    expect(grant).toMatchObject({
      donationId: donated.json().id,
      recipient: R(0),
      amount: 250,
      unit: 'VOLUME',
      donorPlanId: PLAN.amount,
    });
    expect(typeof grant.planDefinitionId).toBe('number');
    expect(change.id).not.toBe(grant.id);

    // One fragment per type: their `amount` fields differ in type (Decimal, SafeInt).
    const NODE = `query ($id: ID!) { node(id: $id) { __typename id
      ... on BalanceChange { eventId kind msisdn amount balance }
      ... on QuotaReceived { eventId donationId recipient quota: amount unit donorPlanId planDefinitionId } } }`;
    const admin = basic('admin');
    const again = await graphql(admin, NODE, { id: change.id });
    expect(again.json()).toEqual({ data: { node: { __typename: 'BalanceChange', ...change } } });
    const grantAgain = await graphql(admin, NODE, { id: grant.id });
    const { amount, ...rest } = grant;
    expect(grantAgain.json()).toEqual({
      data: { node: { __typename: 'QuotaReceived', ...rest, quota: amount } },
    });

    // Another tenant's client: null, never the event.
    for (const id of [change.id, grant.id]) {
      const rival = await graphql(basic('rival-admin'), NODE, { id });
      expect(rival.json()).toEqual({ data: { node: null } });
    }
    // Without the permission of the subscription: FORBIDDEN.
    const forbidden = await graphql(SQS_AUTH, NODE, { id: change.id });
    expect((forbidden.json().errors as { extensions: { code: string } }[])[0].extensions.code).toBe(
      'FORBIDDEN',
    );
  });
});
