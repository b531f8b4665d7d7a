import { printSchemaWithDirectives } from '@graphql-tools/utils';
import {
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLScalarType,
  GraphQLSchema,
  GraphQLString,
  GraphQLUnionType,
} from 'graphql';
import { BadUserInputError, NotFoundError } from '../errors';
import { locationByName } from '../modules/locations/location.resolver';
import { locationView } from '../modules/locations/location.types';
import { assertPermissions } from './auth-checker';
import { GatewayContext } from './context';
import { nodeSource } from './node';
import { PAGE_SIZE_MAX } from './relay';

/**
 * Apollo Federation 2 (docs/platform.md "Federation"): `/graphql` is a subgraph a router can
 * compose with other graphs. The type-graphql schema is printed with its directives (the
 * `@key`s its entity classes carry), given the federation `@link`, and built again by
 * `@apollo/subgraph`, which adds `_service { sdl }` and `_entities(representations:)`; every
 * field keeps the resolver type-graphql built, so a client that is not a router sees the same
 * fields answer the same way, plus the two federation root fields.
 *
 * Reference resolution (`_entities`) follows the rules of every other field: the caller must be
 * an authenticated API client holding the permission the entity's own query needs
 * (UNAUTHENTICATED / FORBIDDEN otherwise, the same error as that query), and a reference is read
 * in the caller's tenant, so another tenant's key, or a key that names nothing, resolves to null.
 * One request resolves at most PAGE_SIZE_MAX representations (as `nodes(ids:)` does), each
 * priced by its selection (src/graphql/limits.ts).
 */

/** The federation version the subgraph links, and the directives it imports. */
export const FEDERATION_LINK =
  'extend schema @link(url: "https://specs.apollo.dev/federation/v2.3", import: ["@key"])';

/** How one entity type resolves a reference: its key field, and the read behind it. */
interface EntityReference {
  /** The `@key` field the representation carries (a single scalar field). */
  key: string;
  /**
   * The entity whose key is `value`, in the caller's tenant, or null. Reads through the same
   * service as the entity's own query; permissions are checked before it runs.
   */
  resolve(ctx: GatewayContext, value: string): Promise<object | null>;
}

/** Resolves a reference through the type's `node(id:)` source, whose key is the `@key` field. */
function viaNode(typename: string, key: string): EntityReference {
  return {
    key,
    resolve: (ctx, value) => nodeSource(typename)!.resolve(ctx, value),
  };
}

/**
 * The entities a router may reference, by GraphQL type name, with the key each declares in its
 * class's `@Directive('@key(fields: …)')`. A test checks the two agree.
 */
export const ENTITY_REFERENCES: Readonly<Record<string, EntityReference>> = {
  Subscriber: viaNode('Subscriber', 'msisdn'),
  Donation: viaNode('Donation', 'id'),
  Group: viaNode('Group', 'id'),
  RecurringDonation: viaNode('RecurringDonation', 'id'),
  Location: {
    key: 'name',
    async resolve(ctx, name) {
      const row = await locationByName(ctx, name);
      return row ? locationView(row) : null;
    },
  },
};

/**
 * The entity a router's representation names, in the caller's tenant, or null (another tenant's
 * key, a key that names nothing, a representation without its key).
 * @throws UnauthenticatedError / ForbiddenError as the entity's own query would.
 */
export async function resolveReference(
  ctx: GatewayContext,
  typename: string,
  representation: Record<string, unknown>,
): Promise<object | null> {
  const entity = ENTITY_REFERENCES[typename];
  assertPermissions(ctx, nodeSource(typename)?.permissions ?? []);
  const value = representation[entity.key];
  if (typeof value !== 'string' || value === '') return null;
  try {
    return await entity.resolve(ctx, value);
  } catch (err) {
    if (err instanceof NotFoundError) return null;
    throw err;
  }
}

/** A representation as a router sends it: the type name and the key fields. */
type Representation = Record<string, unknown> & { __typename?: unknown };

/** `_Any`: a representation, passed through as the router wrote it. */
const AnyScalar = new GraphQLScalarType({
  name: '_Any',
  description:
    'Apollo Federation: an entity representation, `__typename` and its `@key` fields (e.g. `{"__typename": "Subscriber", "msisdn": "31612345678"}`).',
  serialize: (value) => value,
});

