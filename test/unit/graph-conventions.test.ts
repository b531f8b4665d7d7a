import 'reflect-metadata';
import {
  GraphQLArgument,
  GraphQLField,
  GraphQLInputField,
  GraphQLNamedType,
  GraphQLObjectType,
  GraphQLSchema,
  GraphQLType,
  buildSchema,
  getNamedType,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isIntrospectionType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  isSpecifiedScalarType,
  isUnionType,
} from 'graphql';
import { registeredNodeTypes } from '../../src/graphql/node';
import { gatewaySchema } from '../../src/graphql/schema';

/**
 * Object types that are values, not entities: parts of another answer, with no identity of their
 * own to refetch or normalise (exempt from the Node rule; lists of them need no connection).
 * Besides these: the root types, `PageInfo`, `*Connection`, `*Edge`, `*Payload` and every
 * `UserError` type (by name or by implementing the `UserError` interface).
 */
const VALUE_TYPES: ReadonlyMap<string, string> = new Map([
  ['IssuedToken', 'the OAuth token response of issueToken (RFC 6749 §5.1); the token is not kept readable'],
  ['TokenIntrospection', 'the RFC 7662 answer about a token, computed per request'],
  ['ChargingCdrFields', "a CDR's field group (charging)"],
  ['DonationCdrFields', "a CDR's field group (donation)"],
  ['GroupCdrFields', "a CDR's field group (group)"],
  ['RecurringDonationCdrFields', "a CDR's field group (recurring donation)"],
  ['TokenCdrFields', "a CDR's field group (token)"],
  [
    'PortalSubscriber',
    "the captive-portal token's own subscriber (`me`): reached through the token only, never refetched by id",
  ],
  ['DonationRecipient', "one recipient's result inside a donation"],
  ['RecurringRecipient', 'one recipient inside a recurring donation (its group member and quota)'],
  // Apollo Federation's own type (src/graphql/federation.ts): its shape is fixed by the federation spec.
  ['_Service', "the subgraph's SDL for a router's composition (Apollo Federation `_service`)"],
]);

/**
 * Lists of entities that stay plain lists: parts of their parent, bounded, and written whole with
 * it (not lists that can grow, which are connections: docs/graphql.md). Besides these: `Query.nodes` (the
 * Global Object Identification spec's refetch by ids) and lists inside a `*Connection`
 * (GitHub's `nodes` shortcut).
 */
const BOUNDED_LISTS: ReadonlyMap<string, string> = new Map([
  // (a location's rates, infos and profiles are connections too)
  // Apollo Federation's entity lookup (src/graphql/federation.ts): its shape is fixed by the federation spec.
  ['Query._entities', 'one entity per representation a router sends, in its order (Apollo Federation)'],
]);

/**
 * Field, argument and input-field names that hold a closed set (a `String` or `Int` there is a
 * violation: it must be an enum). Names ending in `Type`, `Status`, `Kind` or `Outcome` count too.
 */
const CLOSED_SET_NAMES: ReadonlySet<string> = new Set([
  'status',
  'kind',
  'type',
  'outcome',
  'errorName',
  'paymentType',
  'quotaType',
  'shareQuotaType',
  'unitMeteringType',
  'transactionType',
  'grantType',
  'tokenType',
]);
const CLOSED_SET_SUFFIX = /(Type|Status|Kind|Outcome)$/;

/** Fields whose closed-set-looking name holds an open set, with the reason. */
const OPEN_SETS: ReadonlyMap<string, string> = new Map([
  [
    'IssuedToken.tokenType',
    'the OAuth access token type (RFC 6749 §7.1: an extensible registry of strings); always `bearer` here',
  ],
  [
    'LocationInfoInput.type',
    'the name of a LocationInfoType, a set ADMIN extends with upsertLocationInfoType',
  ],
]);

/**
 * Arguments that are required wherever they appear (by name), besides every argument or input
 * field whose description starts with or says "Required".
 */
const REQUIRED_ARG_NAMES: ReadonlySet<string> = new Set([
  'id',
  'ids',
  'input',
  'msisdn',
  'token',
  'clientId',
  'grantType',
  'members',
]);
/**
 * Input fields required in one form of their input only, with the reason: nullable on purpose (the
 * service names the missing one in `userErrors`, code INVALID).
 */
const CONDITIONALLY_REQUIRED: ReadonlyMap<string, string> = new Map([
  ['DonationInput.donorId', 'required with `recipients`; with `groupId` the donor is the group owner'],
  ['DonationInput.quotaType', "required with `recipients`; with `groupId` it defaults to the group's"],
  [
    'RecurringDonationInput.donorId',
    'required with `recipients`; with `groupId` the donor is the group owner',
  ],
  [
    'RecurringDonationInput.quotaType',
    "required with `recipients`; with `groupId` it defaults to the group's",
  ],
]);

