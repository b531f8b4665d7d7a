import { Permission } from '../auth/permissions';
import { assertPermissions } from '../graphql/auth-checker';
import { callerOf } from '../graphql/context';
import { versionTag } from './conditional';
import { locationListStream, writable } from './location-list';
import { RestRoute, RouteDoc, defineRoute, optionalQueryString } from './route';
import { LINK, integer, named, nullableText, object, text } from './schemas';

/** HAL hrefs of CONTRACT §6: absolute, names percent-encoded. Every one answers 200. */
export const hrefs = {
  location: (base: string, name: string) => `${base}/pcc/pcrf/locations/${encodeURIComponent(name)}`,
  locationInfos: (base: string, name: string) =>
    `${base}/pcc/pcrf/location/${encodeURIComponent(name)}/locationInfo`,
  locationProfiles: (base: string, name: string) =>
    `${base}/pcc/pcrf/locations/${encodeURIComponent(name)}/locationProfiles`,
  locationInfo: (base: string, name: string) => `${base}/pcc/pcrf/locationInfos/${encodeURIComponent(name)}`,
};

interface RateData {
  id: number;
  name: string;
  description: string | null;
  locationRate: number;
}
interface LocationData {
  id: number;
  name: string;
  description: string | null;
  rates: RateData[];
}
interface InfoData {
  id: number;
  name: string;
  description: string | null;
  value: string;
  type: { id: number; name: string; value: number };
}
interface ProfileData {
  id: number;
  name: string;
  description: string | null;
}

// Aliases keep the legacy names: the numeric ids (`id: locationId`: the graph's `id` is the
// global id) and the unpaged child lists (`rates: rateList`, the graph's `rates` is a
// connection), so the results below read the shape they always did.
const LOCATION_SELECTION =
  'id: locationId name description rates: rateList { id: locationRateId name description locationRate }';
const INFO_SELECTION = 'id: locationInfoId name description value type { id: locationInfoTypeId name value }';

/** A `locationList[]` element (CONTRACT §6), keys in the published order. */
function locationElement(l: LocationData, base: string) {
  return {
    location: {
      id: l.id,
      name: l.name,
      description: l.description,
      locationRates: l.rates.map((r) => ({
        id: r.id,
        name: r.name,
        description: r.description,
        locationRate: r.locationRate,
      })),
    },
    _links: {
      self: { href: hrefs.location(base, l.name) },
      locationInfos: { href: hrefs.locationInfos(base, l.name) },
      locationProfiles: { href: hrefs.locationProfiles(base, l.name) },
    },
  };
}

/** A `locationInfoList[]` element (CONTRACT §6), keys in the published order. */
function infoElement(i: InfoData, locationName: string, base: string) {
  return {
    locationInfo: {
      id: i.id,
      name: i.name,
      description: i.description,
      locationInfoType: { id: i.type.id, name: i.type.name, value: i.type.value },
      locationInfo: i.value,
    },
    _links: {
      self: { href: hrefs.locationInfo(base, i.name) },
      location: { href: hrefs.location(base, locationName) },
    },
  };
}

const id = integer('numeric id');
const LOCATION_ELEMENT = named(
  'LocationElement',
  object({
    location: object({
      id,
      name: text('unique per tenant'),
      description: nullableText('free text'),
      locationRates: {
        type: 'array',
        items: object({
          id,
          name: text('rate name'),
          description: nullableText('free text'),
          locationRate: integer('rate'),
        }),
      },
    }),
    _links: object({ self: LINK, locationInfos: LINK, locationProfiles: LINK }),
  }),
);
const LOCATION_LIST = named(
  'LocationList',
  object({ locationList: { type: 'array', items: LOCATION_ELEMENT, description: 'ordered by id' } }),
);
const LOCATION_INFO_ELEMENT = named(
  'LocationInfoElement',
  object({
    locationInfo: object({
      id,
      name: text('unique per tenant'),
      description: nullableText('free text'),
      locationInfoType: object({ id, name: text('e.g. PLMNID'), value: integer('type value') }),
      locationInfo: text('the value, e.g. an MCC+MNC such as 20801'),
    }),
    _links: object({ self: LINK, location: LINK }),
  }),
);
const LOCATION_INFO_LIST = named(
  'LocationInfoList',
  object({ locationInfoList: { type: 'array', items: LOCATION_INFO_ELEMENT } }),
);
const LOCATION_PROFILE_LIST = named(
  'LocationProfileList',
  object({
    locationProfileList: {
      type: 'array',
      items: object({
        locationProfile: object({ id, name: text('profile name'), description: nullableText('free text') }),
        _links: object({ location: LINK }),
      }),
    },
  }),
);