/** `_Service { sdl }`: the subgraph's SDL for composition. */
const ServiceType = new GraphQLObjectType({
  name: '_Service',
  description: 'Apollo Federation: what a router reads to compose this subgraph.',
  fields: {
    sdl: {
      type: GraphQLString,
      description: "This subgraph's SDL with its federation `@link` and `@key`s, for composition.",
    },
  },
});

/**
 * The subgraph SDL `_service { sdl }` answers: the type-graphql schema printed with its applied
 * directives (the `@key`s) after the federation `@link`, without the federation's own fields
 * and types (a router adds those when it composes).
 */
export function subgraphSdl(schema: GraphQLSchema): string {
  return `${FEDERATION_LINK}\n\n${printSchemaWithDirectives(schema)}\n`;
}

/**
 * One `_entities` item: the entity the representation names, marked with its type name for the
 * `_Entity` union, or null.
 * @throws BadUserInputError for a `__typename` that is not an entity of this subgraph; the errors
 *   of {@link resolveReference}.
 */
async function entity(ctx: GatewayContext, representation: Representation): Promise<object | null> {
  const typename = representation.__typename;
  if (typeof typename !== 'string' || !(typename in ENTITY_REFERENCES))
    throw new BadUserInputError(`${String(typename)} is not an entity of this subgraph`, [
      { field: 'representations', description: 'each `__typename` must be an entity with a `@key`' },
    ]);
  const value = await resolveReference(ctx, typename, representation);
  return value && { ...value, __typename: typename };
}

/**
 * `schema` (built by type-graphql) as an Apollo Federation 2 subgraph: the same types, fields and
 * resolvers (the very objects, nothing rebuilt), plus `Query._service`, `Query._entities` and
 * their types `_Service`, `_Any`, `_Entity` (the entities of {@link ENTITY_REFERENCES}). What
 * `@apollo/subgraph`'s `buildSubgraphSchema` would build from {@link subgraphSdl}, without the
 * federation directive definitions and at a fraction of its start-up cost (it re-validates and
 * rebuilds the whole schema twice); a unit test compares the two.
 */
export function subgraphSchema(schema: GraphQLSchema): GraphQLSchema {
  const config = schema.toConfig();
  const query = schema.getQueryType()!;
  const entityUnion = new GraphQLUnionType({
    name: '_Entity',
    description: 'Apollo Federation: the entities a router can reference by their `@key`s.',
    types: Object.keys(ENTITY_REFERENCES).map((name) => schema.getType(name) as GraphQLObjectType),
    resolveType: (value: { __typename: string }) => value.__typename,
  });
  let sdl: string | undefined;
  const federatedQuery = new GraphQLObjectType({
    ...query.toConfig(),
    fields: {
      ...query.toConfig().fields,
      _entities: {
        type: new GraphQLNonNull(new GraphQLList(entityUnion)),
        description:
          "Apollo Federation (for routers): the entities these representations name, in the same order; null for each that names nothing in your tenant (another tenant's key included). Needs the permission the entity's own query needs.",
        args: {
          representations: {
            description: `Representations: \`__typename\` and the \`@key\` fields, one per entity (at most ${PAGE_SIZE_MAX}).`,
            type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(AnyScalar))),
          },
        },
        resolve: (_root, args: { representations: Representation[] }, ctx: GatewayContext) => {
          if (args.representations.length > PAGE_SIZE_MAX)
            throw new BadUserInputError(`representations must hold at most ${PAGE_SIZE_MAX} entries`, [
              { field: 'representations', description: `at most ${PAGE_SIZE_MAX} entries` },
            ]);
          return args.representations.map((r) => entity(ctx, r));
        },
      },
      _service: {
        type: new GraphQLNonNull(ServiceType),
        description: "Apollo Federation (for routers): this subgraph's SDL for composition.",
        resolve: () => ({ sdl: (sdl ??= subgraphSdl(schema)) }),
      },
    },
  });
  return new GraphQLSchema({
    ...config,
    query: federatedQuery,
    types: [...config.types.filter((t) => t !== query), federatedQuery, entityUnion, ServiceType, AnyScalar],
  });
}
