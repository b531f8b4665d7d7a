import { Arg, Ctx, Field, ID, InterfaceType, Query, Resolver } from 'type-graphql';
import { Permission } from '../auth/permissions';
import { BadUserInputError, NotFoundError } from '../errors';
import { keyedLoader } from '../lib/keyed-loader';
import { assertPermissions } from './auth-checker';
import { type GatewayContext, perRequest } from './context';
import { PAGE_SIZE_MAX } from './relay';

/**
 * Object identification (docs/graphql.md "Ids"; the GraphQL Global Object Identification
 * specification): every entity implements `Node` with an opaque, stable `id: ID!`, and
 * `node(id:)` / `nodes(ids:)` refetch any of them.
 *
 * Two forms of id, both opaque to clients:
 * - **Typed**: base64url of `<Type>:<key>` ({@link globalId}), for entities whose own key is not
 *   already an opaque id (a subscriber's MSISDN, a ledger entry's number, a location's name).
 * - **Service ids**: the 20-character random ids the service assigns to donations, groups and
 *   recurring donations (CONTRACT §1 "IDs") are their global ids as they are, so a client uses
 *   the same id in the REST paths and the graph. `node(id:)` tells them from typed ids by their
 *   shape and looks them up in the types registered with `serviceIds`.
 *
 * Scoping: every resolver below reads in the caller's tenant, so an id of another tenant's entity
 * resolves to null (never the row), and so does an id that names nothing. The permission the
 * entity's own query needs is checked first (FORBIDDEN without it, as that query would answer).
 */
@InterfaceType('Node', {
  description:
    'An object with a global id: pass `id` to `node(id:)` or `nodes(ids:)` to fetch it again. Apollo Client normalises by `__typename` + `id` with no type policies.',
  resolveType: (value: Record<string | symbol, unknown>) => value[NODE_TYPE] as string | undefined,
})
export abstract class NodeInterface {
  @Field(() => ID, { description: 'Opaque, stable global id of this object.' })
  id!: string;
}

/** Property carrying an entity's GraphQL type name, so `Node` results resolve their type. */
export const NODE_TYPE = Symbol('node type');

/** Marks `value` as an entity of GraphQL type `typename` (for `node`/`nodes` results). */
export function asNode<T extends object>(typename: string, value: T): T {
  Object.defineProperty(value, NODE_TYPE, { value: typename, enumerable: false });
  return value;
}

/** The typed global id of entity `key` of type `typename` (base64url of `<Type>:<key>`). */
export function globalId(typename: string, key: string | number): string {
  return Buffer.from(`${typename}:${key}`, 'utf8').toString('base64url');
}

/** How `node(id:)` finds one type's entities. */
export interface NodeSource {
  /** Permissions the entity's own query requires (checked before any read). */
  permissions: readonly Permission[];
  /** The entity with this key in the caller's tenant, or null. Its `id` field must be the id given. */
  resolve(ctx: GatewayContext, key: string): Promise<object | null>;
  /**
   * True for the types whose global id is the service-assigned 20-character id itself
   * (donations, groups, recurring donations); `key` is then that id.
   */
  serviceIds?: boolean;
}

const sources = new Map<string, NodeSource>();

/**
 * Registers how `node(id:)` resolves entities of `typename` (each module, beside its resolver).
 * @throws Error when the type is registered twice (a programming error at start-up).
 */
export function registerNode(typename: string, source: NodeSource): void {
  if (sources.has(typename)) throw new Error(`node type ${typename} registered twice`);
  sources.set(typename, source);
}

/**
 * How `node(id:)` and `nodes(ids:)` find one type's entities when each is a row read by a key
 * ({@link registerRowNode}): the keys asked for in one tick are read together.
 */
export interface RowNodeSource<K, R> {
  /** Permissions the entity's own query requires (checked before any read). */
  permissions: readonly Permission[];
  /** The row key a typed id's key names, or null when it cannot name one (the id is then null, nothing read). */
  key(key: string): K | null;
  /**
   * The caller's rows with these keys, in any order, keys that name nothing skipped: one
   * statement (`WHERE tenant_id = ? AND id IN (…)`) for every key of the tick.
   */
  read(ctx: GatewayContext, keys: readonly K[]): Promise<Iterable<R>>;
  /** A row's key, equal (`===`) to the key it was read by. */
  keyOf(row: R): K;
  /** The entity a row is, given the typed id's key; null when the row does not make one (then the id is null). */
  view(row: R, key: string): object | null;
}