const BASE = 'https://gateway.example.com';
const RATE = { id: 1, name: 'ZONE-1_TimeBasedRate', description: null, locationRate: 0 };
const LOCATION_EXAMPLE = {
  locationList: [locationElement({ id: 1, name: 'ZONE-1', description: null, rates: [RATE] }, BASE)],
};
const INFO_EXAMPLE: InfoData = {
  id: 1,
  name: 'FR-Orange',
  description: 'Orange France',
  value: '20801',
  type: { id: 5, name: 'PLMNID', value: 4 },
};
const NAME_PARAM = { name: 'location name (percent-encoded)' };

/** Doc of a location GET row: the `PCRF_LOCATION_READ_PERMISSION` header and the 404 are common. */
const locationDoc = (doc: Omit<RouteDoc, 'tag'>): RouteDoc => ({
  tag: 'locations',
  ...doc,
  description:
    `${doc.description ?? ''} Needs the \`PCRF_LOCATION_READ_PERMISSION\` grant and header (CONTRACT §6). Hrefs are absolute: PUBLIC_BASE_URL, else the request's origin.`.trim(),
});

const notFound = (what: string, name: string) => ({
  status: 404,
  body: { errorCode: 1, message: `${what} ${name} not found` },
});

const common = {
  method: 'GET' as const,
  style: 'plain' as const,
  tenantHeader: 'optional' as const,
  permissionHeader: Permission.PCRF_LOCATION_READ_PERMISSION,
};

const LIST_DOCUMENT = `query LocationList($name: String) { locationList(name: $name) { ${LOCATION_SELECTION} } }`;

const listResult = (
  { locationList }: { locationList: LocationData[] },
  { baseUrl }: { baseUrl: string },
) => ({
  status: 200,
  body: { locationList: locationList.map((l) => locationElement(l, baseUrl)) },
});

/**
 * The direct path of the list rows (a fast path): the rows `LIST_DOCUMENT` resolves, read
 * in two queries, and the body `listResult` gives, written straight from them
 * (src/rest/location-list.ts). Everything is read before the answer starts, within the request's
 * deadline; declines, so the generic path answers, when the data holds what the generic path
 * would fail on (see `writable`).
 * @throws as the operation would: NotFoundError for an unknown `name`, ForbiddenError without
 *   the grant, database failures (503) including statements refused past the deadline.
 */
const directList: RestRoute<{ locationList: LocationData[] }>['direct'] = async (
  gctx,
  variables,
  { baseUrl },
  format,
) => {
  const { tenantId } = callerOf(gctx);
  assertPermissions(gctx, [Permission.PCRF_LOCATION_READ_PERMISSION]);
  const name = typeof variables.name === 'string' ? variables.name : null;
  const data = await gctx.services.locations.listWithRates(tenantId, name);
  if (!writable(data)) return undefined;
  return { status: 200, body: locationListStream(data, format, baseUrl, hrefs) };
};

/**
 * The entity tag of the list rows, from the tenant's location data version (one primary-key read,
 * not the list): the version, then the representation's key (tenant, format, `name`, base URL of
 * the hrefs). Read before the list (`directList`), so a write between the two reads can only make
 * the tag older than the body, never newer (see `versionTag`).
 * @throws ForbiddenError without the grant, database failures (503).
 */
const listTag: RestRoute['etag'] = async (gctx, variables, { baseUrl }, format) => {
  const { tenantId } = callerOf(gctx);
  assertPermissions(gctx, [Permission.PCRF_LOCATION_READ_PERMISSION]);
  const name = typeof variables.name === 'string' ? variables.name : null;
  const version = await gctx.services.locations.version(tenantId);
  return versionTag(version, [tenantId, format, name, baseUrl]);
};

/** GET /pcc/pcrf/locations[?name=] (CONTRACT §6): every location by id, or the named one (404 when absent). */
const list = defineRoute<{ locationList: LocationData[] }>({
  ...common,
  path: '/pcc/pcrf/locations',
  doc: locationDoc({
    operationId: 'listLocations',
    summary: 'List the locations, or the one named by `name`',
    description: 'Every location of the tenant, ordered by id.',
    query: { name: { description: 'only this location (404 when absent)', schema: { type: 'string' } } },
    responses: {
      200: { description: 'the locations', schema: LOCATION_LIST, example: LOCATION_EXAMPLE },
      404: { description: 'no location has that `name`' },
    },
  }),
  document: LIST_DOCUMENT,
  variables: ({ query }) => ({ name: optionalQueryString(query, 'name') }),
  result: listResult,
  direct: directList,
  etag: listTag,
});

