import { Field, InputType, Int, ObjectType } from 'type-graphql';
import { PageInfoType } from '../../graphql/relay';

/** GraphQL view of a location rate (spec 2.8 `locationRates[]`). */
@ObjectType('LocationRate', { description: 'A rate attached to a location.' })
export class LocationRateType {
  @Field(() => Int, { description: 'Rate id.' })
  id!: number;
  @Field(() => String, { description: 'Rate name, unique within its location.' })
  name!: string;
  @Field(() => String, { nullable: true, description: 'Free text, or null.' })
  description!: string | null;
  @Field(() => Int, { description: 'The rate value (integer, as the PCRF defines it).' })
  locationRate!: number;
}

/** GraphQL view of a location info type (spec 2.9 `locationInfoType`). */
@ObjectType('LocationInfoType', { description: 'The kind of a location info, e.g. PLMNID.' })
export class LocationInfoTypeType {
  @Field(() => Int, { description: 'Type id.' })
  id!: number;
  @Field(() => String, { description: 'Type name, e.g. `PLMNID`; unique per tenant.' })
  name!: string;
  @Field(() => Int, { description: 'The PCRF code of the type.' })
  value!: number;
}

/** GraphQL view of a location profile. */
@ObjectType('LocationProfile', { description: 'A policy profile attached to a location.' })
export class LocationProfileType {
  @Field(() => Int, { description: 'Profile id.' })
  id!: number;
  @Field(() => String, { description: 'Profile name, unique within its location.' })
  name!: string;
  @Field(() => String, { nullable: true, description: 'Free text, or null.' })
  description!: string | null;
}

/** GraphQL view of a location info (spec 2.9). */
@ObjectType('LocationInfo', {
  description: 'A piece of information identifying a location, e.g. a network PLMN ID.',
})
export class LocationInfoGqlType {
  @Field(() => Int, { description: 'Info id.' })
  id!: number;
  @Field(() => String, { description: 'Info name, unique per tenant.' })
  name!: string;
  @Field(() => String, { nullable: true, description: 'Free text, or null.' })
  description!: string | null;
  @Field(() => String, { description: 'The information itself, e.g. the MCC+MNC `20801` for a PLMNID.' })
  value!: string;
  typeId!: number;
  locationId!: number;
}

/** GraphQL view of a location (spec 2.8). */
@ObjectType('Location', { description: 'A PCRF location, such as a roaming zone.' })
export class LocationGqlType {
  @Field(() => Int, { description: 'Location id.' })
  id!: number;
  @Field(() => String, { description: 'Location name, unique per tenant.' })
  name!: string;
  @Field(() => String, { nullable: true, description: 'Free text, or null.' })
  description!: string | null;
}

/** One edge of a location page. */
@ObjectType('LocationEdge', { description: 'A location and its cursor.' })
export class LocationEdgeType {
  @Field(() => String, { description: 'Opaque cursor; pass it as `after` for the next page.' })
  cursor!: string;
  @Field(() => LocationGqlType, { description: 'The location.' })
  node!: LocationGqlType;
}

/** A page of locations. */
@ObjectType('LocationConnection', { description: 'A page of locations ordered by id.' })
export class LocationConnectionType {
  @Field(() => [LocationEdgeType], { description: 'The locations of this page.' })
  edges!: LocationEdgeType[];
  @Field(() => PageInfoType, { description: 'Whether more pages follow.' })
  pageInfo!: PageInfoType;
  @Field(() => Int, { description: 'Number of locations matching the filter, over all pages.' })
  totalCount!: number;
}

/** A rate to provision. */
@InputType('LocationRateInput', { description: 'A location rate to create or update (by name).' })
export class LocationRateInput {
  @Field(() => String, { description: 'Rate name, unique within the location.' })
  name!: string;
  @Field(() => String, { nullable: true, description: 'Free text.' })
  description?: string | null;
  @Field(() => Int, { description: 'The rate value.' })
  locationRate!: number;
}

/** An info to provision. */
@InputType('LocationInfoInput', {
  description: 'A location info to create or update (by name, unique per tenant).',
})
export class LocationInfoInput {
  @Field(() => String, { description: 'Info name, unique per tenant.' })
  name!: string;
  @Field(() => String, { nullable: true, description: 'Free text.' })
  description?: string | null;
  @Field(() => String, { description: 'Name of an existing location info type, e.g. `PLMNID`.' })
  type!: string;
  @Field(() => String, { description: 'The information, e.g. `20801`.' })
  value!: string;
}

/** A profile to provision. */
@InputType('LocationProfileInput', { description: 'A location profile to create or update (by name).' })
export class LocationProfileInput {
  @Field(() => String, { description: 'Profile name, unique within the location.' })
  name!: string;
  @Field(() => String, { nullable: true, description: 'Free text.' })
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
  @Field(() => String, { nullable: true, description: 'Free text.' })
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
  @Field(() => Int, { nullable: true, description: 'Id to create it with (kept when it exists).' })
  id?: number | null;
  @Field(() => String, { description: 'Type name, e.g. `PLMNID`.' })
  name!: string;
  @Field(() => Int, { description: 'The PCRF code of the type.' })
  value!: number;
}
