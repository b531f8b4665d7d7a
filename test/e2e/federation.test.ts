import { ApolloGateway, IntrospectAndCompose, RemoteGraphQLDataSource } from '@apollo/gateway';
import { ApolloServer } from '@apollo/server';
import { ApolloServerPluginInlineTraceDisabled } from '@apollo/server/plugin/disabled';
import { startStandaloneServer } from '@apollo/server/standalone';
import { buildSubgraphSchema } from '@apollo/subgraph';
import { parse } from 'graphql';
import { TestApp, startTestApp } from '../helpers/app';
import { baseDataset, basic } from '../helpers/fixtures';

/**
 * The gateway as an Apollo Federation 2 subgraph (docs/platform.md "Federation"): composed by
 * `@apollo/gateway` with a second subgraph that extends `Subscriber`, queried through the router
 * with the caller's Basic credentials passed through.
 */

const ACME_SUBSCRIBER = '353871234567';
const RIVAL_SUBSCRIBER = '447700900123';

/** The second subgraph: loyalty points per subscriber, and a root field returning a reference. */
const LOYALTY_SDL = `
  extend schema @link(url: "https://specs.apollo.dev/federation/v2.3", import: ["@key"])
  scalar MSISDN
  type Subscriber @key(fields: "msisdn") {
    msisdn: MSISDN!
    loyaltyPoints: Int
  }
  type Query {
    "The subscriber with the most points (a reference the gateway resolves)."
    topLoyalSubscriber(msisdn: MSISDN!): Subscriber
  }
`;

/** Apollo's logger, silent (the router logs composition at info). */
const quiet = { debug() {}, info() {}, warn() {}, error() {} };

const POINTS: Record<string, number> = { [ACME_SUBSCRIBER]: 120, [RIVAL_SUBSCRIBER]: 7 };

/** Headers the router passes through to every subgraph. */
const FORWARDED = ['authorization', 'tenant'] as const;

type RouterContext = Partial<Record<(typeof FORWARDED)[number], string>>;

interface Result {
  data?: Record<string, unknown> | null;
  errors?: { message: string; path?: (string | number)[]; extensions?: Record<string, unknown> }[];
}