/**
 * Registers a type whose entities are rows read by key (docs/graphql.md "Batched"): the keys
 * `node(id:)` and `nodes(ids:)` ask for in one tick go to one `read` through a per-request
 * DataLoader ({@link keyedLoader}; the same key twice is read once), which stops reading once
 * the GraphQL deadline has passed.
 * @throws Error when the type is registered twice (a programming error at start-up).
 */
export function registerRowNode<K, R>(typename: string, source: RowNodeSource<K, R>): void {
  const loaderOf = (ctx: GatewayContext) =>
    perRequest(ctx, `node:${typename}`, () =>
      keyedLoader(
        (keys: readonly K[]) => source.read(ctx, keys),
        source.keyOf,
        () => ctx.budget?.check(),
      ),
    );
  registerNode(typename, {
    permissions: source.permissions,
    async resolve(ctx, key) {
      const k = source.key(key);
      const row = k === null ? undefined : await loaderOf(ctx).load(k);
      return row === undefined ? null : source.view(row, key);
    },
  });
}

/** The key of a typed id whose key is a row id: a positive integer as ids write it, else null. */
export function rowIdKey(key: string): number | null {
  return /^[1-9]\d{0,14}$/.test(key) ? Number(key) : null;
}

/** How `node(id:)` resolves entities of `typename`, or undefined when none is registered. */
export function nodeSource(typename: string): NodeSource | undefined {
  return sources.get(typename);
}

/** The type names `node(id:)` resolves (for the schema-walk test). */
export function registeredNodeTypes(): string[] {
  return [...sources.keys()];
}

/** Shape of a service-assigned id (CONTRACT §1: 20 URL-safe characters). */
const SERVICE_ID = /^[A-Za-z0-9_-]{20}$/;

/** Decodes a typed global id to its type and key; null when `id` is not one. */
export function parseGlobalId(id: string): { typename: string; key: string } | null {
  if (id.length > 1024 || !/^[A-Za-z0-9_-]+$/.test(id)) return null;
  const text = Buffer.from(id, 'base64url').toString('utf8');
  const colon = text.indexOf(':');
  if (colon < 1) return null;
  const typename = text.slice(0, colon);
  return sources.has(typename) && !sources.get(typename)!.serviceIds
    ? { typename, key: text.slice(colon + 1) }
    : null;
}

/**
 * The entity a global id names, in the caller's tenant, or null.
 * @throws UnauthenticatedError / ForbiddenError as the entity's own query would.
 */
export async function resolveNode(ctx: GatewayContext, id: string): Promise<object | null> {
  const typed = parseGlobalId(id);
  if (typed) {
    const source = sources.get(typed.typename)!;
    assertPermissions(ctx, source.permissions);
    const value = await source.resolve(ctx, typed.key);
    return value && asNode(typed.typename, value);
  }
  if (!SERVICE_ID.test(id)) return null;
  for (const [typename, source] of sources) {
    if (!source.serviceIds) continue;
    if (ctx.client && !source.permissions.every((p) => ctx.client!.permissions.has(p))) continue;
    const value = await source.resolve(ctx, id).catch((err: unknown) => {
      if (err instanceof NotFoundError) return null;
      throw err;
    });
    if (value) return asNode(typename, value);
  }
  assertPermissions(ctx, []);
  return null;
}

/** `node` and `nodes`: refetch any entity by its global id. */
@Resolver()
export class NodeResolver {
  @Query(() => NodeInterface, {
    nullable: true,
    description:
      "The object with this global id, or null when it names nothing in your tenant (another tenant's id included). Needs the permission the object's own query needs.",
  })
  node(
    @Arg('id', () => ID, { description: 'A global id, as an object returned it in `id`.' }) id: string,
    @Ctx() ctx: GatewayContext,
  ): Promise<object | null> {
    return resolveNode(ctx, id);
  }

  @Query(() => [NodeInterface], {
    nullable: 'items',
    description: `The objects with these global ids, in the same order; null for each id that names nothing in your tenant. At most ${PAGE_SIZE_MAX} ids.`,
  })
  async nodes(
    @Arg('ids', () => [ID], { description: `Global ids (1-${PAGE_SIZE_MAX}).` }) ids: string[],
    @Ctx() ctx: GatewayContext,
  ): Promise<(object | null)[]> {
    if (ids.length < 1 || ids.length > PAGE_SIZE_MAX)
      throw new BadUserInputError(`ids must hold 1-${PAGE_SIZE_MAX} ids`, [
        { field: 'ids', description: `must hold 1-${PAGE_SIZE_MAX} ids` },
      ]);
    return Promise.all(ids.map((id) => resolveNode(ctx, id)));
  }
}
