import { Directive, Field, ID, InputType, Int, ObjectType, registerEnumType } from 'type-graphql';
import { NodeInterface, globalId } from '../../graphql/node';
import { userErrorType } from '../../graphql/payload';
import { connectionTypes, integerCursor } from '../../graphql/relay';
import { LocationRefusal } from './location.service';
import type {
  LocationInfoRow,
  LocationInfoTypeRow,
  LocationProfileRow,
  LocationRateRow,
  LocationRow,
} from './location.store';

/*
 * The graph's view of the PCRF location entities (CONTRACT §6). Every entity
 * implements `Node`: its `id` is the global id of its row id (`globalId('Location', 42)`), the
 * legacy numeric id moves to a field named for it (`locationId`, ...), and the names stay the
 * natural keys clients look things up by. The `*View` functions below are the one mapping from a
 * store row, used by every resolver and by `node(id:)`, so an entity's `id` is the same whichever
 * way it was reached.
 */

/** GraphQL type names of the location entities (also their global ids' prefix). */
export const LOCATION_NODE = {
  location: 'Location',
  rate: 'LocationRate',
  info: 'LocationInfo',
  infoType: 'LocationInfoType',
  profile: 'LocationProfile',
} as const;

/** GraphQL view of a location rate (a `locationRates[]` element of the legacy list, CONTRACT §6). */
@ObjectType('LocationRate', { implements: NodeInterface, description: 'A rate attached to a location.' })
export class LocationRateType {
  @Field(() => ID, { description: 'Opaque global id of this rate (pass it to `node(id:)`).' })
  id!: string;
  @Field(() => Int, {
    description:
      'The numeric rate id of the legacy REST API (`locationRates[].id` in `GET /pcc/pcrf/locations`).',
  })
  locationRateId!: number;
  @Field(() => String, { description: 'Rate name, unique within its location.' })
  name!: string;
  @Field(() => String, { nullable: true, description: 'Free text, or null.' })
  description!: string | null;
  @Field(() => Int, { description: 'The rate value (a 32-bit integer, as the PCRF defines it).' })
  locationRate!: number;
}

/** GraphQL view of a location info type (an info's `locationInfoType` in the legacy list, CONTRACT §6). */
@ObjectType('LocationInfoType', {
  implements: NodeInterface,
  description: 'The kind of a location info, e.g. PLMNID (a network identity: MCC+MNC).',
})
export class LocationInfoTypeType {
  @Field(() => ID, { description: 'Opaque global id of this type (pass it to `node(id:)`).' })
  id!: string;
  @Field(() => Int, {
    description:
      'The numeric type id of the legacy REST API (`locationInfoType.id` in `GET /pcc/pcrf/location/{name}/locationInfo`).',
  })
  locationInfoTypeId!: number;
  @Field(() => String, {
    description: 'Type name, e.g. `PLMNID`; unique per tenant. An open set: each tenant provisions its own.',
  })
  name!: string;
  @Field(() => Int, { description: 'The PCRF code of the type (a 32-bit integer).' })
  value!: number;
}

/** GraphQL view of a location profile. */
@ObjectType('LocationProfile', {
  implements: NodeInterface,
  description: 'A policy profile attached to a location.',
})
export class LocationProfileType {
  @Field(() => ID, { description: 'Opaque global id of this profile (pass it to `node(id:)`).' })
  id!: string;
  @Field(() => Int, { description: 'The numeric profile id of the legacy REST API (`locationProfile.id`).' })
  locationProfileId!: number;
  @Field(() => String, { description: 'Profile name, unique within its location.' })
  name!: string;
  @Field(() => String, { nullable: true, description: 'Free text, or null.' })
  description!: string | null;
}

/** GraphQL view of a location info (a `locationInfoList[]` element, CONTRACT §6). */
@ObjectType('LocationInfo', {
  implements: NodeInterface,
  description: 'A piece of information identifying a location, e.g. a network PLMN ID.',
})
export class LocationInfoGqlType {
  @Field(() => ID, { description: 'Opaque global id of this info (pass it to `node(id:)`).' })
  id!: string;
  @Field(() => Int, {
    description:
      'The numeric info id of the legacy REST API (`locationInfo.id` in `GET /pcc/pcrf/location/{name}/locationInfo`).',
  })
  locationInfoId!: number;
  @Field(() => String, { description: 'Info name, unique per tenant.' })
  name!: string;
  @Field(() => String, { nullable: true, description: 'Free text, or null.' })
  description!: string | null;
  @Field(() => String, { description: 'The information itself, e.g. the MCC+MNC `20801` for a PLMNID.' })
  value!: string;
  /** Row id of its location info type (not a field: `type` resolves it). */
  typeRowId!: number;
  /** Row id of its location (not a field: `location` resolves it). */
  locationRowId!: number;
}