/** Required arguments with another name, by coordinate `Type.field(arg:)`. */
const REQUIRED_ARGS: ReadonlySet<string> = new Set([
  'Query.location(name:)',
  'Query.locationInfo(name:)',
  'Mutation.deleteLocation(name:)',
  'Query.donations(donorId:)',
]);

/** One breach of a convention: `key` names it, `detail` says what to change. */
export interface Violation {
  key: string;
  detail: string;
}

function typeString(t: GraphQLType): string {
  return String(t);
}

/** The entity object types of `schema` (every object type that is not a value, see VALUE_TYPES). */
function isEntity(
  schema: GraphQLSchema,
  type: GraphQLNamedType,
  values: ReadonlyMap<string, string>,
): boolean {
  if (!isObjectType(type) || isIntrospectionType(type)) return false;
  const roots = [schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()];
  if (roots.includes(type)) return false;
  const name = type.name;
  if (name === 'PageInfo' || /(Connection|Edge|Payload|UserError)$/.test(name)) return false;
  if (type.getInterfaces().some((i) => i.name === 'UserError')) return false;
  return !values.has(name);
}

/** True when `t` (any wrapping) names an entity, or an interface/union one of whose members is one. */
function namesEntity(schema: GraphQLSchema, t: GraphQLType, values: ReadonlyMap<string, string>): boolean {
  const named = getNamedType(t);
  if (isInterfaceType(named) || isUnionType(named))
    return schema.getPossibleTypes(named).some((p) => isEntity(schema, p, values));
  return isEntity(schema, named, values);
}

function isListOf(t: GraphQLType): boolean {
  const inner = isNonNullType(t) ? t.ofType : t;
  return isListType(inner);
}

const deprecated = (x: { deprecationReason?: string | null }) => x.deprecationReason != null;

const saysRequired = (description: string | null | undefined) =>
  !!description && /(^|[.;:]\s*)Required\b/.test(description);

/** Options of the walk (the allowlists; the real ones by default, others in the self-test). */
export interface WalkOptions {
  /** Type names `node(id:)` resolves (registerNode); undefined skips that rule. */
  registeredNodes?: readonly string[];
  values?: ReadonlyMap<string, string>;
  boundedLists?: ReadonlyMap<string, string>;
  openSets?: ReadonlyMap<string, string>;
  /** False skips the `undescribed` rule (the self-test's small schemas). */
  descriptions?: boolean;
}

/**
 * Every violation of the graph's conventions (docs/graphql.md) in `schema`, sorted by key:
 * - `not-a-connection: T.f`: a list of entities (or of an interface/union with entity members)
 *   that is not a connection;
 * - `connection-shape: XConnection` / `connection-args: T.f`: a `*Connection` that is not the
 *   Relay shape (`edges: [XEdge!]!` with `cursor: String!`, `node: X!`; `pageInfo: PageInfo!`),
 *   or a connection field without `first`/`after`;
 * - `entity-not-node: T`: an entity without `id: ID!` or not implementing `Node`;
 * - `node-unregistered: T`: a `Node` type `node(id:)` cannot resolve (no registerNode);
 * - `float: T.f` / `float: T.f(a:)` / `float: Input.f`: a Float anywhere;
 * - `closed-set-string: …`: a closed set typed `String` or `Int`;
 * - `nullable-required-arg: T.f(a:)` / `nullable-required-input: Input.f`: a required argument or
 *   input field that is nullable;
 * - `mutation-payload: Mutation.m`: a mutation not returning an object `<Something>Payload` with
 *   `userErrors: [<UserError type>!]!` (or, for a business outcome that is data rather than a
 *   refusal, such as a rating's, `outcome: <Enum>!`).
 * - `undescribed: T` / `T.f` / `T.f(a:)` / `Enum.VALUE`: a type (root types aside), field,
 *   argument, input field or enum value without a description (team decision 8: an app developer
 *   reads the schema in the explorer).
 * Deprecated fields, arguments and input fields are exempt (they stay one release).
 */