describe('Apollo Federation 2 subgraph', () => {
  let app: TestApp;
  let loyalty: ApolloServer;
  let router: ApolloServer<RouterContext>;
  let routerUrl: string;

  beforeAll(async () => {
    const dataset = baseDataset();
    dataset.subscribers!.push({
      tenant: 'rival',
      msisdn: RIVAL_SUBSCRIBER,
      status: 'active',
      paymentType: 'prepaid',
      balance: '3.50',
      currency: 'GBP',
    });
    dataset.locations = [
      { tenant: 'acme', name: 'EU-ZONE', description: 'Europe' },
      { tenant: 'acme', name: 'US-ZONE', description: 'Americas' },
      { tenant: 'rival', name: 'RIVAL-ZONE', description: 'Elsewhere' },
    ];
    app = await startTestApp({ dataset });

    loyalty = new ApolloServer({
      plugins: [ApolloServerPluginInlineTraceDisabled()],
      schema: buildSubgraphSchema({
        typeDefs: parse(LOYALTY_SDL),
        resolvers: {
          Query: { topLoyalSubscriber: (_: unknown, args: { msisdn: string }) => ({ msisdn: args.msisdn }) },
          Subscriber: {
            __resolveReference: (ref: { msisdn: string }) => ({ msisdn: ref.msisdn }),
            loyaltyPoints: (s: { msisdn: string }) => POINTS[s.msisdn] ?? 0,
          },
        },
      }),
    });
    const { url: loyaltyUrl } = await startStandaloneServer(loyalty, { listen: { port: 0 } });

    const gateway = new ApolloGateway({
      supergraphSdl: new IntrospectAndCompose({
        subgraphs: [
          { name: 'gateway', url: `${app.url}/graphql` },
          { name: 'loyalty', url: loyaltyUrl },
        ],
        // `_service` is a field like any other: composing needs an authenticated client (any).
        introspectionHeaders: { authorization: basic('nogrant') },
      }),
      buildService: ({ url }) =>
        new RemoteGraphQLDataSource<RouterContext>({
          url,
          willSendRequest({ request, context }) {
            for (const h of FORWARDED) if (context[h]) request.http!.headers.set(h, context[h]);
          },
        }),
    });
    router = new ApolloServer<RouterContext>({ gateway, logger: quiet });
    const { url } = await startStandaloneServer(router, {
      listen: { port: 0 },
      context: async ({ req }) => {
        const ctx: RouterContext = {};
        for (const h of FORWARDED) if (typeof req.headers[h] === 'string') ctx[h] = req.headers[h];
        return ctx;
      },
    });
    routerUrl = url;
  }, 60_000);

  afterAll(async () => {
    await router?.stop();
    await loyalty?.stop();
    await app?.close();
  });

  /** Runs `query` through the router as client `as` (no credentials when absent). */
  async function viaRouter(query: string, as?: string): Promise<Result> {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (as) headers.authorization = basic(as);
    const res = await fetch(routerUrl, { method: 'POST', headers, body: JSON.stringify({ query }) });
    return (await res.json()) as Result;
  }

  /** Posts straight to the gateway's `/graphql`, as a router would. */
  async function direct(query: string, variables: Record<string, unknown>, as?: string): Promise<Result> {
    return (await app.request('POST', '/graphql', { as, body: { query, variables } })).json() as Result;
  }

  const ENTITIES = `query($r: [_Any!]!) { _entities(representations: $r) {
    __typename
    ... on Subscriber { msisdn balance currency }
    ... on Location { name description }
    ... on Group { name } } }`;

  it('publishes its SDL with the federation @link and the entity keys', async () => {
    const res = await direct('{ _service { sdl } }', {}, 'admin');
    const sdl = (res.data as { _service: { sdl: string } })._service.sdl;
    expect(sdl).toContain('@link(url: "https://specs.apollo.dev/federation/v2.3", import: ["@key"])');
    for (const [type, key] of [
      ['Subscriber', 'msisdn'],
      ['Donation', 'id'],
      ['Group', 'id'],
      ['RecurringDonation', 'id'],
      ['Location', 'name'],
    ])
      expect(sdl).toMatch(new RegExp(`type ${type} implements Node @key\\(fields: "${key}"\\)`));
  });

  it('joins a gateway field to the second subgraph (gateway → loyalty)', async () => {
    const res = await viaRouter(
      `{ subscriber(msisdn: "+${ACME_SUBSCRIBER}") { msisdn balance currency loyaltyPoints } }`,
      'admin',
    );
    expect(res).toEqual({
      data: {
        subscriber: { msisdn: ACME_SUBSCRIBER, balance: '10.00', currency: 'EUR', loyaltyPoints: 120 },
      },
    });
  });

  it("joins the second subgraph's reference to the gateway's balance (loyalty → gateway)", async () => {
    const res = await viaRouter(
      `{ topLoyalSubscriber(msisdn: "${ACME_SUBSCRIBER}") { msisdn loyaltyPoints balance currency } }`,
      'admin',
    );
    expect(res).toEqual({
      data: {
        topLoyalSubscriber: {
          msisdn: ACME_SUBSCRIBER,
          loyaltyPoints: 120,
          balance: '10.00',
          currency: 'EUR',
        },
      },
    });
    // The rival tenant's client reaches its own subscriber the same way.
    const rival = await viaRouter(
      `{ topLoyalSubscriber(msisdn: "${RIVAL_SUBSCRIBER}") { loyaltyPoints balance currency } }`,
      'rival-admin',
    );
    expect(rival.data).toEqual({
      topLoyalSubscriber: { loyaltyPoints: 7, balance: '3.50', currency: 'GBP' },
    });
  });

  it("resolves another tenant's reference to null", async () => {
    const reps = [
      { __typename: 'Subscriber', msisdn: ACME_SUBSCRIBER },
      { __typename: 'Subscriber', msisdn: RIVAL_SUBSCRIBER },
      { __typename: 'Location', name: 'EU-ZONE' },
      { __typename: 'Group', id: 'AAAAAAAAAAAAAAAAAAAA' },
    ];
    expect(await direct(ENTITIES, { r: reps }, 'admin')).toEqual({
      data: {
        _entities: [
          { __typename: 'Subscriber', msisdn: ACME_SUBSCRIBER, balance: '10.00', currency: 'EUR' },
          null,
          { __typename: 'Location', name: 'EU-ZONE', description: 'Europe' },
          null,
        ],
      },
    });
    expect(await direct(ENTITIES, { r: reps.slice(0, 3) }, 'rival-admin')).toEqual({
      data: {
        _entities: [
          null,
          { __typename: 'Subscriber', msisdn: RIVAL_SUBSCRIBER, balance: '3.50', currency: 'GBP' },
          null,
        ],
      },
    });
    // Through the router: the rival's client asking for acme's subscriber gets no balance.
    const res = await viaRouter(
      `{ topLoyalSubscriber(msisdn: "${ACME_SUBSCRIBER}") { loyaltyPoints balance } }`,
      'rival-admin',
    );
    expect(res.data).toEqual({ topLoyalSubscriber: null });
  });

  it('needs the permission of the entity query, with the same error', async () => {
    // pcrf holds PCRF_LOCATION_READ_PERMISSION only: locations resolve, subscribers are FORBIDDEN.
    const loc = await direct(ENTITIES, { r: [{ __typename: 'Location', name: 'EU-ZONE' }] }, 'pcrf');
    expect(loc.data).toEqual({
      _entities: [{ __typename: 'Location', name: 'EU-ZONE', description: 'Europe' }],
    });
    const own = await direct(`{ subscriber(msisdn: "${ACME_SUBSCRIBER}") { balance } }`, {}, 'pcrf');
    const ref = await direct(
      ENTITIES,
      { r: [{ __typename: 'Subscriber', msisdn: ACME_SUBSCRIBER }] },
      'pcrf',
    );
    expect(own.errors?.map((e) => [e.message, e.extensions?.code])).toEqual([
      ['client lacks permission CRS_RATING', 'FORBIDDEN'],
    ]);
    expect(ref.errors?.map((e) => [e.message, e.extensions?.code])).toEqual([
      ['client lacks permission CRS_RATING', 'FORBIDDEN'],
    ]);
    expect(ref.data).toEqual({ _entities: [null] });
  });

  it('refuses a router request without credentials', async () => {
    const ref = await direct(ENTITIES, { r: [{ __typename: 'Subscriber', msisdn: ACME_SUBSCRIBER }] });
    expect(ref.errors?.map((e) => e.extensions?.code)).toEqual(['UNAUTHENTICATED']);
    const res = await viaRouter(
      `{ topLoyalSubscriber(msisdn: "${ACME_SUBSCRIBER}") { loyaltyPoints balance } }`,
    );
    expect(res.errors?.length).toBeGreaterThan(0);
    expect(res.data?.topLoyalSubscriber ?? null).toBeNull();
    const own = await viaRouter(`{ subscriber(msisdn: "${ACME_SUBSCRIBER}") { balance loyaltyPoints } }`);
    expect(own.errors?.length).toBeGreaterThan(0);
    expect(own.data?.subscriber ?? null).toBeNull();
  });

  it('prices _entities per representation, and takes at most 500', async () => {
    const group = { __typename: 'Group', id: 'AAAAAAAAAAAAAAAAAAAA' };
    const heavy = `query($r: [_Any!]!) { _entities(representations: $r) {
      ... on Group { members(first: 100) { edges { node { id memberId quota } } } } } }`;
    const priced = await direct(heavy, { r: Array.from({ length: 200 }, () => group) }, 'admin');
    expect(priced.errors?.map((e) => e.extensions?.code)).toEqual(['QUERY_TOO_COMPLEX']);
    const one = await direct(heavy, { r: [group] }, 'admin');
    expect(one).toEqual({ data: { _entities: [null] } });
    const subscriber = { __typename: 'Subscriber', msisdn: ACME_SUBSCRIBER };
    const rival = { __typename: 'Subscriber', msisdn: RIVAL_SUBSCRIBER };
    let reads = 0;
    const onQuery = (q: { sql: string }) => void (/subscribers/.test(q.sql) && reads++);
    app.tdb.db.on('query', onQuery);
    let most: Result;
    try {
      most = await direct(
        ENTITIES,
        { r: Array.from({ length: 500 }, (_, i) => (i % 2 ? rival : subscriber)) },
        'admin',
      );
    } finally {
      app.tdb.db.off('query', onQuery);
    }
    const entries = (most.data as { _entities: ({ msisdn: string } | null)[] })._entities;
    expect(entries).toHaveLength(500);
    // Another tenant's subscriber is null; all 500 references are one read of the subscribers.
    expect(entries.map((e) => e?.msisdn ?? null)).toEqual(
      Array.from({ length: 500 }, (_, i) => (i % 2 ? null : ACME_SUBSCRIBER)),
    );
    expect(reads).toBe(1);
    const over = await direct(ENTITIES, { r: Array.from({ length: 501 }, () => subscriber) }, 'admin');
    expect(over.errors?.map((e) => [e.message, e.extensions?.code])).toEqual([
      ['representations must hold at most 500 entries', 'BAD_USER_INPUT'],
    ]);
  });

  it('reads the Location references of one request in one statement, in the caller’s tenant', async () => {
    const location = (name: string) => ({ __typename: 'Location', name });
    const names = ['EU-ZONE', 'US-ZONE', 'RIVAL-ZONE', 'NO-SUCH-ZONE', 'EU-ZONE', 'eu-zone'];
    const statements: string[] = [];
    const onQuery = (q: { sql: string }) =>
      void (/from [`"]locations[`"]/i.test(q.sql) && statements.push(q.sql));
    app.tdb.db.on('query', onQuery);
    let res: Result;
    try {
      res = await direct(
        `query($r: [_Any!]!) { _entities(representations: $r) { ... on Location { name description } } }`,
        { r: names.map(location) },
        'pcrf',
      );
    } finally {
      app.tdb.db.off('query', onQuery);
    }
    const mysql = app.tdb.dialect === 'mysql';
    const eu = { name: 'EU-ZONE', description: 'Europe' };
    expect(res).toEqual({
      data: {
        _entities: [
          eu,
          { name: 'US-ZONE', description: 'Americas' },
          null, // another tenant's
          null,
          eu,
          // MariaDB's collation matches a name in another letter case, as the single read did.
          mysql ? eu : null,
        ],
      },
    });
    // One read for the six names; on MariaDB each name without an exact row is then read alone.
    expect(statements).toHaveLength(mysql ? 4 : 1);
  });

  it('keeps every entry in its place when items settle out of order, compiled or not', async () => {
    // The first entry waits for the database, the second (no key) is null at once, the third
    // fails at once: the answer still holds three entries in order (graphql-jit 0.8.9 as
    // published appended a failed entry at the end of what had settled; patches/ fixes it).
    const r = [
      { __typename: 'Subscriber', msisdn: ACME_SUBSCRIBER },
      { __typename: 'Subscriber' },
      { __typename: 'Charge', id: 'x' },
    ];
    // The `/graphql` fast path runs a document once on graphql-js, then compiled.
    for (let run = 0; run < 3; run++) {
      const res = await direct(ENTITIES, { r }, 'admin');
      expect(res.data).toEqual({
        _entities: [
          { __typename: 'Subscriber', msisdn: ACME_SUBSCRIBER, balance: '10.00', currency: 'EUR' },
          null,
          null,
        ],
      });
      expect(res.errors?.map((e) => [e.extensions?.code, e.path])).toEqual([
        ['BAD_USER_INPUT', ['_entities', 2]],
      ]);
    }
  });

  it('answers an unknown __typename with an error for that item only', async () => {
    const res = await direct(
      ENTITIES,
      {
        r: [
          { __typename: 'Charge', id: 'x' },
          { __typename: 'Subscriber', msisdn: ACME_SUBSCRIBER },
        ],
      },
      'admin',
    );
    expect(res.data).toEqual({
      _entities: [
        null,
        { __typename: 'Subscriber', msisdn: ACME_SUBSCRIBER, balance: '10.00', currency: 'EUR' },
      ],
    });
    expect(res.errors?.map((e) => [e.message, e.extensions?.code, e.path])).toEqual([
      ['Charge is not an entity of this subgraph', 'BAD_USER_INPUT', ['_entities', 0]],
    ]);
  });
});