/** GET /pcc/pcrf/locations/<name> (CONTRACT §6, name appended to the path): one element, 404 when absent. */
const one = defineRoute<{ locationList: LocationData[] }>({
  ...common,
  path: '/pcc/pcrf/locations/:name',
  doc: locationDoc({
    operationId: 'getLocation',
    summary: 'One location, as a one-element list',
    params: NAME_PARAM,
    responses: {
      200: { description: 'the location', schema: LOCATION_LIST, example: LOCATION_EXAMPLE },
      404: { description: 'no such location' },
    },
  }),
  document: LIST_DOCUMENT,
  variables: ({ params }) => ({ name: params.name }),
  result: listResult,
  direct: directList,
  etag: listTag,
});

const infosRow = (path: string, operationId: string, summary: string) =>
  defineRoute<{ location: { name: string; infos: InfoData[] } | null }>({
    ...common,
    path,
    doc: locationDoc({
      operationId,
      summary,
      params: NAME_PARAM,
      responses: {
        200: {
          description: 'the location infos; `[]` for a location without any',
          schema: LOCATION_INFO_LIST,
          example: { locationInfoList: [infoElement(INFO_EXAMPLE, 'ZONE-1', BASE)] },
        },
        404: { description: 'no such location' },
      },
    }),
    document: `query LocationInfos($name: String!) { location(name: $name) { name infos: infoList { ${INFO_SELECTION} } } }`,
    variables: ({ params }) => ({ name: params.name }),
    result: ({ location }, { params, baseUrl }) =>
      location
        ? {
            status: 200,
            body: { locationInfoList: location.infos.map((i) => infoElement(i, location.name, baseUrl)) },
          }
        : notFound('location', params.name),
  });

/** GET /pcc/pcrf/locations/<name>/locationProfiles: the location's profiles (the `locationProfiles` link). */
const profiles = defineRoute<{ location: { name: string; profiles: ProfileData[] } | null }>({
  ...common,
  path: '/pcc/pcrf/locations/:name/locationProfiles',
  doc: locationDoc({
    operationId: 'listLocationProfiles',
    summary: "A location's profiles (its `locationProfiles` link)",
    params: NAME_PARAM,
    responses: {
      200: {
        description: 'the profiles',
        schema: LOCATION_PROFILE_LIST,
        example: {
          locationProfileList: [
            {
              locationProfile: { id: 1, name: 'ZONE-1-default', description: null },
              _links: { location: { href: `${BASE}/pcc/pcrf/locations/ZONE-1` } },
            },
          ],
        },
      },
      404: { description: 'no such location' },
    },
  }),
  document:
    'query LocationProfiles($name: String!) { location(name: $name) { name profiles: profileList { id: locationProfileId name description } } }',
  variables: ({ params }) => ({ name: params.name }),
  result: ({ location }, { params, baseUrl }) =>
    location
      ? {
          status: 200,
          body: {
            locationProfileList: location.profiles.map((p) => ({
              locationProfile: { id: p.id, name: p.name, description: p.description },
              _links: { location: { href: hrefs.location(baseUrl, location.name) } },
            })),
          },
        }
      : notFound('location', params.name),
});

/** GET /pcc/pcrf/locationInfos/<name>: one location info (an info's `self` link), 404 when absent. */
const info = defineRoute<{ locationInfo: (InfoData & { location: { name: string } }) | null }>({
  ...common,
  path: '/pcc/pcrf/locationInfos/:name',
  doc: locationDoc({
    operationId: 'getLocationInfo',
    summary: "One location info (an info's `self` link)",
    params: { name: 'location info name (percent-encoded)' },
    responses: {
      200: {
        description: 'the location info',
        schema: LOCATION_INFO_ELEMENT,
        example: infoElement(INFO_EXAMPLE, 'ZONE-1', BASE),
      },
      404: { description: 'no such location info' },
    },
  }),
  document: `query LocationInfo($name: String!) { locationInfo(name: $name) { ${INFO_SELECTION} location { name } } }`,
  variables: ({ params }) => ({ name: params.name }),
  result: ({ locationInfo }, { params, baseUrl }) =>
    locationInfo
      ? { status: 200, body: infoElement(locationInfo, locationInfo.location.name, baseUrl) }
      : notFound('location info', params.name),
});

/** The PCRF location rows (CONTRACT §6): the published paths and every path an emitted link names. */
export const LOCATION_ROUTES = [
  list,
  one,
  infosRow(
    '/pcc/pcrf/location/:name/locationInfo',
    'listLocationInfos',
    "A location's infos (the published path)",
  ),
  infosRow(
    '/pcc/pcrf/locations/:name/locationInfos',
    'listLocationInfosByLink',
    "A location's infos (its `locationInfos` link's path)",
  ),
  profiles,
  info,
] as ReadonlyArray<RestRoute<never>>;
