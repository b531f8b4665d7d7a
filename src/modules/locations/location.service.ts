import { Knex } from 'knex';
import { BadUserInputError, FieldError, NotFoundError } from '../../errors';
import type { KeysetPage } from '../../db/keyset';
import { retryingTransaction } from '../../db/knex';
import { LocationLoaders, ratesOfLocations } from './location.loaders';
import { bumpLocationVersion, locationVersion } from './location-version.store';
import {
  LocationInfoRow,
  LocationInfoTypeRow,
  LocationRateRow,
  LocationRow,
  countLocations,
  deleteChildrenExcept,
  deleteLocation,
  findInfoType,
  findInfoTypeById,
  findLocation,
  findLocationInfo,
  insertInfoType,
  insertLocation,
  listLocations,
  updateInfoTypeValue,
  updateLocationDescription,
  upsertInfo,
  upsertProfile,
  upsertRate,
} from './location.store';

/** A location with its children as provisioned (dataset `locations[]`, GraphQL `LocationInput`). */
export interface LocationTree {
  name: string;
  description: string | null;
  rates?: { name: string; description: string | null; locationRate: number }[];
  /** `type` names a location info type of the tenant, e.g. `PLMNID`; `value` e.g. `20801`. */
  infos?: { name: string; description: string | null; type: string; value: string }[];
  profiles?: { name: string; description: string | null }[];
}

/** A location info type as provisioned; `id` is kept when given. */
export interface InfoTypeInput {
  id?: number;
  name: string;
  value: number;
}

/**
 * One page read of locations (src/graphql/relay.ts `connectionFromRows`): up to `limit + 1` rows
 * in the paging direction's order past the cursor, and the number of locations matching the filter.
 */
export interface LocationPage {
  rows: LocationRow[];
  totalCount: number;
}

/** Why a location field was refused: what `userErrors[].code` says (see {@link refusalOf}). */
export enum LocationRefusal {
  /** A name, description, value or rate outside its rules. */
  INVALID_VALUE = 'INVALID_VALUE',
  /** Two children of one kind in the input share a name. */
  DUPLICATE_NAME = 'DUPLICATE_NAME',
  /** An info names a location info type the tenant does not have. */
  UNKNOWN_LOCATION_INFO_TYPE = 'UNKNOWN_LOCATION_INFO_TYPE',
  /** A location info type exists under this name with another numeric id. */
  LOCATION_INFO_TYPE_ID_MISMATCH = 'LOCATION_INFO_TYPE_ID_MISMATCH',
  /** The numeric id asked for is another location info type's. */
  LOCATION_INFO_TYPE_ID_TAKEN = 'LOCATION_INFO_TYPE_ID_TAKEN',
}

const DUPLICATE = 'duplicates an earlier name';
const UNKNOWN_TYPE = 'names no location info type of this tenant';
const ID_TAKEN = 'is used by another location info type';
const ID_MISMATCH = /^must be \d+$/;

/** The refusal one offending field of a provisioning error stands for. */
export function refusalOf(error: FieldError): LocationRefusal {
  if (error.description === DUPLICATE) return LocationRefusal.DUPLICATE_NAME;
  if (error.description === UNKNOWN_TYPE) return LocationRefusal.UNKNOWN_LOCATION_INFO_TYPE;
  if (error.description === ID_TAKEN) return LocationRefusal.LOCATION_INFO_TYPE_ID_TAKEN;
  if (error.field === 'id' && ID_MISMATCH.test(error.description))
    return LocationRefusal.LOCATION_INFO_TYPE_ID_MISMATCH;
  return LocationRefusal.INVALID_VALUE;
}

/** Each child kind of a location tree and its table. */
const CHILD_TABLES = [
  ['rates', 'location_rates'],
  ['infos', 'location_infos'],
  ['profiles', 'location_profiles'],
] as const;

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

function checkName(errors: FieldError[], field: string, v: string, max = 255): void {
  if (v.length === 0 || v.length > max || CONTROL.test(v)) {
    errors.push({ field, description: `must be 1-${max} characters without control characters` });
  }
}

function checkDescription(errors: FieldError[], field: string, v: string | null): void {
  if (v !== null && (v.length > 1024 || CONTROL.test(v)))
    errors.push({ field, description: 'must be at most 1024 characters without control characters' });
}

/**
 * Validates a location tree (names, descriptions, integer rates, distinct child names).
 * @throws BadUserInputError listing every offending field, with paths relative to the tree.
 */
