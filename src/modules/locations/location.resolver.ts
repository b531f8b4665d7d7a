import { FieldNode, GraphQLResolveInfo, SelectionSetNode } from 'graphql';
import {
  Arg,
  Args,
  Authorized,
  Ctx,
  FieldResolver,
  Info,
  Mutation,
  Query,
  Resolver,
  Root,
} from 'type-graphql';
import { Permission } from '../../auth/permissions';
import { BadUserInputError, DomainError } from '../../errors';
import { GatewayContext, callerOf, perRequest } from '../../graphql/context';
import { checkpoint, yieldingList } from '../../graphql/limits';
import { globalId, registerNode, rowIdKey } from '../../graphql/node';
import { UserError, mutationPayload } from '../../graphql/payload';
import {
  Connection,
  ConnectionArgs,
  CursorCodec,
  connectionFromArray,
  connectionFromRows,
  pageRequest,
} from '../../graphql/relay';
import { LocationLoaders } from './location.loaders';
import { LocationRefusal, refusalOf } from './location.service';
import { LocationRow } from './location.store';
import {
  DeleteLocationPayload,
  DeleteLocationRefusal,
  INFO_CURSOR,
  LOCATION_CURSOR,
  LOCATION_NODE,
  LocationConnection,
  LocationGqlType,
  LocationInfoConnection,
  LocationInfoGqlType,
  LocationInfoTypeInput,
  LocationInfoTypeType,
  LocationInput,
  LocationProfileConnection,
  LocationProfileType,
  LocationRateConnection,
  LocationRateType,
  PROFILE_CURSOR,
  RATE_CURSOR,
  UpsertLocationInfoTypePayload,
  UpsertLocationPayload,
  infoTypeView,
  infoView,
  locationView,
  profileView,
  rateView,
} from './location.types';

const READ = Permission.PCRF_LOCATION_READ_PERMISSION;

function loaders(ctx: GatewayContext): LocationLoaders {
  const { tenantId } = callerOf(ctx);
  // The loaders stop querying once the GraphQL deadline has passed.
  return perRequest(ctx, 'locations', () =>
    ctx.services.locations.loaders(tenantId, () => ctx.budget?.check()),
  );
}

/**
 * The caller's location named `name` (exactly; on MySQL/MariaDB as the column's collation
 * compares), or undefined: a federation reference to `Location` (src/graphql/federation.ts), read
 * with the other names asked for in the same tick in one statement (LocationLoaders.byName).
 * @throws UnauthenticatedError without credentials; whatever the deadline check throws.
 */
export function locationByName(ctx: GatewayContext, name: string): Promise<LocationRow | undefined> {
  return loaders(ctx).byName(name);
}

/**
 * Registers one location entity type with `node(id:)`: key = row id, read through the caller's
 * tenant-scoped loader (another tenant's or an unknown row → null), mapped by the same view.
 */
function registerLocationNode<R>(
  typename: string,
  load: (l: LocationLoaders, id: number) => Promise<R | undefined>,
  view: (row: R) => object,
): void {
  registerNode(typename, {
    permissions: [READ],
    async resolve(ctx, key) {
      const id = rowIdKey(key);
      const row = id === null ? undefined : await load(loaders(ctx), id);
      return row ? view(row) : null;
    },
  });
}

registerLocationNode(LOCATION_NODE.location, (l, id) => l.locations.load(id), locationView);
registerLocationNode(LOCATION_NODE.info, (l, id) => l.infosById.load(id), infoView);
registerLocationNode(LOCATION_NODE.rate, (l, id) => l.ratesById.load(id), rateView);
registerLocationNode(LOCATION_NODE.profile, (l, id) => l.profilesById.load(id), profileView);
registerLocationNode(LOCATION_NODE.infoType, (l, id) => l.infoTypes.load(id), infoTypeView);

/** Names of the fields selected at `path` below the resolved field (fragments included). */
function selectedAt(info: GraphQLResolveInfo, path: readonly string[]): Set<string> {
  const names = new Set<string>();
  const walk = (set: SelectionSetNode | undefined, depth: number): void => {
    for (const s of set?.selections ?? []) {
      if (s.kind === 'InlineFragment') walk(s.selectionSet, depth);
      else if (s.kind === 'FragmentSpread') walk(info.fragments[s.name.value]?.selectionSet, depth);
      else if (depth === path.length) names.add(s.name.value);
      else if (s.name.value === path[depth]) walk((s as FieldNode).selectionSet, depth + 1);
    }
  };
  for (const node of info.fieldNodes) walk(node.selectionSet, 0);
  return names;
}

