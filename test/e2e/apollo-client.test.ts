/**
 * @jest-environment-options {"customExportConditions": ["node", "node-addons", "development"]}
 */
// Apollo Client's development build (the `development` export condition above): its cache
// warnings ("Cache data may be lost when replacing …") exist only there, as in an app's dev server.
import fs from 'node:fs';
import path from 'node:path';
import { format } from 'node:util';
import {
  ApolloClient,
  CombinedGraphQLErrors,
  HttpLink,
  InMemoryCache,
  NetworkStatus,
  ObservableQuery,
  gql,
  setLogVerbosity,
} from '@apollo/client';
import { loadDevMessages, loadErrorMessages } from '@apollo/client/dev';
import { relayStylePagination } from '@apollo/client/utilities';
import {
  DocumentNode,
  Kind,
  NoDeprecatedCustomRule,
  OperationDefinitionNode,
  parse,
  print,
  specifiedRules,
  validate,
} from 'graphql';
import { gatewaySchema } from '../../src/graphql/schema';
import { TestApp, startTestApp } from '../helpers/app';
import { baseDataset, basic } from '../helpers/fixtures';

/**
 * Apollo Client 4 against a running gateway, as a new internal app would use it (docs/graphql.md
 * "Apollo Client 4"): an InMemoryCache with no type policies (entities normalise by `__typename` + `id`),
 * `relayStylePagination()` the only field policy, and not one warning from the cache.
 */

/** Variables the README's operations need to run here. */
const EXAMPLE_VARIABLES: Record<string, Record<string, unknown>> = {
  'query Check': { token: 'no-such-token' },
};

/** One operation of a README ```graphql block. */
interface Example {
  key: string;
  /** README.md line of the block's opening fence. */
  line: number;
  operation: OperationDefinitionNode;
  document: DocumentNode;
}

/** `<operation> <name>`, or `<operation> <root fields>` for an anonymous operation. */
function exampleKey(op: OperationDefinitionNode): string {
  const name =
    op.name?.value ??
    op.selectionSet.selections.map((s) => (s.kind === Kind.FIELD ? s.name.value : '…')).join(',');
  return `${op.operation} ${name}`;
}

/** Every operation of every ```graphql block of `file` (README.md), each as a document of its own. */
function graphqlExamples(file = 'README.md'): Example[] {
  const readme = fs.readFileSync(path.join(__dirname, '../..', file), 'utf8');
  const out: Example[] = [];
  for (const m of readme.matchAll(/^```graphql\n([\s\S]*?)^```/gm)) {
    const line = readme.slice(0, m.index).split('\n').length;
    const doc = parse(m[1]);
    const fragments = doc.definitions.filter((d) => d.kind === Kind.FRAGMENT_DEFINITION);
    for (const def of doc.definitions) {
      if (def.kind !== Kind.OPERATION_DEFINITION) continue;
      out.push({
        key: exampleKey(def),
        line,
        operation: def,
        document: { kind: Kind.DOCUMENT, definitions: [def, ...fragments] },
      });
    }
  }
  return out;
}

/** What Apollo Client logged: console.warn/error/log (its invariant logging goes there too). */
interface Logged {
  level: string;
  text: string;
}

/** Captures console.warn/error/log while a test runs (Apollo's invariant logging at `log` level). */
function captureLogs(): { logged: Logged[]; restore(): void } {
  const logged: Logged[] = [];
  const spies = (['warn', 'error', 'log'] as const).map((level) =>
    jest.spyOn(console, level).mockImplementation((...args: unknown[]) => {
      logged.push({ level, text: format(...args) });
    }),
  );
  return { logged, restore: () => spies.forEach((s) => s.mockRestore()) };
}

/** An Apollo Client for the gateway as `as` with a cache of the given field policies only. */
function apolloClient(
  app: TestApp,
  as: string,
  queryFields: Record<string, ReturnType<typeof relayStylePagination>> = {},
): ApolloClient {
  return new ApolloClient({
    link: new HttpLink({ uri: `${app.url}/graphql`, headers: { authorization: basic(as) } }),
    cache: new InMemoryCache(
      Object.keys(queryFields).length ? { typePolicies: { Query: { fields: queryFields } } } : {},
    ),
  });
}