export function validateLocationTree(tree: LocationTree, prefix = ''): void {
  const errors: FieldError[] = [];
  checkName(errors, `${prefix}name`, tree.name);
  checkDescription(errors, `${prefix}description`, tree.description);
  const distinct = (kind: string, names: string[]) =>
    names.forEach(
      (n, i) =>
        names.indexOf(n) !== i &&
        errors.push({ field: `${prefix}${kind}[${i}].name`, description: DUPLICATE }),
    );
  tree.rates?.forEach((r, i) => {
    checkName(errors, `${prefix}rates[${i}].name`, r.name);
    checkDescription(errors, `${prefix}rates[${i}].description`, r.description);
    if (!Number.isSafeInteger(r.locationRate) || Math.abs(r.locationRate) > 2 ** 31 - 1) {
      errors.push({ field: `${prefix}rates[${i}].locationRate`, description: 'must be a 32-bit integer' });
    }
  });
  tree.infos?.forEach((x, i) => {
    checkName(errors, `${prefix}infos[${i}].name`, x.name);
    checkDescription(errors, `${prefix}infos[${i}].description`, x.description);
    checkName(errors, `${prefix}infos[${i}].value`, x.value);
  });
  tree.profiles?.forEach((p, i) => {
    checkName(errors, `${prefix}profiles[${i}].name`, p.name);
    checkDescription(errors, `${prefix}profiles[${i}].description`, p.description);
  });
  for (const [kind] of CHILD_TABLES) distinct(kind, tree[kind]?.map((c) => c.name) ?? []);
  if (errors.length)
    throw new BadUserInputError(`invalid location: ${errors[0].field} ${errors[0].description}`, errors);
}

/**
 * Inserts or updates a location and its children by name, within `db` (pass a transaction).
 * With `replaceChildren`, children kinds that are given are made exactly equal to the input
 * (missing names deleted); otherwise children are only added or updated (dataset import).
 * An info whose name exists under another location of the tenant moves here.
 * @throws BadUserInputError when an info names an unknown info type (`infos[i].type`).
 * Returns the location and whether anything changed.
 */
export async function upsertLocationTree(
  db: Knex,
  tenantId: number,
  tree: LocationTree,
  replaceChildren: boolean,
): Promise<{ location: LocationRow; changed: boolean }> {
  validateLocationTree(tree);
  let changed = false;
  let location = await findLocation(db, tenantId, tree.name);
  if (!location) {
    const id = await insertLocation(db, tenantId, tree.name, tree.description);
    location = { id, tenantId, name: tree.name, description: tree.description };
    changed = true;
  } else if (location.description !== tree.description) {
    await updateLocationDescription(db, location.id, tree.description);
    location = { ...location, description: tree.description };
    changed = true;
  }
  for (const r of tree.rates ?? []) changed = (await upsertRate(db, location.id, r)) || changed;
  const types = new Map<string, LocationInfoTypeRow | undefined>();
  for (const [i, info] of (tree.infos ?? []).entries()) {
    if (!types.has(info.type)) types.set(info.type, await findInfoType(db, tenantId, info.type));
    const type = types.get(info.type);
    if (!type)
      throw new BadUserInputError(`unknown location info type ${info.type}`, [
        { field: `infos[${i}].type`, description: UNKNOWN_TYPE },
      ]);
    changed =
      (await upsertInfo(db, tenantId, location.id, {
        name: info.name,
        description: info.description,
        typeId: type.id,
        value: info.value,
      })) || changed;
  }
  for (const p of tree.profiles ?? []) changed = (await upsertProfile(db, location.id, p)) || changed;
  if (replaceChildren) {
    for (const [kind, table] of CHILD_TABLES) {
      const given = tree[kind];
      if (given)
        changed =
          (await deleteChildrenExcept(
            db,
            table,
            location.id,
            given.map((c) => c.name),
          )) > 0 || changed;
    }
  }
  if (changed) await bumpLocationVersion(db, tenantId);
  return { location, changed };
}

/**
 * Inserts or updates a location info type by name, within `db`.
 * @throws BadUserInputError when the name is invalid or the given id belongs to another type.
 * Returns the type and whether anything changed.
 */
export async function upsertInfoType(
  db: Knex,
  tenantId: number,
  input: InfoTypeInput,
): Promise<{ type: LocationInfoTypeRow; changed: boolean }> {
  const errors: FieldError[] = [];
  checkName(errors, 'name', input.name, 64);
  if (!Number.isSafeInteger(input.value) || Math.abs(input.value) > 2 ** 31 - 1)
    errors.push({ field: 'value', description: 'must be a 32-bit integer' });
  if (errors.length)
    throw new BadUserInputError(
      `invalid location info type: ${errors[0].field} ${errors[0].description}`,
      errors,
    );
  const existing = await findInfoType(db, tenantId, input.name);
  if (existing) {
    if (input.id !== undefined && input.id !== existing.id) {
      throw new BadUserInputError(`location info type ${input.name} already has id ${existing.id}`, [
        { field: 'id', description: `must be ${existing.id}` },
      ]);
    }
    if (existing.value === input.value) return { type: existing, changed: false };
    await updateInfoTypeValue(db, existing.id, input.value);
    await bumpLocationVersion(db, tenantId);
    return { type: { ...existing, value: input.value }, changed: true };
  }
  if (input.id !== undefined && (await findInfoTypeById(db, input.id))) {
    throw new BadUserInputError(`location info type id ${input.id} is taken`, [
      { field: 'id', description: ID_TAKEN },
    ]);
  }
  const id = await insertInfoType(db, { id: input.id, tenantId, name: input.name, value: input.value });
  await bumpLocationVersion(db, tenantId);
  return { type: { id, tenantId, name: input.name, value: input.value }, changed: true };
}