export function conventionViolations(schema: GraphQLSchema, opts: WalkOptions = {}): Violation[] {
  const values = opts.values ?? VALUE_TYPES;
  const bounded = opts.boundedLists ?? BOUNDED_LISTS;
  const openSets = opts.openSets ?? OPEN_SETS;
  const out: Violation[] = [];
  const add = (key: string, detail: string) => out.push({ key, detail });
  const mutationType = schema.getMutationType();

  const checkClosedSet = (coordinate: string, name: string, t: GraphQLType) => {
    const named = getNamedType(t);
    if (named.name !== 'String' && named.name !== 'Int') return;
    if (!CLOSED_SET_NAMES.has(name) && !CLOSED_SET_SUFFIX.test(name)) return;
    if (openSets.has(coordinate)) return;
    add(`closed-set-string: ${coordinate}`, `a closed set typed ${typeString(t)}: make it an enum`);
  };
  const checkFloat = (coordinate: string, t: GraphQLType) => {
    if (getNamedType(t).name === 'Float')
      add(`float: ${coordinate}`, `${typeString(t)}: use Decimal (money), SafeInt (quotas) or Int`);
  };
  const checkInputValue = (
    coordinate: string,
    kind: 'arg' | 'input',
    v: GraphQLArgument | GraphQLInputField,
  ) => {
    if (deprecated(v)) return;
    described(coordinate, v);
    checkFloat(coordinate, v.type);
    checkClosedSet(coordinate, v.name, v.type);
    const required =
      saysRequired(v.description) ||
      (kind === 'arg' && (REQUIRED_ARG_NAMES.has(v.name) || REQUIRED_ARGS.has(coordinate)));
    if (required && !isNonNullType(v.type) && !CONDITIONALLY_REQUIRED.has(coordinate))
      add(
        `nullable-required-${kind}: ${coordinate}`,
        `required but typed ${typeString(v.type)}: make it ${typeString(v.type)}!`,
      );
  };
  const checkConnection = (conn: GraphQLObjectType) => {
    const fields = conn.getFields();
    const edges = fields.edges?.type;
    const edgeItem =
      edges && isNonNullType(edges) && isListType(edges.ofType) ? edges.ofType.ofType : undefined;
    const edge = edgeItem && isNonNullType(edgeItem) ? edgeItem.ofType : undefined;
    const edgeType = edge && isObjectType(edge) ? edge : undefined;
    const edgeFields = edgeType?.getFields();
    const node = edgeFields?.node?.type;
    const ok =
      !!edgeType &&
      !!edgeFields &&
      edgeType.name === conn.name.replace(/Connection$/, 'Edge') &&
      String(edgeFields.cursor?.type) === 'String!' &&
      !!node &&
      isNonNullType(node) &&
      String(fields.pageInfo?.type) === 'PageInfo!';
    if (!ok)
      add(
        `connection-shape: ${conn.name}`,
        'not a Relay connection: needs edges: [XEdge!]! (cursor: String!, node: X!) and pageInfo: PageInfo! (src/graphql/relay.ts connectionTypes)',
      );
  };

  const types = Object.values(schema.getTypeMap())
    .filter((t) => !isIntrospectionType(t))
    .sort((a, b) => a.name.localeCompare(b.name));
  const roots = [schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()];
  const described = (coordinate: string, x: { description?: string | null }) => {
    if (opts.descriptions !== false && !x.description?.trim())
      add(`undescribed: ${coordinate}`, 'no description: say what it is, with its unit');
  };
  for (const type of types) {
    if (!(isScalarType(type) && isSpecifiedScalarType(type)) && !roots.includes(type as GraphQLObjectType))
      described(type.name, type);
    if (isEnumType(type))
      for (const v of type.getValues()) if (!deprecated(v)) described(`${type.name}.${v.name}`, v);
    if (isInputObjectType(type)) {
      for (const f of Object.values(type.getFields())) checkInputValue(`${type.name}.${f.name}`, 'input', f);
      continue;
    }
    if (!isObjectType(type) && !isInterfaceType(type)) continue;
    if (isObjectType(type) && /Connection$/.test(type.name)) checkConnection(type);
    if (isObjectType(type) && isEntity(schema, type, values)) {
      const id = type.getFields().id;
      const node = type.getInterfaces().some((i) => i.name === 'Node');
      if (!node || String(id?.type) !== 'ID!')
        add(
          `entity-not-node: ${type.name}`,
          [
            !id ? 'no id field' : String(id.type) !== 'ID!' ? `id is ${String(id.type)}, not ID!` : '',
            node ? '' : 'does not implement Node',
          ]
            .filter(Boolean)
            .join('; ') + ` (or, if it is a value, add it to VALUE_TYPES with the reason)`,
        );
    }
    if (
      opts.registeredNodes &&
      isObjectType(type) &&
      type.getInterfaces().some((i) => i.name === 'Node') &&
      !opts.registeredNodes.includes(type.name)
    )
      add(
        `node-unregistered: ${type.name}`,
        'implements Node but node(id:) cannot resolve it (registerNode)',
      );
    for (const field of Object.values(type.getFields()) as GraphQLField<unknown, unknown>[]) {
      const coordinate = `${type.name}.${field.name}`;
      if (deprecated(field)) continue;
      described(coordinate, field);
      for (const arg of field.args) checkInputValue(`${coordinate}(${arg.name}:)`, 'arg', arg);
      checkFloat(coordinate, field.type);
      checkClosedSet(coordinate, field.name, field.type);
      if (
        isListOf(field.type) &&
        namesEntity(schema, field.type, values) &&
        !/(Connection|Payload)$/.test(type.name) && // a payload lists what its mutation wrote
        type !== mutationType && // a mutation's answer is its payload (mutation-payload below)
        coordinate !== 'Query.nodes' &&
        !bounded.has(coordinate)
      )
        add(
          `not-a-connection: ${coordinate}`,
          `${typeString(field.type)} is a list of entities: make it a connection (first/after/last/before)`,
        );
      const named = getNamedType(field.type);
      if (isObjectType(named) && /Connection$/.test(named.name)) {
        const args = new Map(field.args.map((a) => [a.name, getNamedType(a.type).name]));
        if (args.get('first') !== 'Int' || args.get('after') !== 'String')
          add(`connection-args: ${coordinate}`, 'a connection field needs first: Int and after: String');
      }
      if (type === mutationType) {
        const ret = isNonNullType(field.type) ? field.type.ofType : field.type;
        const errors = isObjectType(ret) ? ret.getFields().userErrors?.type : undefined;
        const item =
          errors && isNonNullType(errors) && isListType(errors.ofType) && isNonNullType(errors.ofType.ofType)
            ? errors.ofType.ofType.ofType
            : undefined;
        const typedErrors =
          !!item &&
          ((isInterfaceType(item) && item.name === 'UserError') ||
            (isObjectType(item) && item.getInterfaces().some((i) => i.name === 'UserError')));
        // A business outcome that is data, not a refusal (processRating: GRAPH.md "a rating is a
        // business outcome"), is typed by a non-null enum `outcome` instead.
        const outcome = isObjectType(ret) ? ret.getFields().outcome?.type : undefined;
        const typedOutcome = !!outcome && isNonNullType(outcome) && isEnumType(outcome.ofType);
        if (!isObjectType(ret) || !/.Payload$/.test(ret.name) || !(typedErrors || typedOutcome))
          add(
            `mutation-payload: ${coordinate}`,
            `returns ${typeString(field.type)}: return <Mutation>Payload { <entity> userErrors: [XUserError!]! } (src/graphql/payload.ts), or a payload with an enum outcome: <Enum>! for business outcomes`,
          );
      }
    }
  }
  return out.sort((a, b) => a.key.localeCompare(b.key));
}

