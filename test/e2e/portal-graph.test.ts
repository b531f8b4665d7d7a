import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { createHash } from 'node:crypto';
import {
  GraphQLField,
  GraphQLInputType,
  GraphQLObjectType,
  GraphQLSchema,
  getNamedType,
  isCompositeType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
} from 'graphql';
import { gatewaySchema } from '../../src/graphql/schema';
import { createLogger } from '../../src/logger';
import { LAYOUTS } from '../../src/modules/cdrs/cdr.layouts';
import { IdempotencyService } from '../../src/modules/idempotency/idempotency.service';
import { PortalService } from '../../src/modules/portal/portal.service';
import { TokenService } from '../../src/modules/tokens/token.service';
import { TestApp, startTestApp } from '../helpers/app';
import { baseDataset } from '../helpers/fixtures';
import { waitFor } from '../helpers/wait';

/**
 * The captive portal's GraphQL (docs/portal.md): a subscriber token (`authorization: Bearer`)
 * reads only its own subscriber and runs only the portal's fields; purchasePlan charges once per
 * idempotency key; token CDRs (service ID 102) and their export.
 */

const BIN = path.join(__dirname, '../..', 'dist/src/cli/bin.js');
const BUYER = '353871234567'; // base dataset: prepaid, 10.00 EUR
const OTHER = '353870000002';
const POSTPAID = '353870000003';
const INACTIVE = '353870000004';
const POOR = '353870000005';

type Gql = {
  status: number;
  data?: Record<string, unknown> | null;
  errors?: { message: string; extensions: { code: string } }[];
};

