import { FieldNode, GraphQLResolveInfo, SelectionSetNode } from 'graphql';
import {
  Arg,
  Authorized,
  Ctx,
  FieldResolver,
  Info,
  Int,
  Mutation,
  Query,
  Resolver,
  Root,
} from 'type-graphql';
import { Permission } from '../../auth/permissions';
import { GatewayContext, callerOf, perRequest } from '../../graphql/context';
import { MAX_PAGE_SIZE, checkpoint, yieldingList } from '../../graphql/limits';
import { LocationLoaders } from './location.loaders';
import { encodeCursor } from './location.service';
import { LocationInfoRow, LocationRow } from './location.store';
import {
  LocationConnectionType,
  LocationGqlType,
  LocationInfoGqlType,
  LocationInfoTypeInput,
  LocationInfoTypeType,
  LocationInput,
  LocationProfileType,
  LocationRateType,
} from './location.types';

const READ = Permission.PCRF_LOCATION_READ_PERMISSION;

function loaders(ctx: GatewayContext): LocationLoaders {
  const { tenantId } = callerOf(ctx);
  // The loaders stop querying once the GraphQL deadline has passed.
  return perRequest(ctx, 'locations', () =>
    ctx.services.locations.loaders(tenantId, () => ctx.budget?.check()),
  );
}

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

/**
 * Starts loading the children a long list selects, for all its locations at once, so that
 * handing the list over chunk by chunk ({@link yieldingList}) keeps one query per child kind.
 */
async function primeChildren(
  ctx: GatewayContext,
  rows: readonly LocationRow[],
  selected: Set<string>,
): Promise<void> {
  if (rows.length <= 1) return;
  const ids = rows.map((r) => r.id);
  const l = loaders(ctx);
  for (const kind of ['rates', 'infos', 'profiles'] as const) {
    if (!selected.has(kind)) continue;
    // loadMany never rejects: a failed load reaches the resolvers that read the same keys.
    await l[kind].loadMany(ids);
    await checkpoint(ctx);
  }
}

/** Awaits a child list, yields (and checks the deadline), then hands it over chunk by chunk. */
async function childList<T>(ctx: GatewayContext, rows: Promise<T[]>): Promise<Array<T | Promise<T>>> {
  const list = await rows;
  await checkpoint(ctx);
  return yieldingList(ctx, list);
}

/** Location reads and ADMIN provisioning (CONTRACT §6–7); rules in LocationService. */
@Resolver(() => LocationGqlType)
export class LocationResolver {
  @Authorized(READ)
  @Query(() => [LocationGqlType], {
    description:
      'The legacy location list (GET /pcc/pcrf/locations): every location ordered by id, or the one named `name` (NOT_FOUND when absent). Needs PCRF_LOCATION_READ_PERMISSION.',
  })
  async locationList(
    @Arg('name', () => String, { nullable: true, description: 'Only the location with this name.' })
    name: string | null,
    @Ctx() ctx: GatewayContext,
    @Info() info: GraphQLResolveInfo,
  ): Promise<Array<LocationRow | Promise<LocationRow>>> {
    // An omitted nullable argument arrives as undefined.
    const rows = await ctx.services.locations.list(callerOf(ctx).tenantId, name ?? null);
    await checkpoint(ctx);
    await primeChildren(ctx, rows, selectedAt(info, []));
    // Thousands of locations: built a chunk per event-loop turn (src/graphql/limits.ts).
    return yieldingList(ctx, rows);
  }