function listing(vs: readonly Violation[]): string {
  return vs.map((v) => `  - ${v.key}\n      ${v.detail}`).join('\n');
}

describe('graph conventions (docs/graphql.md): a walk over the built schema', () => {
  let violations: Violation[];
  beforeAll(async () => {
    violations = conventionViolations(await gatewaySchema(), { registeredNodes: registeredNodeTypes() });
  });

  it('finds no violation (docs/graphql.md)', () => {
    if (violations.length)
      throw new Error(
        `${violations.length} violation(s) of the graph conventions (docs/graphql.md):\n${listing(violations)}`,
      );
  });

  it('keeps its allowlists honest: each entry is still needed (without it the walk finds more)', async () => {
    const schema = await gatewaySchema();
    const baseline = conventionViolations(schema).length;
    const without = <K, V>(m: ReadonlyMap<K, V>, k: K) => new Map([...m].filter(([key]) => key !== k));
    const unneeded = [
      ...[...VALUE_TYPES.keys()]
        .filter((k) => conventionViolations(schema, { values: without(VALUE_TYPES, k) }).length === baseline)
        .map((k) => `VALUE_TYPES ${k}`),
      ...[...BOUNDED_LISTS.keys()]
        .filter(
          (k) =>
            conventionViolations(schema, { boundedLists: without(BOUNDED_LISTS, k) }).length === baseline,
        )
        .map((k) => `BOUNDED_LISTS ${k}`),
      ...[...OPEN_SETS.keys()]
        .filter((k) => conventionViolations(schema, { openSets: without(OPEN_SETS, k) }).length === baseline)
        .map((k) => `OPEN_SETS ${k}`),
    ];
    expect(unneeded).toEqual([]);
  });
});