/** The loader each child field (connection or legacy list) reads. */
const CHILD_LOADERS = [
  ['rates', 'rateList', 'rates'],
  ['infos', 'infoList', 'infos'],
  ['profiles', 'profileList', 'profiles'],
] as const;

/**
 * Starts loading the children a long list selects, for all its locations at once, so that
 * handing the list over chunk by chunk ({@link yieldingList}) keeps one query per child kind.
 */
async function primeChildren(
  ctx: GatewayContext,
  rows: readonly LocationGqlType[],
  selected: Set<string>,
): Promise<void> {
  if (rows.length <= 1) return;
  const ids = rows.map((r) => r.locationId);
  const l = loaders(ctx);
  for (const [connection, list, kind] of CHILD_LOADERS) {
    if (!selected.has(connection) && !selected.has(list)) continue;
    // loadMany never rejects: a failed load reaches the resolvers that read the same keys.
    await l[kind].loadMany(ids);
    await checkpoint(ctx);
  }
}

/** Awaits a child list, yields (and checks the deadline), then hands it over chunk by chunk. */
async function childList<R, V>(
  ctx: GatewayContext,
  rows: Promise<R[]>,
  view: (row: R) => V,
): Promise<Array<V | Promise<V>>> {
  const list = (await rows).map(view);
  await checkpoint(ctx);
  return yieldingList(ctx, list);
}

/**
 * A page of a location's children: the whole list is read once per request for every location
 * of the answer (one query per child kind, batched), then paged in memory. A location's children
 * are bounded (a roaming zone's infos are one per network of its region: hundreds), so holding
 * the list whole is cheap and keeps the batching.
 */
async function childConnection<R extends { id: number }, V>(
  ctx: GatewayContext,
  paging: ConnectionArgs,
  codec: CursorCodec<number>,
  rows: Promise<R[]>,
  view: (row: R) => V,
): Promise<Connection<V>> {
  const page = pageRequest(paging, codec);
  const all = await rows;
  await checkpoint(ctx);
  const connection = connectionFromArray(
    all,
    page,
    codec,
    (r) => r.id,
    (a, b) => a - b,
  );
  return { ...connection, edges: connection.edges.map((e) => ({ cursor: e.cursor, node: view(e.node) })) };
}

/**
 * Runs a provisioning mutation and builds its payload ({@link mutationPayload}), with each
 * offending field's own code ({@link refusalOf}) rather than one code for the whole refusal.
 */
async function provisioningPayload<R, P extends object>(
  ctx: GatewayContext,
  work: () => Promise<R>,
  ok: (result: R) => P,
): Promise<Partial<P> & { userErrors: UserError<LocationRefusal>[] }> {
  let refused: DomainError | undefined;
  const payload = await mutationPayload(ctx, work, ok, 'LocationUserError', (err): LocationRefusal => {
    refused = err;
    return LocationRefusal.INVALID_VALUE;
  });
  const fields = (refused?.extensions.fields as { field: string; description: string }[] | undefined) ?? [];
  // userErrorsOf lists one entry per field, in the error's order.
  if (fields.length === payload.userErrors.length)
    payload.userErrors.forEach((e, i) => (e.code = refusalOf(fields[i])));
  return payload;
}

/** Location reads and ADMIN provisioning (CONTRACT §6–7); rules in LocationService. */
@Resolver(() => LocationGqlType)
export class LocationResolver {
  @Authorized(READ)
  @Query(() => [LocationGqlType], {
    deprecationReason: 'use locations (a connection; `name` filters it the same way)',
    description:
      'The legacy location list (GET /pcc/pcrf/locations): every location ordered by id, unpaged, or the one named `name` (NOT_FOUND when absent). Needs PCRF_LOCATION_READ_PERMISSION.',
  })
  async locationList(
    @Arg('name', () => String, { nullable: true, description: 'Only the location with this name.' })
    name: string | null,
    @Ctx() ctx: GatewayContext,
    @Info() info: GraphQLResolveInfo,
  ): Promise<Array<LocationGqlType | Promise<LocationGqlType>>> {
    // An omitted nullable argument arrives as undefined.
    const rows = await ctx.services.locations.list(callerOf(ctx).tenantId, name ?? null);
    await checkpoint(ctx);
    const views = rows.map(locationView);
    await primeChildren(ctx, views, selectedAt(info, []));
    // Thousands of locations: built a chunk per event-loop turn (src/graphql/limits.ts).
    return yieldingList(ctx, views);
  }