  @Authorized(READ)
  @Query(() => LocationConnectionType, {
    description: 'Locations ordered by id, a page at a time. Needs PCRF_LOCATION_READ_PERMISSION.',
  })
  async locations(
    @Arg('first', () => Int, { defaultValue: 50, description: `Page size, 1-${MAX_PAGE_SIZE}.` })
    first: number,
    @Arg('after', () => String, { nullable: true, description: 'Cursor of the last location already seen.' })
    after: string | null,
    @Arg('name', () => String, { nullable: true, description: 'Only the location with this name.' })
    name: string | null,
    @Ctx() ctx: GatewayContext,
    @Info() info: GraphQLResolveInfo,
  ): Promise<LocationConnectionType> {
    const page = await ctx.services.locations.page(
      callerOf(ctx).tenantId,
      first,
      after ?? null,
      name ?? null,
    );
    await checkpoint(ctx);
    await primeChildren(ctx, page.rows, selectedAt(info, ['edges', 'node']));
    const edges = page.rows.map((node) => ({ cursor: encodeCursor(node.id), node }));
    return {
      // Up to 500 edges: completed a chunk per event-loop turn (src/graphql/limits.ts).
      edges: yieldingList(ctx, edges) as LocationConnectionType['edges'],
      pageInfo: {
        hasNextPage: page.hasNextPage,
        hasPreviousPage: after != null,
        startCursor: edges[0]?.cursor ?? null,
        endCursor: edges.at(-1)?.cursor ?? null,
      },
      totalCount: page.totalCount,
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
  ): Promise<LocationRow | null> {
    return (await ctx.services.locations.find(callerOf(ctx).tenantId, name)) ?? null;
  }

  @Authorized(READ)
  @Query(() => LocationInfoGqlType, {
    nullable: true,
    description: 'A location info by name, or null. Needs PCRF_LOCATION_READ_PERMISSION.',
  })
  async locationInfo(
    @Arg('name', () => String, { description: 'The location info name.' }) name: string,
    @Ctx() ctx: GatewayContext,
  ): Promise<LocationInfoRow | null> {
    return (await ctx.services.locations.findInfo(callerOf(ctx).tenantId, name)) ?? null;
  }

  @FieldResolver(() => [LocationRateType], { description: 'The location rates, ordered by id.' })
  rates(@Root() location: LocationRow, @Ctx() ctx: GatewayContext) {
    return childList(ctx, loaders(ctx).rates.load(location.id));
  }

  @FieldResolver(() => [LocationInfoGqlType], { description: 'The location infos, ordered by id.' })
  infos(@Root() location: LocationRow, @Ctx() ctx: GatewayContext) {
    return childList(ctx, loaders(ctx).infos.load(location.id));
  }

  @FieldResolver(() => [LocationProfileType], { description: 'The location profiles, ordered by id.' })
  profiles(@Root() location: LocationRow, @Ctx() ctx: GatewayContext) {
    return childList(ctx, loaders(ctx).profiles.load(location.id));
  }

  @Authorized(Permission.ADMIN)
  @Mutation(() => LocationGqlType, {
    description: 'Creates or updates a location and its children (by name). Needs ADMIN.',
  })
  upsertLocation(
    @Arg('input', () => LocationInput, { description: 'The location.' }) input: LocationInput,
    @Ctx() ctx: GatewayContext,
  ): Promise<LocationRow> {
    const child = <T extends { description?: string | null }>(xs: T[] | null | undefined) =>
      xs?.map((x) => ({ ...x, description: x.description ?? null }));
    return ctx.services.locations.upsert(callerOf(ctx).tenantId, {
      name: input.name,
      description: input.description ?? null,
      rates: child(input.rates),
      infos: child(input.infos),
      profiles: child(input.profiles),
    });
  }

  @Authorized(Permission.ADMIN)
  @Mutation(() => Boolean, {
    description:
      'Deletes a location with its rates, infos and profiles; false when it did not exist. Needs ADMIN.',
  })
  deleteLocation(
    @Arg('name', () => String, { description: 'The location name.' }) name: string,
    @Ctx() ctx: GatewayContext,
  ): Promise<boolean> {
    return ctx.services.locations.delete(callerOf(ctx).tenantId, name);
  }

  @Authorized(Permission.ADMIN)
  @Mutation(() => LocationInfoTypeType, {
    description: 'Creates or updates a location info type (by name). Needs ADMIN.',
  })
  upsertLocationInfoType(
    @Arg('input', () => LocationInfoTypeInput, { description: 'The type.' }) input: LocationInfoTypeInput,
    @Ctx() ctx: GatewayContext,
  ) {
    return ctx.services.locations.upsertInfoType(callerOf(ctx).tenantId, {
      id: input.id ?? undefined,
      name: input.name,
      value: input.value,
    });
  }
}

/** Links from a location info to its type and location, batched. */
@Resolver(() => LocationInfoGqlType)
export class LocationInfoResolver {
  @FieldResolver(() => LocationInfoTypeType, { description: 'The kind of information.' })
  async type(@Root() info: LocationInfoRow, @Ctx() ctx: GatewayContext) {
    const type = await loaders(ctx).infoTypes.load(info.typeId);
    await checkpoint(ctx);
    return type;
  }

  @FieldResolver(() => LocationGqlType, { description: 'The location this info belongs to.' })
  async location(@Root() info: LocationInfoRow, @Ctx() ctx: GatewayContext) {
    const location = await loaders(ctx).locations.load(info.locationId);
    await checkpoint(ctx);
    return location;
  }
}