/** The next result of `obs` that is complete and not loading. */
function settled<T>(obs: ObservableQuery<T>): Promise<{ data: T | undefined; error?: unknown }> {
  return new Promise((resolve, reject) => {
    const sub = obs.subscribe({
      next(r) {
        if (!r.loading && r.networkStatus === NetworkStatus.ready) {
          queueMicrotask(() => sub.unsubscribe());
          resolve({ data: r.data as T | undefined, error: r.error });
        }
      },
      error: reject,
    });
  });
}

const LOCATIONS = gql`
  query Locations($first: Int, $after: String) {
    locations(first: $first, after: $after) {
      totalCount
      edges {
        cursor
        node {
          id
          name
        }
      }
      pageInfo {
        hasNextPage
        endCursor
      }
    }
  }
`;

interface LocationsData {
  locations: {
    totalCount: number;
    edges: { cursor: string; node: { id: string | number; name: string } }[];
    pageInfo: { hasNextPage: boolean; endCursor: string | null };
  };
}

beforeAll(() => {
  loadDevMessages();
  loadErrorMessages();
  setLogVerbosity('log');
});

describe('Apollo Client 4 (InMemoryCache, no type policies) against the gateway', () => {
  let app: TestApp;
  let logs: ReturnType<typeof captureLogs>;
  beforeAll(async () => {
    const ds = baseDataset();
    ds.locations = Array.from({ length: 7 }, (_, i) => ({ tenant: 'acme', name: `Z${i}` }));
    app = await startTestApp({ dataset: ds });
  });
  afterAll(() => app?.close());
  beforeEach(() => {
    logs = captureLogs();
  });
  afterEach(() => logs.restore());

  it('captures what the cache warns (the check below can fail)', () => {
    // Two writes of an id-less object under one field: the warning the cache gave for `subscriber` before it had an id.
    const cache = new InMemoryCache();
    cache.writeQuery({ query: gql('{ thing { a } }'), data: { thing: { __typename: 'Thing', a: 1 } } });
    cache.writeQuery({ query: gql('{ thing { b } }'), data: { thing: { __typename: 'Thing', b: 2 } } });
    expect(logs.logged.map((l) => l.text).join('\n')).toMatch(
      /Cache data may be lost when replacing the thing field/,
    );
  });

  it('pages locations with fetchMore and relayStylePagination(), merging the edges, without a warning', async () => {
    const client = apolloClient(app, 'pcrf', { locations: relayStylePagination() });
    try {
      const obs = client.watchQuery<LocationsData>({ query: LOCATIONS, variables: { first: 3 } });
      const first = await settled(obs);
      expect(first.error).toBeUndefined();
      expect(first.data!.locations.edges.map((e) => e.node.name)).toEqual(['Z0', 'Z1', 'Z2']);
      let pageInfo = first.data!.locations.pageInfo;
      let pages = 1;
      while (pageInfo.hasNextPage) {
        const more = await obs.fetchMore({ variables: { after: pageInfo.endCursor } });
        expect(more.error).toBeUndefined();
        pages++;
        pageInfo = more.data!.locations.pageInfo;
        expect(pages).toBeLessThan(10);
      }
      const merged = (obs.getCurrentResult().data as LocationsData).locations;
      expect(pages).toBe(3);
      expect(merged.edges.map((e) => e.node.name)).toEqual(['Z0', 'Z1', 'Z2', 'Z3', 'Z4', 'Z5', 'Z6']);
      expect(new Set(merged.edges.map((e) => e.cursor)).size).toBe(7);
      expect(merged.pageInfo.hasNextPage).toBe(false);
      expect(merged.pageInfo.endCursor).toBe(merged.edges[6].cursor);
      expect(merged.totalCount).toBe(7);
      // Each location is normalised once, under its id (no type policy told the cache how).
      const ids = Object.keys(client.cache.extract() as Record<string, unknown>).filter((k) =>
        k.startsWith('Location:'),
      );
      expect(ids).toHaveLength(7);
      expect(logs.logged).toEqual([]);
    } finally {
      client.stop();
    }
  });

  it('a subscriber refetched with fewer fields keeps the rest', async () => {
    // Once, after `{ msisdn status }` the cached subscriber had lost `balance`.
    const client = apolloClient(app, 'admin');
    try {
      const full = await client.query({
        query: gql('{ subscriber(msisdn: "353871234567") { id msisdn status balance } }'),
        errorPolicy: 'all',
      });
      expect(full.error).toBeUndefined();
      const again = await client.query({
        query: gql('{ subscriber(msisdn: "353871234567") { id msisdn status } }'),
        fetchPolicy: 'network-only',
        errorPolicy: 'all',
      });
      expect(again.error).toBeUndefined();
      const cached = client.readQuery<{ subscriber: { balance: string } | null }>({
        query: gql('{ subscriber(msisdn: "353871234567") { id msisdn status balance } }'),
      });
      expect(cached?.subscriber?.balance).toBe('10.00');
      expect(logs.logged).toEqual([]);
    } finally {
      client.stop();
    }
  });

  it.each([
    ['UNAUTHENTICATED', 'wrong credentials', basic('portal', 'wrong'), 3],
    ['FORBIDDEN', 'a client without the permission', basic('nogrant'), 3],
    ['BAD_USER_INPUT', 'a page size over 500', basic('pcrf'), 501],
  ])(
    '%s (%s) reaches Apollo Client as CombinedGraphQLErrors with extensions.code',
    async (code, _why, auth, first) => {
      const client = new ApolloClient({
        link: new HttpLink({ uri: `${app.url}/graphql`, headers: { authorization: auth as string } }),
        cache: new InMemoryCache(),
      });
      try {
        const res = await client.query({ query: LOCATIONS, variables: { first }, errorPolicy: 'all' });
        expect(CombinedGraphQLErrors.is(res.error)).toBe(true);
        expect((res.error as CombinedGraphQLErrors).errors[0].extensions?.code).toBe(code);
        expect(logs.logged).toEqual([]);
      } finally {
        client.stop();
      }
    },
  );

  describe("docs/graphql.md's GraphQL examples", () => {
    const examples = graphqlExamples('docs/graphql.md');

    it('finds the examples in docs/graphql.md', () => {
      expect(examples.length).toBeGreaterThanOrEqual(3);
    });

    for (const e of examples)
      it(`${e.key} (docs/graphql.md:${e.line}) validates against the schema, using nothing deprecated`, async () => {
        const rules = [...specifiedRules, NoDeprecatedCustomRule];
        expect(validate(await gatewaySchema(), e.document, rules).map((err) => err.message)).toEqual([]);
      });
  });

  describe("README.md's GraphQL examples", () => {
    const examples = graphqlExamples();

    it('finds the examples in README.md', () => {
      expect(examples.length).toBeGreaterThanOrEqual(5);
    });

    for (const e of examples)
      it(`${e.key} (README.md:${e.line}) validates against the schema, using nothing deprecated`, async () => {
        const rules = [...specifiedRules, NoDeprecatedCustomRule];
        expect(validate(await gatewaySchema(), e.document, rules).map((err) => err.message)).toEqual([]);
      });

    for (const e of examples.filter((x) => x.operation.operation === 'query'))
      it(`${e.key} (README.md:${e.line}) runs through Apollo Client: data, no errors, no cache warning`, async () => {
        const client = apolloClient(app, 'admin');
        try {
          const res = await client.query({
            query: gql(print(e.document)),
            variables: EXAMPLE_VARIABLES[e.key] ?? {},
            errorPolicy: 'all',
          });
          expect(res.error).toBeUndefined();
          expect(res.data).toBeTruthy();
          expect(logs.logged).toEqual([]);
        } finally {
          client.stop();
        }
      });
  });
});
