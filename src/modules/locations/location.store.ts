import { Knex } from 'knex';
import { KeysetPage, byId, keysetPage } from '../../db/keyset';

/** A location row (CONTRACT §6). */
export interface LocationRow {
  id: number;
  tenantId: number;
  name: string;
  description: string | null;
}

/** A location rate row (a `locationRates[]` element, CONTRACT §6). */
export interface LocationRateRow {
  id: number;
  locationId: number;
  name: string;
  description: string | null;
  locationRate: number;
}

/** A location info type row (an info's `locationInfoType`, CONTRACT §6), e.g. `PLMNID`. */
export interface LocationInfoTypeRow {
  id: number;
  tenantId: number;
  name: string;
  value: number;
}

/** A location info row (CONTRACT §6): `value` is the information itself, e.g. an MCC+MNC. */
export interface LocationInfoRow {
  id: number;
  tenantId: number;
  locationId: number;
  typeId: number;
  name: string;
  description: string | null;
  value: string;
}

/** A location profile row. */
export interface LocationProfileRow {
  id: number;
  locationId: number;
  name: string;
  description: string | null;
}

/** Location ids as a list or as a subquery selecting them. */
export type LocationIds = readonly number[] | Knex.QueryBuilder;

const idList = (ids: LocationIds): number[] | Knex.QueryBuilder =>
  Array.isArray(ids) ? [...ids] : (ids as Knex.QueryBuilder);

const nullable = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));

const toLocation = (r: Record<string, unknown>): LocationRow => ({
  id: Number(r.id),
  tenantId: Number(r.tenant_id),
  name: String(r.name),
  description: nullable(r.description),
});
const toRate = (r: Record<string, unknown>): LocationRateRow => ({
  id: Number(r.id),
  locationId: Number(r.location_id),
  name: String(r.name),
  description: nullable(r.description),
  locationRate: Number(r.location_rate),
});
const toType = (r: Record<string, unknown>): LocationInfoTypeRow => ({
  id: Number(r.id),
  tenantId: Number(r.tenant_id),
  name: String(r.name),
  value: Number(r.value),
});
const toInfo = (r: Record<string, unknown>): LocationInfoRow => ({
  id: Number(r.id),
  tenantId: Number(r.tenant_id),
  locationId: Number(r.location_id),
  typeId: Number(r.type_id),
  name: String(r.name),
  description: nullable(r.description),
  value: String(r.value),
});
const toProfile = (r: Record<string, unknown>): LocationProfileRow => ({
  id: Number(r.id),
  locationId: Number(r.location_id),
  name: String(r.name),
  description: nullable(r.description),
});

/** The columns of a {@link LocationRow}, as every read of `locations` selects them. */
const LOCATION_COLUMNS = ['id', 'tenant_id', 'name', 'description'];

/**
 * A tenant's locations ordered by id: all of them, those named `name`, or with `page` one keyset
 * page of them (src/db/keyset.ts: up to `limit + 1` rows in the paging direction).
 */
export async function listLocations(
  db: Knex,
  tenantId: number,
  opts: { name?: string; page?: KeysetPage<number> } = {},
): Promise<LocationRow[]> {
  const q = db('locations').select(LOCATION_COLUMNS).where({ tenant_id: tenantId });
  if (opts.name !== undefined) q.andWhere({ name: opts.name });
  if (opts.page) keysetPage(q, opts.page, byId(), 'asc');
  else q.orderBy('id');
  return (await q).map(toLocation);
}

/** Number of a tenant's locations (optionally only those named `name`). */
export async function countLocations(db: Knex, tenantId: number, name?: string): Promise<number> {
  const q = db('locations').count({ n: '*' }).where({ tenant_id: tenantId });
  if (name !== undefined) q.andWhere({ name });
  return Number((await q.first())?.n ?? 0);
}

/** A tenant's location by name. */
export async function findLocation(
  db: Knex,
  tenantId: number,
  name: string,
): Promise<LocationRow | undefined> {
  return (await listLocations(db, tenantId, { name }))[0];
}

/**
 * A tenant's locations named any of `names` (DataLoader batch for federation references), in one
 * statement. Names compare as the column does: exactly on SQLite, by its collation on
 * MySQL/MariaDB (letter case and trailing spaces ignored), so a row may come back under a name
 * other than the one asked for there.
 */