  @Authorized(READ)
  @Query(() => LocationConnection.Connection, {
    description:
      "Your tenant's locations ordered by id, a page at a time (Relay: `first`/`after` forward, `last`/`before` backward). Needs PCRF_LOCATION_READ_PERMISSION.",
  })
  async locations(
    @Args() paging: ConnectionArgs,
    @Arg('name', () => String, {
      nullable: true,
      description: 'Only the location with this name (a page of zero or one location).',
    })
    name: string | null,
    @Ctx() ctx: GatewayContext,
    @Info() info: GraphQLResolveInfo,
  ): Promise<Connection<LocationGqlType>> {
    const page = pageRequest(paging, LOCATION_CURSOR);
    const read = await ctx.services.locations.page(callerOf(ctx).tenantId, page, name ?? null);
    await checkpoint(ctx);
    const connection = connectionFromRows(
      read.rows,
      page,
      LOCATION_CURSOR,
      (r: LocationRow) => r.id,
      read.totalCount,
    );
    const edges = connection.edges.map((e) => ({ cursor: e.cursor, node: locationView(e.node) }));
    await primeChildren(
      ctx,
      edges.map((e) => e.node),
      selectedAt(info, ['edges', 'node']),
    );
    return {
      ...connection,
      // Up to 500 edges: completed a chunk per event-loop turn (src/graphql/limits.ts).
      edges: yieldingList(ctx, edges) as typeof edges,
    };
  }

  @Authorized(READ)
  @Query(() => LocationGqlType, {
    nullable: true,
    description: 'A location by name, or null. Needs PCRF_LOCATION_READ_PERMISSION.',
  })
  async location(
    @Arg('name', () => String, { description: 'The location name.' }) name: string,
    @Ctx() ctx: GatewayContext,
  ): Promise<LocationGqlType | null> {
    const row = await ctx.services.locations.find(callerOf(ctx).tenantId, name);
    return row ? locationView(row) : null;
  }

  @Authorized(READ)
  @Query(() => LocationInfoGqlType, {
    nullable: true,
    description: 'A location info by name, or null. Needs PCRF_LOCATION_READ_PERMISSION.',
  })
  async locationInfo(
    @Arg('name', () => String, { description: 'The location info name.' }) name: string,
    @Ctx() ctx: GatewayContext,
  ): Promise<LocationInfoGqlType | null> {
    const row = await ctx.services.locations.findInfo(callerOf(ctx).tenantId, name);
    return row ? infoView(row) : null;
  }

  @FieldResolver(() => LocationRateConnection.Connection, {
    description: 'The location rates, ordered by id, a page at a time.',
  })
  rates(@Root() location: LocationGqlType, @Args() paging: ConnectionArgs, @Ctx() ctx: GatewayContext) {
    return childConnection(ctx, paging, RATE_CURSOR, loaders(ctx).rates.load(location.locationId), rateView);
  }

  @FieldResolver(() => LocationInfoConnection.Connection, {
    description:
      'The location infos (e.g. one PLMN ID per network of a roaming zone), ordered by id, a page at a time.',
  })
  infos(@Root() location: LocationGqlType, @Args() paging: ConnectionArgs, @Ctx() ctx: GatewayContext) {
    return childConnection(ctx, paging, INFO_CURSOR, loaders(ctx).infos.load(location.locationId), infoView);
  }

  @FieldResolver(() => LocationProfileConnection.Connection, {
    description: 'The location profiles, ordered by id, a page at a time.',
  })
  profiles(@Root() location: LocationGqlType, @Args() paging: ConnectionArgs, @Ctx() ctx: GatewayContext) {
    return childConnection(
      ctx,
      paging,
      PROFILE_CURSOR,
      loaders(ctx).profiles.load(location.locationId),
      profileView,
    );
  }

  @FieldResolver(() => [LocationRateType], {
    deprecationReason: 'use rates (a connection)',
    description: 'Every rate of the location, ordered by id, unpaged (what the legacy REST rows read).',
  })
  rateList(@Root() location: LocationGqlType, @Ctx() ctx: GatewayContext) {
    return childList(ctx, loaders(ctx).rates.load(location.locationId), rateView);
  }

  @FieldResolver(() => [LocationInfoGqlType], {
    deprecationReason: 'use infos (a connection)',
    description: 'Every info of the location, ordered by id, unpaged (what the legacy REST rows read).',
  })
  infoList(@Root() location: LocationGqlType, @Ctx() ctx: GatewayContext) {
    return childList(ctx, loaders(ctx).infos.load(location.locationId), infoView);
  }