/** GraphQL view of a location (a `locationList[]` element, CONTRACT §6). */
@Directive('@key(fields: "name")')
@ObjectType('Location', {
  implements: NodeInterface,
  description: 'A PCRF location, such as a roaming zone.',
})
export class LocationGqlType {
  @Field(() => ID, { description: 'Opaque global id of this location (pass it to `node(id:)`).' })
  id!: string;
  @Field(() => Int, {
    description:
      'The numeric location id of the legacy REST API (`location.id` in `GET /pcc/pcrf/locations`).',
  })
  locationId!: number;
  @Field(() => String, { description: 'Location name, unique per tenant.' })
  name!: string;
  @Field(() => String, { nullable: true, description: 'Free text, or null.' })
  description!: string | null;
}

/** The view of a location row. */
export function locationView(row: LocationRow): LocationGqlType {
  return {
    id: globalId(LOCATION_NODE.location, row.id),
    locationId: row.id,
    name: row.name,
    description: row.description,
  };
}

/** The view of a location rate row. */
export function rateView(row: LocationRateRow): LocationRateType {
  return {
    id: globalId(LOCATION_NODE.rate, row.id),
    locationRateId: row.id,
    name: row.name,
    description: row.description,
    locationRate: row.locationRate,
  };
}

/** The view of a location info row. */
export function infoView(row: LocationInfoRow): LocationInfoGqlType {
  return {
    id: globalId(LOCATION_NODE.info, row.id),
    locationInfoId: row.id,
    name: row.name,
    description: row.description,
    value: row.value,
    typeRowId: row.typeId,
    locationRowId: row.locationId,
  };
}

/** The view of a location info type row. */
export function infoTypeView(row: LocationInfoTypeRow): LocationInfoTypeType {
  return {
    id: globalId(LOCATION_NODE.infoType, row.id),
    locationInfoTypeId: row.id,
    name: row.name,
    value: row.value,
  };
}

/** The view of a location profile row. */
export function profileView(row: LocationProfileRow): LocationProfileType {
  return {
    id: globalId(LOCATION_NODE.profile, row.id),
    locationProfileId: row.id,
    name: row.name,
    description: row.description,
  };
}

/** Cursors of `Query.locations` (`location:<row id>`: the cursors of release 0.1.0 stay valid). */
export const LOCATION_CURSOR = integerCursor('location');
/** Cursors of `Location.rates`. */
export const RATE_CURSOR = integerCursor('locationRate');
/** Cursors of `Location.infos`. */
export const INFO_CURSOR = integerCursor('locationInfo');
/** Cursors of `Location.profiles`. */
export const PROFILE_CURSOR = integerCursor('locationProfile');

/** `LocationConnection`/`LocationEdge`: a page of a tenant's locations. */
export const LocationConnection = connectionTypes(LocationGqlType, 'Location', {
  description: 'A page of locations, ordered by id (creation order).',
  totalCount: 'Number of locations matching the filter, over all pages.',
});

/** `LocationRateConnection`: a page of one location's rates. */
export const LocationRateConnection = connectionTypes(LocationRateType, 'LocationRate', {
  description: "A page of a location's rates, ordered by id (creation order).",
  totalCount: 'Number of rates of the location.',
});

/** `LocationInfoConnection`: a page of one location's infos. */
export const LocationInfoConnection = connectionTypes(LocationInfoGqlType, 'LocationInfo', {
  description: "A page of a location's infos, ordered by id (creation order).",
  totalCount: 'Number of infos of the location (a roaming zone has one per network: hundreds).',
});

/** `LocationProfileConnection`: a page of one location's profiles. */
export const LocationProfileConnection = connectionTypes(LocationProfileType, 'LocationProfile', {
  description: "A page of a location's profiles, ordered by id (creation order).",
  totalCount: 'Number of profiles of the location.',
});

registerEnumType(LocationRefusal, {
  name: 'LocationUserErrorCode',
  description: 'Why a location provisioning mutation refused its input.',
  valuesConfig: {
    INVALID_VALUE: {
      description:
        'A name (1-255 characters; a type name 1-64), description (at most 1024 characters), info value or rate (a 32-bit integer) outside its rules, or with control characters.',
    },
    DUPLICATE_NAME: { description: 'Two rates, infos or profiles of the input share a name.' },
    UNKNOWN_LOCATION_INFO_TYPE: {
      description: 'An info names a location info type the tenant does not have.',
    },
    LOCATION_INFO_TYPE_ID_MISMATCH: {
      description: 'A location info type of this name exists with another `locationInfoTypeId`.',
    },
    LOCATION_INFO_TYPE_ID_TAKEN: {
      description: 'The `locationInfoTypeId` asked for belongs to another location info type.',
    },
  },
});

/** The `userErrors` entries of `upsertLocation` and `upsertLocationInfoType`. */
export const LocationUserError = userErrorType<LocationRefusal>(
  'LocationUserError',
  LocationRefusal,
  'A refusal of a location provisioning mutation (`upsertLocation`, `upsertLocationInfoType`).',
);

/** Why `deleteLocation` refused. */
export enum DeleteLocationRefusal {
  LOCATION_NOT_FOUND = 'LOCATION_NOT_FOUND',
}

registerEnumType(DeleteLocationRefusal, {
  name: 'DeleteLocationUserErrorCode',
  description: 'Why `deleteLocation` refused.',
  valuesConfig: { LOCATION_NOT_FOUND: { description: 'Your tenant has no location of that name.' } },
});

