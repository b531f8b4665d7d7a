import {
  DocumentNode,
  GraphQLInputType,
  GraphQLScalarType,
  GraphQLSchema,
  NamedTypeNode,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  parse,
  typeFromAST,
} from 'graphql';
import {
  DEFAULT_GRAPHQL_MAX_COST,
  LIST_SIZES,
  MAX_PAGE_SIZE,
  assumedListSize,
  isPageList,
  listFields,
  operationCost,
} from '../../src/graphql/limits';
import { gatewaySchema } from '../../src/graphql/schema';
import { ROUTES } from '../../src/rest/routes';
import { loadConfig } from '../../src/config';

/** A deeply nested list query that ran the gateway out of heap before GraphQL limits existed, infos as connections. */
export const ITEM_1_QUERY =
  '{ locations(first: 500) { edges { node { name infos(first: 500) { edges { node { name value type { name } location { name infos(first: 500) { edges { node { name value } } } } } } } } } } }';

/** A value of every declared variable, enough for the cost walk (required input fields filled). */
function sampleVariables(schema: GraphQLSchema, document: DocumentNode): Record<string, unknown> {
  const sample = (type: GraphQLInputType): unknown => {
    if (isNonNullType(type)) return sample(type.ofType);
    if (isListType(type)) return [sample(type.ofType)];
    if (isInputObjectType(type))
      return Object.fromEntries(
        Object.values(type.getFields())
          .filter((f) => isNonNullType(f.type))
          .map((f) => [f.name, sample(f.type)]),
      );
    if (isEnumType(type)) return type.getValues()[0].name;
    return (
      {
        Int: 1,
        Float: 1,
        Boolean: true,
        SafeInt: 1,
        JSONObject: {},
        MSISDN: '353871234567',
        Decimal: '1.00',
      }[(type as GraphQLScalarType).name] ?? '1'
    );
  };
  const op = document.definitions.find((d) => d.kind === 'OperationDefinition');
  return Object.fromEntries(
    (op?.variableDefinitions ?? []).map((v) => [
      v.variable.name.value,
      sample(typeFromAST(schema, v.type as NamedTypeNode) as GraphQLInputType),
    ]),
  );
}