export async function locationsByNames(
  db: Knex,
  tenantId: number,
  names: readonly string[],
): Promise<LocationRow[]> {
  return (
    await db('locations')
      .select(LOCATION_COLUMNS)
      .where({ tenant_id: tenantId })
      .whereIn('name', [...names])
  ).map(toLocation);
}

/** Locations by id (DataLoader batch), any tenant: callers reach ids only through their own tenant's rows. */
export async function locationsByIds(db: Knex, ids: readonly number[]): Promise<LocationRow[]> {
  return (
    await db('locations')
      .select(LOCATION_COLUMNS)
      .whereIn('id', [...ids])
  ).map(toLocation);
}

/** A tenant's location infos by id (DataLoader batch for `node(id:)`); other tenants' ids are absent. */
export async function locationInfosByIds(
  db: Knex,
  tenantId: number,
  ids: readonly number[],
): Promise<LocationInfoRow[]> {
  return (
    await db('location_infos')
      .select('id', 'tenant_id', 'location_id', 'type_id', 'name', 'description', 'value')
      .where({ tenant_id: tenantId })
      .whereIn('id', [...ids])
  ).map(toInfo);
}

/**
 * A tenant's location rates by id (DataLoader batch for `node(id:)`), through their location's
 * tenant; other tenants' ids are absent.
 */
export async function locationRatesByIds(
  db: Knex,
  tenantId: number,
  ids: readonly number[],
): Promise<LocationRateRow[]> {
  return (
    await db('location_rates as r')
      .join('locations as l', 'l.id', 'r.location_id')
      .select('r.id', 'r.location_id', 'r.name', 'r.description', 'r.location_rate')
      .where('l.tenant_id', tenantId)
      .whereIn('r.id', [...ids])
  ).map(toRate);
}

/**
 * A tenant's location profiles by id (DataLoader batch for `node(id:)`), through their
 * location's tenant; other tenants' ids are absent.
 */
export async function locationProfilesByIds(
  db: Knex,
  tenantId: number,
  ids: readonly number[],
): Promise<LocationProfileRow[]> {
  return (
    await db('location_profiles as p')
      .join('locations as l', 'l.id', 'p.location_id')
      .select('p.id', 'p.location_id', 'p.name', 'p.description')
      .where('l.tenant_id', tenantId)
      .whereIn('p.id', [...ids])
  ).map(toProfile);
}

/** Rates of the given locations (DataLoader batch), ordered by id. */
export async function ratesByLocationIds(db: Knex, ids: LocationIds): Promise<LocationRateRow[]> {
  const rows = await db('location_rates')
    .select('id', 'location_id', 'name', 'description', 'location_rate')
    .whereIn('location_id', idList(ids))
    .orderBy('id');
  return rows.map(toRate);
}

/** Infos of the given locations (DataLoader batch), ordered by id. */
export async function infosByLocationIds(db: Knex, ids: LocationIds): Promise<LocationInfoRow[]> {
  const rows = await db('location_infos')
    .select('id', 'tenant_id', 'location_id', 'type_id', 'name', 'description', 'value')
    .whereIn('location_id', idList(ids))
    .orderBy('id');
  return rows.map(toInfo);
}

/** Profiles of the given locations (DataLoader batch), ordered by id. */
export async function profilesByLocationIds(db: Knex, ids: LocationIds): Promise<LocationProfileRow[]> {
  const rows = await db('location_profiles')
    .select('id', 'location_id', 'name', 'description')
    .whereIn('location_id', idList(ids))
    .orderBy('id');
  return rows.map(toProfile);
}

/** Info types by id (DataLoader batch). */
export async function infoTypesByIds(db: Knex, ids: readonly number[]): Promise<LocationInfoTypeRow[]> {
  return (
    await db('location_info_types')
      .select('id', 'tenant_id', 'name', 'value')
      .whereIn('id', [...ids])
  ).map(toType);
}

/** A tenant's location info by name. */
export async function findLocationInfo(
  db: Knex,
  tenantId: number,
  name: string,
): Promise<LocationInfoRow | undefined> {
  const r = await db('location_infos')
    .select('id', 'tenant_id', 'location_id', 'type_id', 'name', 'description', 'value')
    .where({ tenant_id: tenantId, name })
    .first();
  return r ? toInfo(r) : undefined;
}

/** A tenant's info type by name. */
export async function findInfoType(
  db: Knex,
  tenantId: number,
  name: string,
): Promise<LocationInfoTypeRow | undefined> {
  const r = await db('location_info_types')
    .select('id', 'tenant_id', 'name', 'value')
    .where({ tenant_id: tenantId, name })
    .first();
  return r ? toType(r) : undefined;
}

