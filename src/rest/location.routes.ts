import { Permission } from '../auth/permissions';
import { RestRoute, defineRoute, optionalQueryString } from './route';

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

const LOCATION_SELECTION = 'id name description rates { id name description locationRate }';
const INFO_SELECTION = 'id name description value type { id name value }';

/** A `locationList[]` element (spec 2.8), keys in the published order. */
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

/** A `locationInfoList[]` element (spec 2.9), keys in the published order. */
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

/** GET /pcc/pcrf/locations[?name=] (spec 4.6): every location by id, or the named one (404 when absent). */
const list = defineRoute<{ locationList: LocationData[] }>({
  ...common,
  path: '/pcc/pcrf/locations',
  document: LIST_DOCUMENT,
  variables: ({ query }) => ({ name: optionalQueryString(query, 'name') }),
  result: listResult,
});

/** GET /pcc/pcrf/locations/<name> (spec 4.6, name appended to the path): one element, 404 when absent. */
const one = defineRoute<{ locationList: LocationData[] }>({
  ...common,
  path: '/pcc/pcrf/locations/:name',
  document: LIST_DOCUMENT,
  variables: ({ params }) => ({ name: params.name }),
  result: listResult,
});

const infosRow = (path: string) =>
  defineRoute<{ location: { name: string; infos: InfoData[] } | null }>({
    ...common,
    path,
    document: `query LocationInfos($name: String!) { location(name: $name) { name infos { ${INFO_SELECTION} } } }`,
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
  document:
    'query LocationProfiles($name: String!) { location(name: $name) { name profiles { id name description } } }',
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
  document: `query LocationInfo($name: String!) { locationInfo(name: $name) { ${INFO_SELECTION} location { name } } }`,
  variables: ({ params }) => ({ name: params.name }),
  result: ({ locationInfo }, { params, baseUrl }) =>
    locationInfo
      ? { status: 200, body: infoElement(locationInfo, locationInfo.location.name, baseUrl) }
      : notFound('location info', params.name),
});

/** The PCRF location rows (CONTRACT §6): the spec paths and every path an emitted link names. */
export const LOCATION_ROUTES = [
  list,
  one,
  infosRow('/pcc/pcrf/location/:name/locationInfo'),
  infosRow('/pcc/pcrf/locations/:name/locationInfos'),
  profiles,
  info,
] as ReadonlyArray<RestRoute<never>>;