/**
 * PCRF location reads and provisioning (CONTRACT §6), always within one tenant.
 */
export class LocationService {
  constructor(private readonly db: Knex) {}

  /**
   * Per-request loaders for a tenant; `beforeQuery` runs before each batch query and may throw
   * to stop it (the GraphQL deadline).
   */
  loaders(tenantId: number, beforeQuery?: () => void): LocationLoaders {
    return new LocationLoaders(this.db, tenantId, beforeQuery);
  }

  /**
   * The legacy location list (CONTRACT §6): every location ordered by id, or the one named `name`.
   * @throws NotFoundError when `name` is given and no such location exists.
   */
  async list(tenantId: number, name: string | null): Promise<LocationRow[]> {
    const rows = await listLocations(this.db, tenantId, name === null ? {} : { name });
    if (name !== null && rows.length === 0) throw new NotFoundError(`location ${name} not found`);
    return rows;
  }

  /**
   * The legacy list with each location's rates (its `locationRates[]`), in two queries:
   * what `locationList { ... rates { ... } }` reads, for the REST list's direct path (no GraphQL execution).
   * `rates[i]` belongs to `locations[i]`; both ordered by id.
   * @throws NotFoundError when `name` is given and no such location exists.
   */
  async listWithRates(
    tenantId: number,
    name: string | null,
  ): Promise<{ locations: LocationRow[]; rates: LocationRateRow[][] }> {
    const locations = await this.list(tenantId, name);
    const rates = await ratesOfLocations(
      this.db,
      tenantId,
      locations.map((l) => l.id),
    );
    return { locations, rates };
  }

  /**
   * The tenant's location data version (one primary-key read): it changes in the same commit as
   * every write to the tenant's locations, rates, infos, info types or profiles, on every gateway
   * instance sharing the database; the REST list's `ETag` is made from it (src/rest/conditional.ts).
   */
  version(tenantId: number): Promise<number> {
    return locationVersion(this.db, tenantId);
  }

  /**
   * One page read of a tenant's locations in id order (Relay paging, src/graphql/relay.ts): up to
   * `limit + 1` rows in the paging direction (src/db/keyset.ts). With `name`, only the location
   * of that name (zero or one row). `totalCount` counts the filter's matches.
   */
  async page(tenantId: number, page: KeysetPage<number>, name: string | null): Promise<LocationPage> {
    const n = name ?? undefined;
    const rows = await listLocations(this.db, tenantId, { name: n, page });
    return { rows, totalCount: await countLocations(this.db, tenantId, n) };
  }

  /** A tenant's location by name, or undefined. */
  find(tenantId: number, name: string): Promise<LocationRow | undefined> {
    return findLocation(this.db, tenantId, name);
  }

  /** A tenant's location info by name, or undefined. */
  findInfo(tenantId: number, name: string): Promise<LocationInfoRow | undefined> {
    return findLocationInfo(this.db, tenantId, name);
  }

  /**
   * ADMIN: creates or updates a location; given child lists replace the existing ones. One
   * transaction (`retryingTransaction`: rerun whole after a deadlock or certification conflict).
   */
  async upsert(tenantId: number, tree: LocationTree): Promise<LocationRow> {
    return retryingTransaction(
      this.db,
      async (trx) => (await upsertLocationTree(trx, tenantId, tree, true)).location,
    );
  }

  /** ADMIN: creates or updates a location info type (one transaction, as {@link upsert}). */
  async upsertInfoType(tenantId: number, input: InfoTypeInput): Promise<LocationInfoTypeRow> {
    return retryingTransaction(this.db, async (trx) => (await upsertInfoType(trx, tenantId, input)).type);
  }

  /**
   * ADMIN: deletes a location with its rates, infos and profiles; returns the deleted row (one
   * transaction, as {@link upsert}).
   * @throws NotFoundError when the tenant has no location of that name.
   */
  async delete(tenantId: number, name: string): Promise<LocationRow> {
    return retryingTransaction(this.db, async (trx) => {
      const loc = await findLocation(trx, tenantId, name);
      if (!loc)
        throw new NotFoundError(`location ${name} not found`, {
          fields: [{ field: 'name', description: 'names no location of this tenant' }],
        });
      await deleteLocation(trx, loc.id);
      await bumpLocationVersion(trx, tenantId);
      return loc;
    });
  }
}
