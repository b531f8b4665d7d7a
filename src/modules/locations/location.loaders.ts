import DataLoader from 'dataloader';
import { Knex } from 'knex';
import { dialectOf } from '../../db/dialect';
import { keyedLoader } from '../../lib/keyed-loader';
import {
  LocationInfoRow,
  LocationProfileRow,
  LocationRateRow,
  LocationRow,
  infoTypesByIds,
  infosByLocationIds,
  locationInfosByIds,
  locationProfilesByIds,
  locationRatesByIds,
  locationsByIds,
  locationsByNames,
  findLocation,
  profilesByLocationIds,
  ratesByLocationIds,
} from './location.store';

/** Above this many keys a batch reads the tenant's rows in one query instead of a long IN list. */
const TENANT_WIDE_ABOVE = 500;

function groupBy<T>(rows: T[], key: (r: T) => number, ids: readonly number[]): T[][] {
  const map = new Map<number, T[]>(ids.map((id) => [id, []]));
  for (const r of rows) map.get(key(r))?.push(r);
  return ids.map((id) => map.get(id) ?? []);
}

/**
 * The rates of a tenant's locations `ids`, one list per id in the same order, each ordered by id:
 * one query, reading the tenant's rates through a subquery instead of a long IN list when there
 * are more than {@link TENANT_WIDE_ABOVE} ids. The `rates` loader's batch and the REST list's
 * direct read (`LocationService.listWithRates`) share it, so both see the same rows.
 */
export async function ratesOfLocations(
  db: Knex,
  tenantId: number,
  ids: readonly number[],
): Promise<LocationRateRow[][]> {
  if (ids.length === 0) return [];
  const scope =
    ids.length > TENANT_WIDE_ABOVE ? db('locations').select('id').where({ tenant_id: tenantId }) : ids;
  return groupBy(await ratesByLocationIds(db, scope), (r) => r.locationId, ids);
}

/**
 * Per-request DataLoaders for location children (CONTRACT §7 "list fields are batched"): a
 * list of N locations costs one query per child kind, whatever N is. Built per request so no
 * cache outlives it; scoped to one tenant.
 */
export class LocationLoaders {
  constructor(
    private readonly db: Knex,
    private readonly tenantId: number,
    /** Runs before every batch query; throwing (e.g. past the GraphQL deadline) stops it. */
    private readonly beforeQuery: () => void = () => undefined,
  ) {}

  private tenantLocationIds(ids: readonly number[]): readonly number[] | Knex.QueryBuilder {
    this.beforeQuery();
    return ids.length > TENANT_WIDE_ABOVE
      ? this.db('locations').select('id').where({ tenant_id: this.tenantId })
      : ids;
  }

  readonly rates = new DataLoader<number, LocationRateRow[]>(async (ids) => {
    this.beforeQuery();
    return ratesOfLocations(this.db, this.tenantId, ids);
  });

  readonly infos = new DataLoader<number, LocationInfoRow[]>(async (ids) =>
    groupBy(await infosByLocationIds(this.db, this.tenantLocationIds(ids)), (r) => r.locationId, ids),
  );

  readonly profiles = new DataLoader<number, LocationProfileRow[]>(async (ids) =>
    groupBy(await profilesByLocationIds(this.db, this.tenantLocationIds(ids)), (r) => r.locationId, ids),
  );

  /** Rows by id, read by `read` after {@link beforeQuery} (see keyedLoader). */
  private byId<T extends { id: number }>(read: (ids: readonly number[]) => Promise<T[]>) {
    return keyedLoader(
      read,
      (r: T) => r.id,
      () => this.beforeQuery(),
    );
  }

  readonly infoTypes = this.byId(async (ids) =>
    (await infoTypesByIds(this.db, ids)).filter((t) => t.tenantId === this.tenantId),
  );

  readonly locations = this.byId(async (ids) =>
    (await locationsByIds(this.db, ids)).filter((l) => l.tenantId === this.tenantId),
  );

  /** This tenant's locations by exact name, the names of one tick in one statement. */
  private readonly byExactName = keyedLoader(
    (names: readonly string[]) => locationsByNames(this.db, this.tenantId, names),
    (r: LocationRow) => r.name,
    () => this.beforeQuery(),
  );

  /**
   * This tenant's location named `name` (federation `_entities` references to `Location`): the
   * names asked for in one tick in one statement, each answered with the row of exactly that
   * name. On MySQL/MariaDB, where the column's collation also matches a name in another letter
   * case (or with trailing spaces), a name with no exact row is then looked up alone, as the
   * single read did before, so such a reference still resolves there.
   */
  async byName(name: string): Promise<LocationRow | undefined> {
    return (
      (await this.byExactName.load(name)) ??
      (dialectOf(this.db) === 'mysql' ? findLocation(this.db, this.tenantId, name) : undefined)
    );
  }

  /** Location infos by id, this tenant's only (`node(id:)`). */
  readonly infosById = this.byId((ids) => locationInfosByIds(this.db, this.tenantId, ids));

  /** Location rates by id, this tenant's only (`node(id:)`). */
  readonly ratesById = this.byId((ids) => locationRatesByIds(this.db, this.tenantId, ids));

  /** Location profiles by id, this tenant's only (`node(id:)`). */
  readonly profilesById = this.byId((ids) => locationProfilesByIds(this.db, this.tenantId, ids));
}