/** The `userErrors` entries of `deleteLocation`. */
export const DeleteLocationUserError = userErrorType<DeleteLocationRefusal>(
  'DeleteLocationUserError',
  DeleteLocationRefusal,
  'A refusal of `deleteLocation`.',
);

/** What `upsertLocation` answers. */
@ObjectType('UpsertLocationPayload', { description: 'The result of `upsertLocation`.' })
export class UpsertLocationPayload {
  @Field(() => LocationGqlType, {
    nullable: true,
    description: 'The location as stored now; null when `userErrors` is not empty (nothing was written).',
  })
  location?: LocationGqlType | null;
  @Field(() => [LocationUserError], { description: 'Why the input was refused; empty on success.' })
  userErrors!: InstanceType<typeof LocationUserError>[];
}

/** What `upsertLocationInfoType` answers. */
@ObjectType('UpsertLocationInfoTypePayload', { description: 'The result of `upsertLocationInfoType`.' })
export class UpsertLocationInfoTypePayload {
  @Field(() => LocationInfoTypeType, {
    nullable: true,
    description:
      'The location info type as stored now; null when `userErrors` is not empty (nothing was written).',
  })
  locationInfoType?: LocationInfoTypeType | null;
  @Field(() => [LocationUserError], { description: 'Why the input was refused; empty on success.' })
  userErrors!: InstanceType<typeof LocationUserError>[];
}

/** What `deleteLocation` answers. */
@ObjectType('DeleteLocationPayload', { description: 'The result of `deleteLocation`.' })
export class DeleteLocationPayload {
  @Field(() => ID, {
    nullable: true,
    description:
      'Global id of the deleted location (evict it from a client cache); null when nothing was deleted.',
  })
  deletedLocationId?: string | null;
  @Field(() => [DeleteLocationUserError], { description: 'Why nothing was deleted; empty on success.' })
  userErrors!: InstanceType<typeof DeleteLocationUserError>[];
}

/** A rate to provision. */
@InputType('LocationRateInput', { description: 'A location rate to create or update (by name).' })
export class LocationRateInput {
  @Field(() => String, { description: 'Rate name, unique within the location (1-255 characters).' })
  name!: string;
  @Field(() => String, { nullable: true, description: 'Free text (at most 1024 characters).' })
  description?: string | null;
  @Field(() => Int, { description: 'The rate value (a 32-bit integer).' })
  locationRate!: number;
}

/** An info to provision. */
@InputType('LocationInfoInput', {
  description: 'A location info to create or update (by name, unique per tenant).',
})
export class LocationInfoInput {
  @Field(() => String, { description: 'Info name, unique per tenant (1-255 characters).' })
  name!: string;
  @Field(() => String, { nullable: true, description: 'Free text (at most 1024 characters).' })
  description?: string | null;
  @Field(() => String, {
    description: 'Name of an existing location info type of your tenant, e.g. `PLMNID`.',
  })
  type!: string;
  @Field(() => String, { description: 'The information, e.g. `20801` (1-255 characters).' })
  value!: string;
}

/** A profile to provision. */
@InputType('LocationProfileInput', { description: 'A location profile to create or update (by name).' })
export class LocationProfileInput {
  @Field(() => String, { description: 'Profile name, unique within the location (1-255 characters).' })
  name!: string;
  @Field(() => String, { nullable: true, description: 'Free text (at most 1024 characters).' })
  description?: string | null;
}

/** A location to provision with its children. */
@InputType('LocationInput', {
  description:
    'A location to create or update by name. Each child list that is given replaces that kind of child entirely; an omitted list leaves those children as they are.',
})
export class LocationInput {
  @Field(() => String, { description: 'Location name, unique per tenant (1-255 characters).' })
  name!: string;
  @Field(() => String, { nullable: true, description: 'Free text (at most 1024 characters).' })
  description?: string | null;
  @Field(() => [LocationRateInput], { nullable: true, description: 'The location rates.' })
  rates?: LocationRateInput[] | null;
  @Field(() => [LocationInfoInput], { nullable: true, description: 'The location infos.' })
  infos?: LocationInfoInput[] | null;
  @Field(() => [LocationProfileInput], { nullable: true, description: 'The location profiles.' })
  profiles?: LocationProfileInput[] | null;
}

/** A location info type to provision. */
@InputType('LocationInfoTypeInput', { description: 'A location info type to create or update by name.' })
export class LocationInfoTypeInput {
  @Field(() => Int, {
    nullable: true,
    deprecationReason: 'use locationInfoTypeId',
    description:
      'Numeric id to create it with (kept when it exists). Deprecated: the same as `locationInfoTypeId`.',
  })
  id?: number | null;
  @Field(() => Int, {
    nullable: true,
    description:
      'Numeric id (the legacy REST `locationInfoType.id`) to create it with; when the type exists it must be its id. Omit it to have one assigned.',
  })
  locationInfoTypeId?: number | null;
  @Field(() => String, { description: 'Type name, e.g. `PLMNID` (1-64 characters).' })
  name!: string;
  @Field(() => Int, { description: 'The PCRF code of the type (a 32-bit integer).' })
  value!: number;
}