describe('captive portal GraphQL', () => {
  let app: TestApp;
  const offers: Record<string, number> = {};

  const gql = async (auth: string, query: string, variables: Record<string, unknown> = {}): Promise<Gql> => {
    const res = await app.request('POST', '/graphql', { auth, body: { query, variables } });
    return { status: res.status, ...(res.json() as Omit<Gql, 'status'>) };
  };
  const admin = (query: string, variables: Record<string, unknown> = {}) =>
    app.request('POST', '/graphql', { as: 'admin', body: { query, variables } }).then((r) => ({
      status: r.status,
      ...(r.json() as Omit<Gql, 'status'>),
    }));
  const bearer = (token: string) => `Bearer ${token}`;

  const issue = async (msisdn: string): Promise<string> => {
    const r = await app.request('POST', '/graphql', {
      as: 'portal',
      body: {
        query: `mutation($c: MSISDN!) { issueToken(clientId: $c, grantType: CLIENT_CREDENTIALS) { token { accessToken } } }`,
        variables: { c: msisdn },
      },
    });
    return (r.json() as { data: { issueToken: { token: { accessToken: string } } } }).data.issueToken.token
      .accessToken;
  };

  const upsertDefinition = async (name: string, price: string | null, unitAmount = 1_000_000_000) => {
    const r = await admin(
      `mutation($i: PlanDefinitionInput!) { upsertPlanDefinition(input: $i) { planDefinition { planDefinitionId price } userErrors { code field } } }`,
      {
        i: {
          name,
          unitMeteringType: 'VOLUME',
          unitAmount,
          shareable: false,
          recurring: true,
          shareQuotaType: 'AMOUNT',
          price,
        },
      },
    );
    const p = (
      r.data!.upsertPlanDefinition as { planDefinition: { planDefinitionId: number; price: string | null } }
    ).planDefinition;
    expect(p.price).toBe(price);
    return p.planDefinitionId;
  };

  const count = async (table: string, where: Record<string, unknown> = {}) =>
    Number((await app.tdb.db(table).where(where).count({ n: '*' }).first())!.n);
  const balanceOf = async (msisdn: string) =>
    (await app.tdb.db('subscribers').where({ msisdn }).first()).balance_micros as number | string;

  beforeAll(async () => {
    const dataset = baseDataset();
    const sub = (msisdn: string, extra: Record<string, string>) => ({
      tenant: 'acme',
      msisdn,
      status: 'active',
      paymentType: 'prepaid',
      balance: '10.00',
      currency: 'EUR',
      ...extra,
    });
    dataset.subscribers!.push(
      sub(OTHER, {}) as never,
      sub(POSTPAID, { paymentType: 'postpaid', balance: '0' }) as never,
      sub(INACTIVE, { status: 'inactive' }) as never,
      sub(POOR, { balance: '1.00' }) as never,
      { ...sub('353879999999', {}), tenant: 'rival' } as never,
    );
    app = await startTestApp({ dataset });
    offers.day = await upsertDefinition('Day pass', '2.50');
    offers.big = await upsertDefinition('Big bundle', '50.00');
    offers.free = await upsertDefinition('Not on offer', null);
    offers.gone = await upsertDefinition('Soon withdrawn', '1.00');
  });
  afterAll(() => app.close());

  const ME = `query { me { maskedMsisdn balance currency status
    offers(first: 10) { edges { cursor node { id planDefinitionId name unitMeteringType unitAmount price currency recurring } } pageInfo { hasNextPage endCursor } }
    plans(first: 10) { edges { node { id planId name unitMeteringType unitAmount remaining period renewed } } } } }`;
  const PURCHASE = `mutation($i: PurchasePlanInput!) { purchasePlan(input: $i) {
    plan { id planId name remaining period unitAmount } balance userErrors { __typename code field message } } }`;

  describe('me', () => {
    it('reads the token subscriber: masked MSISDN, balance, the priced offers of its tenant, its plans', async () => {
      const token = await issue(BUYER);
      const r = await gql(bearer(token), ME);
      expect(r.status).toBe(200);
      expect(r.errors).toBeUndefined();
      const me = r.data!.me as {
        maskedMsisdn: string;
        balance: string;
        offers: { edges: { node: { name: string; price: string; currency: string } }[] };
        plans: { edges: unknown[] };
      };
      expect(me).toMatchObject({
        maskedMsisdn: '••••••••4567',
        balance: '10.00',
        currency: 'EUR',
        status: 'ACTIVE',
      });
      expect(JSON.stringify(r.data)).not.toContain(BUYER);
      expect(me.offers.edges.map((e) => [e.node.name, e.node.price, e.node.currency])).toEqual([
        ['Day pass', '2.50', 'EUR'],
        ['Big bundle', '50.00', 'EUR'],
        ['Soon withdrawn', '1.00', 'EUR'],
      ]);
      expect(me.plans.edges).toEqual([]);
    });

    it("a tenant header must name the token's tenant, as for API clients", async () => {
      const token = await issue(BUYER);
      const send = (tenant: string) =>
        app.request('POST', '/graphql', {
          auth: bearer(token),
          headers: { tenant },
          body: { query: '{ me { balance } }' },
        });
      const own = await send('acme');
      expect(own.status).toBe(200);
      expect((own.json() as Gql).data).toEqual({ me: { balance: '10.00' } });
      const other = await send('rival');
      expect(other.status).toBe(403);
      const body = other.json() as Gql;
      expect(body.errors?.[0].extensions.code).toBe('FORBIDDEN');
      expect(body.data ?? null).toBeNull();
      // Refused before anything runs: a purchase with another tenant's header buys nothing.
      const buy = await app.request('POST', '/graphql', {
        auth: bearer(token),
        headers: { tenant: 'rival' },
        body: {
          query: PURCHASE,
          variables: { i: { planDefinitionId: offers.day, idempotencyKey: 'k-tenant' } },
        },
      });
      expect(buy.status).toBe(403);
      expect((await gql(bearer(token), ME)).data!.me).toMatchObject({
        balance: '10.00',
        plans: { edges: [] },
      });
    });

    it('with API-client credentials me and purchasePlan are FORBIDDEN', async () => {
      const r = await admin('query { me { balance } }');
      expect(r.errors?.[0].extensions.code).toBe('FORBIDDEN');
      expect(r.data ?? null).toBeNull();
      const p = await admin(PURCHASE, { i: { planDefinitionId: offers.day, idempotencyKey: 'k-admin' } });
      expect(p.errors?.[0].extensions.code).toBe('FORBIDDEN');
    });
  });

  describe('a subscriber token runs nothing but the portal fields', () => {
    let schema: GraphQLSchema;
    beforeAll(async () => {
      schema = await gatewaySchema();
    });

    /** A valid value of an input type (so that the refusal is about the principal, not the variables). */
    function sample(t: GraphQLInputType): unknown {
      const inner = isNonNullType(t) ? t.ofType : t;
      if (isListType(inner)) return [sample(inner.ofType)];
      if (isEnumType(inner)) return inner.getValues()[0].name;
      if (isInputObjectType(inner))
        return Object.fromEntries(
          Object.values(inner.getFields())
            .filter((f) => isNonNullType(f.type))
            .map((f) => [f.name, sample(f.type)]),
        );
      const byScalar: Record<string, unknown> = {
        Int: 1,
        SafeInt: 1,
        Float: 1,
        Boolean: true,
        Decimal: '1.00',
        MSISDN: OTHER,
        DateTime: '2026-11-22T12:00:00Z',
      };
      return byScalar[inner.name] ?? 'x';
    }

    /** An operation selecting only root field `f`, every argument passed as a variable with a valid value. */
    function operationFor(kind: 'query' | 'mutation' | 'subscription', f: GraphQLField<unknown, unknown>) {
      const vars = f.args.map((a, i) => `$a${i}: ${a.type.toString()}`);
      const args = f.args.map((a, i) => `${a.name}: $a${i}`);
      const selection = isCompositeType(getNamedType(f.type)) ? ' { __typename }' : '';
      const variables = Object.fromEntries(f.args.map((a, i) => [`a${i}`, sample(a.type)]));
      return {
        query: `${kind}${vars.length ? `(${vars.join(', ')})` : ''} { ${f.name}${args.length ? `(${args.join(', ')})` : ''}${selection} }`,
        variables,
      };
    }

    it('every other query, mutation and subscription root field: FORBIDDEN (403), no data, nothing written', async () => {
      const token = await issue(BUYER);
      const roots: ['query' | 'mutation' | 'subscription', GraphQLObjectType | null | undefined][] = [
        ['query', schema.getQueryType()],
        ['mutation', schema.getMutationType()],
        ['subscription', schema.getSubscriptionType()],
      ];
      const before = await Promise.all(
        ['charges', 'subscriber_plans', 'tokens', 'outbox_events'].map((t) => count(t)),
      );
      let checked = 0;
      for (const [kind, root] of roots) {
        for (const f of Object.values(root?.getFields() ?? {})) {
          if (f.name === 'me' || f.name === 'purchasePlan') continue;
          const op = operationFor(kind, f);
          const r = await gql(bearer(token), op.query, op.variables);
          expect({ field: f.name, status: r.status, code: r.errors?.[0]?.extensions.code }).toEqual({
            field: f.name,
            status: 403,
            code: 'FORBIDDEN',
          });
          expect(r.data ?? null).toBeNull();
          checked++;
        }
      }
      expect(checked).toBeGreaterThan(40);
      const after = await Promise.all(
        ['charges', 'subscriber_plans', 'tokens', 'outbox_events'].map((t) => count(t)),
      );
      expect(after).toEqual(before);
    });

    it('a portal field beside another root field is FORBIDDEN as a whole (no data)', async () => {
      const token = await issue(BUYER);
      const r = await gql(
        bearer(token),
        `query { me { balance } subscriber(msisdn: "${OTHER}") { __typename } }`,
      );
      expect(r.status).toBe(403);
      expect(r.data ?? null).toBeNull();
      const n = await gql(bearer(token), `query($id: ID!) { me { balance } node(id: $id) { id } }`, {
        id: 'x',
      });
      expect(n.status).toBe(403);
    });

    it('takes no MSISDN: the portal fields have no argument naming a subscriber', () => {
      const me = schema.getQueryType()!.getFields().me;
      expect(me.args).toEqual([]);
      const input = schema.getMutationType()!.getFields().purchasePlan.args[0];
      expect(
        Object.keys((getNamedType(input.type) as unknown as { getFields(): object }).getFields()).sort(),
      ).toEqual(['idempotencyKey', 'planDefinitionId']);
      expect(isNonNullType(input.type)).toBe(true);
    });
  });

  describe('an unusable token is UNAUTHENTICATED (401)', () => {
    it('unknown, revoked and expired tokens; Bearer on REST is a missing credential', async () => {
      const expectUnauthenticated = async (token: string) => {
        const r = await app.request('POST', '/graphql', {
          auth: bearer(token),
          body: { query: '{ me { balance } }' },
        });
        expect(r.status).toBe(401);
        const body = r.json() as Gql;
        expect(body.errors?.[0].extensions.code).toBe('UNAUTHENTICATED');
        expect(body.data ?? null).toBeNull();
        expect(r.headers.get('www-authenticate')).toMatch(/^Bearer /);
      };
      await expectUnauthenticated('never-issued-token');
      const revoked = await issue(BUYER);
      await app.request('POST', '/graphql', {
        as: 'portal',
        body: {
          query: 'mutation($t: String!) { revokeToken(token: $t) { revoked } }',
          variables: { t: revoked },
        },
      });
      await expectUnauthenticated(revoked);
      const expiring = await issue(BUYER);
      expect((await gql(bearer(expiring), '{ me { currency } }')).status).toBe(200);
      app.clock.advanceSeconds(3600);
      try {
        await expectUnauthenticated(expiring);
      } finally {
        app.clock.advanceSeconds(-3600);
      }
      const rest = await app.request('POST', '/token/introspect', {
        auth: bearer(await issue(BUYER)),
        body: { token: 'x' },
      });
      expect(rest.status).toBe(401);
    });
  });

  describe('purchasePlan', () => {
    const purchase = (token: string, planDefinitionId: number, idempotencyKey: string) =>
      gql(bearer(token), PURCHASE, { i: { planDefinitionId, idempotencyKey } });

    it('a double click and concurrent identical requests charge once and provision one plan', async () => {
      const token = await issue(BUYER);
      const chargesBefore = await count('charges', { msisdn: BUYER });
      const results = await Promise.all(
        Array.from({ length: 8 }, () => purchase(token, offers.day, 'attempt-1')),
      );
      const ok = results.filter((r) => (r.data?.purchasePlan as { plan: unknown }).plan);
      expect(ok.length).toBeGreaterThanOrEqual(1);
      for (const r of results) {
        const p = r.data!.purchasePlan as { plan: unknown; userErrors: { code: string }[] };
        if (!p.plan) expect(p.userErrors.map((e) => e.code)).toEqual(['IDEMPOTENCY_KEY_IN_USE']);
      }
      const first = ok[0].data!.purchasePlan as { plan: { planId: number }; balance: string };
      expect(first.balance).toBe('7.50');
      for (const r of ok) expect(r.data!.purchasePlan).toEqual(first);
      // The double click after it: the same payload, nothing charged.
      expect((await purchase(token, offers.day, 'attempt-1')).data!.purchasePlan).toEqual(first);
      expect(await count('charges', { msisdn: BUYER })).toBe(chargesBefore + 1);
      expect(await count('subscriber_plans', { msisdn: BUYER })).toBe(1);
      expect(String(await balanceOf(BUYER))).toBe('7500000');
      const operationId = `portal:${BUYER}:attempt-1`;
      const charge = await app.tdb.db('charges').where({ operation_id: operationId }).first();
      expect(charge).toMatchObject({ kind: 'charge', return_code: 0, currency: 'EUR' });
      expect(String(charge.amount_micros)).toBe('2500000');
      expect(await count('cdrs', { type: 'charging', record_id: operationId })).toBe(1);
      const events = await app.tdb.db('outbox_events').where({ subject: BUYER });
      expect(events.filter((e: { payload: string }) => e.payload.includes(operationId))).toHaveLength(1);
      // A new attempt buys again: a second plan of the same definition, a separate row.
      const again = await purchase(token, offers.day, 'attempt-2');
      expect((again.data!.purchasePlan as { balance: string }).balance).toBe('5.00');
      const me = await gql(bearer(token), ME);
      const plans = (me.data!.me as { plans: { edges: { node: { planId: number; remaining: number } }[] } })
        .plans;
      expect(plans.edges.map((e) => e.node.planId)).toEqual(
        [...plans.edges.map((e) => e.node.planId)].sort((a, b) => b - a),
      );
      expect(plans.edges).toHaveLength(2);
      expect(plans.edges[0].node.remaining).toBe(1_000_000_000);
    });

    it('the same key with another offer is IDEMPOTENCY_KEY_REUSED; a malformed key is INVALID', async () => {
      const token = await issue(BUYER);
      const r = await purchase(token, offers.big, 'attempt-1');
      expect((r.data!.purchasePlan as { userErrors: { code: string }[] }).userErrors[0].code).toBe(
        'IDEMPOTENCY_KEY_REUSED',
      );
      const bad = await purchase(token, offers.day, 'has spaces');
      expect(
        (bad.data!.purchasePlan as { userErrors: { code: string; field: string[] }[] }).userErrors[0],
      ).toMatchObject({
        code: 'INVALID',
        field: ['input', 'idempotencyKey'],
      });
    });

    it('concurrent purchases whose total exceeds a prepaid balance: only what it covers', async () => {
      const token = await issue(OTHER); // 10.00
      const results = await Promise.all(
        Array.from({ length: 6 }, (_, i) => purchase(token, offers.day, `c-${i}`)), // 6 × 2.50
      );
      const codes = results.map((r) => {
        const p = r.data!.purchasePlan as { plan: unknown; userErrors: { code: string }[] };
        return p.plan ? 'OK' : p.userErrors[0].code;
      });
      expect(codes.filter((c) => c === 'OK')).toHaveLength(4);
      expect(codes.filter((c) => c === 'INSUFFICIENT_FUNDS')).toHaveLength(2);
      expect(String(await balanceOf(OTHER))).toBe('0');
      expect(await count('subscriber_plans', { msisdn: OTHER })).toBe(4);
      expect(await count('charges', { msisdn: OTHER })).toBe(4);
    });

    const nothingChanged = async (msisdn: string, run: () => Promise<Gql>, code: string) => {
      const before = await Promise.all([
        balanceOf(msisdn),
        count('charges', { msisdn }),
        count('subscriber_plans', { msisdn }),
        count('cdrs', { type: 'charging' }),
        count('outbox_events'),
      ]);
      const r = await run();
      const p = r.data!.purchasePlan as { plan: unknown; balance: unknown; userErrors: { code: string }[] };
      expect(p.plan).toBeNull();
      expect(p.balance).toBeNull();
      expect(p.userErrors.map((e) => e.code)).toEqual([code]);
      expect(
        await Promise.all([
          balanceOf(msisdn),
          count('charges', { msisdn }),
          count('subscriber_plans', { msisdn }),
          count('cdrs', { type: 'charging' }),
          count('outbox_events'),
        ]),
      ).toEqual(before);
    };

    it('INSUFFICIENT_FUNDS, SUBSCRIBER_INACTIVE and OFFER_WITHDRAWN change nothing', async () => {
      const poor = await issue(POOR);
      await nothingChanged(POOR, () => purchase(poor, offers.big, 'p-1'), 'INSUFFICIENT_FUNDS');
      const inactive = await issue(INACTIVE);
      await nothingChanged(INACTIVE, () => purchase(inactive, offers.day, 'i-1'), 'SUBSCRIBER_INACTIVE');
      await nothingChanged(POOR, () => purchase(poor, offers.free, 'w-1'), 'OFFER_WITHDRAWN');
      await upsertDefinition('Soon withdrawn', null);
      await nothingChanged(POOR, () => purchase(poor, offers.gone, 'w-2'), 'OFFER_WITHDRAWN');
      await nothingChanged(POOR, () => purchase(poor, 999999, 'w-3'), 'OFFER_WITHDRAWN');
      // A refusal is not remembered: the same key is judged again once the balance covers it.
      await app.tdb.db('subscribers').where({ msisdn: POOR }).update({ balance_micros: 60_000_000 });
      const r = await purchase(poor, offers.big, 'p-1');
      expect((r.data!.purchasePlan as { balance: string }).balance).toBe('10.00');
    });

    it('postpaid: the price accumulates (the balance may go below zero), as a rating charges it', async () => {
      const token = await issue(POSTPAID);
      const r = await purchase(token, offers.big, 'pp-1');
      expect((r.data!.purchasePlan as { balance: string }).balance).toBe('-50.00');
    });
  });

  describe('token CDRs (service ID 102)', () => {
    it('create on issue, validate on introspection and portal open, expire once; never the token', async () => {
      const token = await issue(OTHER);
      const since = app.clock.nowMs();
      await app.request('POST', '/graphql', {
        as: 'portal',
        body: {
          query: 'query($t: String!) { introspectToken(token: $t) { active } }',
          variables: { t: token },
        },
      });
      const portal = portalOf(app);
      expect(await portal.open(token)).toMatchObject({ tenantId: expect.any(Number), msisdn: OTHER });
      expect(await portal.open('never-issued')).toBeNull();
      app.clock.advanceSeconds(3600);
      try {
        expect(await portal.open(token)).toBeNull();
        expect(await portal.open(token)).toBeNull();
      } finally {
        app.clock.advanceSeconds(-3600);
      }
      const rows = await app.tdb
        .db('cdrs')
        .where({ type: 'token' })
        .andWhere('created_at', '>=', since)
        .orderBy('id');
      const id = tokenIdOf(token);
      const mine = rows.filter(
        (r: { record_id: string; transaction_type: number }) =>
          r.record_id === id && r.transaction_type !== 1,
      );
      expect(JSON.stringify(rows)).not.toContain(token);
      expect(
        mine.map((r: { transaction_type: number; fields: string; actor: string }) => [
          r.transaction_type,
          JSON.parse(r.fields).status,
          r.actor,
        ]),
      ).toEqual([
        [2, 'successful', 'portal'], // introspection
        [2, 'successful', 'portal'], // portal open
        [2, 'validation_failed', 'portal'],
        [3, 'successful', 'portal'], // expire: once
        [2, 'validation_failed', 'portal'],
      ]);
      const created = await app.tdb
        .db('cdrs')
        .where({ type: 'token', transaction_type: 1, record_id: mine[0].record_id });
      expect(created).toHaveLength(1);
      expect(created[0]).toMatchObject({ service_id: 102, actor: 'portal' });
    });

    it('cdr export --type token lists create and validate records in the published layout', async () => {
      const token = await issue(OTHER);
      await app.request('POST', '/graphql', {
        as: 'portal',
        body: {
          query: 'query($t: String!) { introspectToken(token: $t) { active } }',
          variables: { t: token },
        },
      });
      // The validate CDR is written by the batch writer within its flush interval.
      await waitFor(
        () =>
          app.tdb
            .db('cdrs')
            .where({ type: 'token', transaction_type: 2, record_id: tokenIdOf(token) })
            .first(),
        { what: "the token's CDR validate" },
      );
      const r = spawnSync(
        process.execPath,
        [BIN, 'cdr', 'export', '--type', 'token', '--from', '2026-01-01', '--to', '2027-01-01'],
        {
          env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'silent', DATABASE_URL: app.tdb.url },
          encoding: 'utf8',
          timeout: 60_000,
        },
      );
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
      const lines = r.stdout.split('\r\n').filter(Boolean);
      expect(lines[0]).toBe(
        'msisdn,service ID,transaction type,CDR generation date,CDR generation time,token,transaction status,tenant ID,actor',
      );
      expect(lines[0]).toBe(LAYOUTS.token.map((f) => f.name).join(','));
      expect(r.stdout).not.toContain(token);
      const cells = lines.slice(1).map((l) => l.split(','));
      const create = cells.find((c) => c[5] === tokenIdOf(token) && c[2] === '1')!;
      expect(create).toEqual([
        OTHER,
        '102',
        '1',
        '2026/11/22',
        expect.stringMatching(/^\d{2}:\d{2}:\d{2}$/),
        expect.stringMatching(/^[0-9a-f]{16}$/),
        'successful',
        'acme',
        'portal',
      ]);
      expect(cells.some((c) => c[5] === create[5] && c[2] === '2' && c[6] === 'successful')).toBe(true);
    });
  });
});

/** The token id token CDRs name a token by (the first 16 hex digits of its SHA-256). */
function tokenIdOf(token: string): string {
  return createHash('sha256').update(token).digest('hex').slice(0, 16);
}

/** A PortalService over the test database, as the app builds it. */
function portalOf(app: TestApp): PortalService {
  const logger = createLogger('silent');
  const tokens = new TokenService(app.tdb.db, app.clock, 3600, logger);
  return new PortalService(
    app.tdb.db,
    app.clock,
    tokens,
    new IdempotencyService(app.tdb.db, app.clock, logger),
    {
      maxPlansPerSubscriber: 50,
    },
  );
}