describe('GraphQL cost (src/graphql/limits.ts)', () => {
  let schema: GraphQLSchema;
  const cost = (query: string, variables?: Record<string, unknown>) =>
    operationCost(schema, parse(query), variables, undefined);
  beforeAll(async () => {
    schema = await gatewaySchema();
  });

  it('gives every list field of the schema a page size or an assumed length', () => {
    const missing = listFields(schema)
      .filter((f) => !f.paged && assumedListSize(f.key) === undefined && !isPageList(f.key))
      .map((f) => f.key);
    expect(missing).toEqual([]);
    // And the table names no field that does not exist (stale entries).
    const keys = new Set(listFields(schema).map((f) => f.key));
    expect(Object.keys(LIST_SIZES).filter((k) => !keys.has(k))).toEqual([]);
  });

  it('counts one per field and multiplies lists by their page size or assumed length', () => {
    expect(cost('{ location(name: "a") { id name } }').cost).toBe(3);
    // rates: 1 + 10 × 2; location: 1 + 1 + 21
    expect(cost('{ location(name: "a") { name rateList { id name } } }').cost).toBe(23);
    // a child connection: 1 + first × (edges: 1 + node: 1 + name: 1)
    expect(cost('{ location(name: "a") { rates(first: 4) { edges { node { name } } } } }').cost).toBe(
      1 + 1 + 4 * 3,
    );
    // locations: 1 + first × (edges: 1 + node: 1 + name: 1)
    expect(cost('{ locations(first: 7) { edges { node { name } } } }').cost).toBe(1 + 7 * 3);
    // the connections' default page size (20) counts when `first` and `last` are omitted
    expect(cost('{ locations { edges { node { name } } } }').cost).toBe(1 + 20 * 3);
    expect(cost('{ locations(last: 9) { edges { node { name } } } }').cost).toBe(1 + 9 * 3);
    expect(cost('query($f: Int!) { locations(first: $f) { totalCount } }', { f: 9 }).cost).toBe(1 + 9);
  });

  it('counts aliases and repeated fragments each time', () => {
    const one = cost('{ locations(first: 100) { edges { node { name } } } }').cost;
    expect(
      cost(
        '{ a: locations(first: 100) { edges { node { name } } } b: locations(first: 100) { edges { node { name } } } }',
      ).cost,
    ).toBe(2 * one);
    expect(
      cost(
        'fragment F on Location { name infoList { name } } { location(name: "a") { ...F a: infoList { name } ...F } }',
      ).cost,
    ).toBe(1 + 2 * (1 + 501) + 501);
  });

  it('prices the issue-10 item-1 query far above the default maximum', () => {
    expect(cost(ITEM_1_QUERY).cost).toBeGreaterThan(100 * DEFAULT_GRAPHQL_MAX_COST);
  });

  it('reports page sizes outside 1-500 and counts them as 500', () => {
    expect(cost(`{ locations(first: ${MAX_PAGE_SIZE}) { totalCount } }`).invalid).toEqual([]);
    for (const f of [0, -1, MAX_PAGE_SIZE + 1, 1e9]) {
      const r = cost('query($f: Int!) { locations(first: $f) { totalCount } }', { f });
      expect(r.invalid).toEqual([{ field: 'first', description: 'must be 1-500' }]);
      expect(r.cost).toBe(1 + MAX_PAGE_SIZE);
    }
    expect(
      cost('{ subscriber(msisdn: "353871234567") { charges(first: 501) { nodes { amount } } } }').invalid,
    ).toHaveLength(1);
    expect(
      cost('{ donations(donorId: "353870000001", first: 100000) { edges { node { id } } } }').invalid,
    ).toHaveLength(1);
  });

  it('refuses documents with too many nodes', () => {
    const aliases = Array.from({ length: 6000 }, (_, i) => `a${i}: __typename`).join(' ');
    expect(() => cost(`{ ${aliases} }`)).toThrow(/maximum allowed number of nodes/);
  });

  it('prices every REST row document within the default maximum', () => {
    const over = ROUTES.map((r) => {
      const document = parse(r.document);
      return {
        row: `${r.method} ${r.path}`,
        cost: operationCost(schema, document, sampleVariables(schema, document), undefined).cost,
      };
    })
      .filter((r) => r.cost > DEFAULT_GRAPHQL_MAX_COST)
      .map((r) => r.row);
    // REST rows run their fixed documents outside the cost rule; a GraphQL client sending the
    // same documents is within the default maximum too.
    expect(over).toEqual([]);
  });
});

describe('GRAPHQL_MAX_COST and GRAPHQL_TIMEOUT_MS (CONTRACT §8)', () => {
  it('default to 50000 and 5000 ms and read valid values', () => {
    expect(loadConfig({})).toMatchObject({ graphqlMaxCost: 50_000, graphqlTimeoutMs: 5_000 });
    expect(loadConfig({ GRAPHQL_MAX_COST: '1000', GRAPHQL_TIMEOUT_MS: '250' })).toMatchObject({
      graphqlMaxCost: 1000,
      graphqlTimeoutMs: 250,
    });
  });

  it.each([
    ['GRAPHQL_MAX_COST', '0'],
    ['GRAPHQL_MAX_COST', 'lots'],
    ['GRAPHQL_TIMEOUT_MS', '0'],
    ['GRAPHQL_TIMEOUT_MS', '1.5'],
    ['GRAPHQL_TIMEOUT_MS', '600001'],
  ])('rejects %s=%s naming the variable', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(
      new RegExp(`^invalid configuration:[\\s\\S]*${name}:`),
    );
  });
});
