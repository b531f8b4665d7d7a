import { Arg, Authorized, Ctx, FieldResolver, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
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
  ): Promise<Array<LocationRow | Promise<LocationRow>>> {
    // An omitted nullable argument arrives as undefined.
    const rows = await ctx.services.locations.list(callerOf(ctx).tenantId, name ?? null);
    await checkpoint(ctx);
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
  ): Promise<LocationConnectionType> {
    const page = await ctx.services.locations.page(
      callerOf(ctx).tenantId,
      first,
      after ?? null,
      name ?? null,
    );
    await checkpoint(ctx);
    const edges = page.rows.map((node) => ({ cursor: encodeCursor(node.id), node }));
    return {
      // Up to 500 edges: completed a chunk per event-loop turn (src/graphql/limits.ts).
      edges: yieldingList(ctx, edges) as LocationConnectionType['edges'],
      pageInfo: { hasNextPage: page.hasNextPage, endCursor: edges.at(-1)?.cursor ?? null },
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