/** The walk itself must be able to fail: one schema breaking every rule, one keeping them all. */
describe('conventionViolations', () => {
  const base = `
    interface Node { id: ID! }
    interface UserError { field: [String!] message: String! }
    type PageInfo { hasNextPage: Boolean! hasPreviousPage: Boolean! startCursor: String endCursor: String }
    enum Status { ACTIVE }
    enum NameCode { NAME_TAKEN }
    type NameUserError implements UserError { code: NameCode! field: [String!] message: String! }
  `;
  const good = buildSchema(`${base}
    type Thing implements Node { id: ID! status: Status! name: String! price: String! }
    type ThingEdge { cursor: String! node: Thing! }
    type ThingConnection { edges: [ThingEdge!]! pageInfo: PageInfo! totalCount: Int! nodes: [Thing!]! }
    type Query {
      things(first: Int, after: String, last: Int, before: String): ThingConnection!
      thing(id: ID!): Thing
      nodes(ids: [ID!]!): [Node]!
      old(page: Int): [Thing!]! @deprecated(reason: "use things")
      legacyKind: String @deprecated(reason: "use thing")
    }
    input ThingInput { name: String! note: String status: Status }
    type CreateThingPayload { thing: Thing userErrors: [NameUserError!]! }
    enum RateOutcome { SUCCESS INSUFFICIENT_FUNDS }
    type RateThingPayload { outcome: RateOutcome! returnCode: Int! }
    type Mutation { createThing(input: ThingInput!): CreateThingPayload! rateThing(id: ID!): RateThingPayload! }
  `);
  const bad = buildSchema(`${base}
    type Thing { key: Int! status: String! weight: Float }
    type Part implements Node { id: String! }
    type CdrConnection { nodes: [Thing!]! endCursor: String hasNextPage: Boolean! }
    type Query {
      things(page: Int): [Thing!]!
      parts: [Node!]!
      cdrs(limit: Int): CdrConnection!
      thing(id: ID, kind: String): Thing
      introspect(token: String): Boolean!
      byCode(code: String, weight: Float): Thing
    }
    input ThingInput { """Required. The name.""" name: String quota: Float paymentType: Int }
    type RateThingPayload { result: String! returnCode: Int! }
    type Mutation { deleteThing(id: ID!): Boolean! createThing(input: ThingInput!): Thing rateThing(id: ID!): RateThingPayload! }
  `);

  it('finds nothing in a schema that keeps the conventions', () => {
    expect(
      conventionViolations(good, { registeredNodes: ['Thing'], values: new Map(), descriptions: false }),
    ).toEqual([]);
  });

  it('names every breach of a schema that breaks them', () => {
    expect(
      conventionViolations(bad, { registeredNodes: [], values: new Map(), descriptions: false }).map(
        (v) => v.key,
      ),
    ).toEqual(
      [
        'closed-set-string: Query.thing(kind:)',
        'closed-set-string: Thing.status',
        'closed-set-string: ThingInput.paymentType',
        'connection-args: Query.cdrs',
        'connection-shape: CdrConnection',
        'entity-not-node: Part',
        'entity-not-node: Thing',
        'float: Query.byCode(weight:)',
        'float: Thing.weight',
        'float: ThingInput.quota',
        'mutation-payload: Mutation.createThing',
        'mutation-payload: Mutation.deleteThing',
        'mutation-payload: Mutation.rateThing',
        'node-unregistered: Part',
        'not-a-connection: Query.parts',
        'not-a-connection: Query.things',
        'nullable-required-arg: Query.introspect(token:)',
        'nullable-required-arg: Query.thing(id:)',
        'nullable-required-input: ThingInput.name',
      ].sort((a, b) => a.localeCompare(b)),
    );
  });

  it('names every type, field, argument, input field and enum value without a description', () => {
    const schema = buildSchema(`
      "An order." type Order { "Its total, in cents." total: Int! note: String }
      enum Colour { "Red." RED BLUE }
      input Filter { "Colour wanted." colour: Colour size: Int }
      type Query { "Orders." orders("The filter." filter: Filter, limit: Int): [Order!]! old: Int @deprecated(reason: "use orders") }
    `);
    expect(
      conventionViolations(schema, { values: new Map([['Order', 'test']]) })
        .filter((v) => v.key.startsWith('undescribed'))
        .map((v) => v.key),
    ).toEqual([
      'undescribed: Colour',
      'undescribed: Colour.BLUE',
      'undescribed: Filter',
      'undescribed: Filter.size',
      'undescribed: Order.note',
      'undescribed: Query.orders(limit:)',
    ]);
  });
});