  @FieldResolver(() => [LocationProfileType], {
    deprecationReason: 'use profiles (a connection)',
    description: 'Every profile of the location, ordered by id, unpaged (what the legacy REST rows read).',
  })
  profileList(@Root() location: LocationGqlType, @Ctx() ctx: GatewayContext) {
    return childList(ctx, loaders(ctx).profiles.load(location.locationId), profileView);
  }

  @Authorized(Permission.ADMIN)
  @Mutation(() => UpsertLocationPayload, {
    description:
      'Creates or updates a location and its children (by name). Refusals (bad names, duplicate child names, an unknown info type) are `userErrors`; nothing is written then. Needs ADMIN.',
  })
  upsertLocation(
    @Arg('input', () => LocationInput, { description: 'The location.' }) input: LocationInput,
    @Ctx() ctx: GatewayContext,
  ): Promise<Partial<UpsertLocationPayload>> {
    const child = <T extends { description?: string | null }>(xs: T[] | null | undefined) =>
      xs?.map((x) => ({ ...x, description: x.description ?? null }));
    return provisioningPayload(
      ctx,
      () =>
        ctx.services.locations.upsert(callerOf(ctx).tenantId, {
          name: input.name,
          description: input.description ?? null,
          rates: child(input.rates),
          infos: child(input.infos),
          profiles: child(input.profiles),
        }),
      (row) => ({ location: locationView(row) }),
    );
  }

  @Authorized(Permission.ADMIN)
  @Mutation(() => DeleteLocationPayload, {
    description:
      'Deletes a location with its rates, infos and profiles. An unknown name is the `userErrors` code LOCATION_NOT_FOUND. Needs ADMIN.',
  })
  deleteLocation(
    @Arg('name', () => String, { description: 'The location name.' }) name: string,
    @Ctx() ctx: GatewayContext,
  ): Promise<Partial<DeleteLocationPayload>> {
    return mutationPayload(
      ctx,
      () => ctx.services.locations.delete(callerOf(ctx).tenantId, name),
      (row) => ({ deletedLocationId: globalId(LOCATION_NODE.location, row.id) }),
      'DeleteLocationUserError',
      () => DeleteLocationRefusal.LOCATION_NOT_FOUND,
      null,
    );
  }

  @Authorized(Permission.ADMIN)
  @Mutation(() => UpsertLocationInfoTypePayload, {
    description:
      "Creates or updates a location info type (by name). Refusals (a bad name or value, a numeric id that is not this type's) are `userErrors`. Needs ADMIN.",
  })
  async upsertLocationInfoType(
    @Arg('input', () => LocationInfoTypeInput, { description: 'The type.' }) input: LocationInfoTypeInput,
    @Ctx() ctx: GatewayContext,
  ): Promise<Partial<UpsertLocationInfoTypePayload>> {
    const payload = await provisioningPayload(
      ctx,
      async () => {
        const { id, locationInfoTypeId } = input;
        if (id != null && locationInfoTypeId != null && id !== locationInfoTypeId)
          throw new BadUserInputError('id and locationInfoTypeId differ', [
            { field: 'locationInfoTypeId', description: 'must equal the deprecated id when both are given' },
          ]);
        return ctx.services.locations.upsertInfoType(callerOf(ctx).tenantId, {
          id: locationInfoTypeId ?? id ?? undefined,
          name: input.name,
          value: input.value,
        });
      },
      (row) => ({ locationInfoType: infoTypeView(row) }),
    );
    // The service names the numeric id `id` (the dataset's name); point at the field the caller used.
    if (input.id == null)
      for (const e of payload.userErrors)
        if (e.field?.[1] === 'id') e.field = ['input', 'locationInfoTypeId'];
    return payload;
  }
}

/** Links from a location info to its type and location, batched. */
@Resolver(() => LocationInfoGqlType)
export class LocationInfoResolver {
  @FieldResolver(() => LocationInfoTypeType, { description: 'The kind of information.' })
  async type(@Root() info: LocationInfoGqlType, @Ctx() ctx: GatewayContext) {
    const type = await loaders(ctx).infoTypes.load(info.typeRowId);
    await checkpoint(ctx);
    return type && infoTypeView(type);
  }

  @FieldResolver(() => LocationGqlType, { description: 'The location this info belongs to.' })
  async location(@Root() info: LocationInfoGqlType, @Ctx() ctx: GatewayContext) {
    const location = await loaders(ctx).locations.load(info.locationRowId);
    await checkpoint(ctx);
    return location && locationView(location);
  }
}