/** An info type by id, any tenant (to detect an id taken by another tenant). */
export async function findInfoTypeById(db: Knex, id: number): Promise<LocationInfoTypeRow | undefined> {
  const r = await db('location_info_types').select('id', 'tenant_id', 'name', 'value').where({ id }).first();
  return r ? toType(r) : undefined;
}

/** Inserts an info type (with an explicit id when given); returns its id. */
export async function insertInfoType(
  db: Knex,
  row: Omit<LocationInfoTypeRow, 'id'> & { id?: number },
): Promise<number> {
  const [id] = await db('location_info_types').insert({
    ...(row.id !== undefined ? { id: row.id } : {}),
    tenant_id: row.tenantId,
    name: row.name,
    value: row.value,
  });
  return row.id ?? Number(id);
}

/** Updates an info type's value. */
export async function updateInfoTypeValue(db: Knex, id: number, value: number): Promise<void> {
  await db('location_info_types').where({ id }).update({ value });
}

/** Inserts a location; returns its id. */
export async function insertLocation(
  db: Knex,
  tenantId: number,
  name: string,
  description: string | null,
): Promise<number> {
  const [id] = await db('locations').insert({ tenant_id: tenantId, name, description });
  return Number(id);
}

/** Updates a location's description. */
export async function updateLocationDescription(
  db: Knex,
  id: number,
  description: string | null,
): Promise<void> {
  await db('locations').where({ id }).update({ description });
}

/** Deletes a location and its children. */
export async function deleteLocation(db: Knex, id: number): Promise<void> {
  await db('location_rates').where({ location_id: id }).delete();
  await db('location_infos').where({ location_id: id }).delete();
  await db('location_profiles').where({ location_id: id }).delete();
  await db('locations').where({ id }).delete();
}

/** Inserts or updates (by location and name) a rate; returns whether anything changed. */
export async function upsertRate(
  db: Knex,
  locationId: number,
  r: { name: string; description: string | null; locationRate: number },
): Promise<boolean> {
  const existing = (await ratesByLocationIds(db, [locationId])).find((x) => x.name === r.name);
  if (!existing) {
    await db('location_rates').insert({
      location_id: locationId,
      name: r.name,
      description: r.description,
      location_rate: r.locationRate,
    });
    return true;
  }
  if (existing.description === r.description && existing.locationRate === r.locationRate) return false;
  await db('location_rates')
    .where({ id: existing.id })
    .update({ description: r.description, location_rate: r.locationRate });
  return true;
}

/** Inserts or updates (by tenant and name) an info, moving it to `locationId`; returns whether anything changed. */
export async function upsertInfo(
  db: Knex,
  tenantId: number,
  locationId: number,
  i: { name: string; description: string | null; typeId: number; value: string },
): Promise<boolean> {
  const existing = await findLocationInfo(db, tenantId, i.name);
  const fields = { location_id: locationId, type_id: i.typeId, description: i.description, value: i.value };
  if (!existing) {
    await db('location_infos').insert({ tenant_id: tenantId, name: i.name, ...fields });
    return true;
  }
  if (
    existing.locationId === locationId &&
    existing.typeId === i.typeId &&
    existing.description === i.description &&
    existing.value === i.value
  ) {
    return false;
  }
  await db('location_infos').where({ id: existing.id }).update(fields);
  return true;
}

/** Inserts or updates (by location and name) a profile; returns whether anything changed. */
export async function upsertProfile(
  db: Knex,
  locationId: number,
  p: { name: string; description: string | null },
): Promise<boolean> {
  const existing = (await profilesByLocationIds(db, [locationId])).find((x) => x.name === p.name);
  if (!existing) {
    await db('location_profiles').insert({
      location_id: locationId,
      name: p.name,
      description: p.description,
    });
    return true;
  }
  if (existing.description === p.description) return false;
  await db('location_profiles').where({ id: existing.id }).update({ description: p.description });
  return true;
}

/** Deletes a location's children of one kind whose names are not in `keep`; returns how many went. */
export async function deleteChildrenExcept(
  db: Knex,
  table: 'location_rates' | 'location_infos' | 'location_profiles',
  locationId: number,
  keep: string[],
): Promise<number> {
  const q = db(table).where({ location_id: locationId });
  if (keep.length) q.whereNotIn('name', keep);
  return Number(await q.delete());
}
