import { Readable } from 'node:stream';
import type { LocationRateRow, LocationRow } from '../modules/locations/location.store';
import type { Format } from './negotiate';
import { XML_PROLOGUE, plainNumber, xmlText } from './xml';

/**
 * The direct path of `GET /pcc/pcrf/locations` (a fast path): the body the generic path
 * writes (the row's GraphQL operation, `listResult`'s `locationElement`s, then `JSON.stringify` or
 * `toXml`), written straight from the rows without building the GraphQL result, the element
 * objects or the XMLBuilder's copy. Keys, order, escaping and number forms are the generic
 * path's; `test/e2e/location-list-direct.test.ts` compares the two byte for byte on both formats
 * and both databases. Change the `locationList` shape in `location.routes.ts` and here together.
 */

/** The location list as read for the direct path: `rates[i]` belongs to `locations[i]`. */
export interface LocationListData {
  locations: readonly LocationRow[];
  rates: readonly (readonly LocationRateRow[])[];
}

/** Hrefs of one location (CONTRACT §6), as `hrefs` in location.routes.ts builds them. */
export interface LocationHrefs {
  location(base: string, name: string): string;
  locationInfos(base: string, name: string): string;
  locationProfiles(base: string, name: string): string;
}

/** Locations written per chunk of the stream (about 64 KB of JSON, 90 KB of XML). */
export const LOCATIONS_PER_CHUNK = 128;

const INT_MIN = -(2 ** 31);
const INT_MAX = 2 ** 31 - 1;
const isInt = (n: number) => Number.isInteger(n) && n >= INT_MIN && n <= INT_MAX;

const q = JSON.stringify;
const jsonText = (s: string | null) => (s === null ? 'null' : q(s));

/** One `locationList[]` element as JSON, as `JSON.stringify(locationElement(l, base))` writes it. */
function jsonElement(l: LocationRow, rates: readonly LocationRateRow[], base: string, h: LocationHrefs) {
  let s = `{"location":{"id":${l.id},"name":${q(l.name)},"description":${jsonText(l.description)},"locationRates":[`;
  for (let i = 0; i < rates.length; i++) {
    const r = rates[i];
    s += `${i ? ',' : ''}{"id":${r.id},"name":${q(r.name)},"description":${jsonText(r.description)},"locationRate":${r.locationRate}}`;
  }
  return `${s}]},"_links":{"self":{"href":${q(h.location(base, l.name))}},"locationInfos":{"href":${q(h.locationInfos(base, l.name))}},"locationProfiles":{"href":${q(h.locationProfiles(base, l.name))}}}}`;
}

const xmlNullable = (s: string | null) => (s === null ? '' : xmlText(s));

/**
 * One `locationList` element as XML, as `toXml` writes it: null is an empty element, each rate
 * a repeated `locationRates` element (none for no rates).
 */
function xmlElement(l: LocationRow, rates: readonly LocationRateRow[], base: string, h: LocationHrefs) {
  let s = `<locationList><location><id>${plainNumber(l.id)}</id><name>${xmlText(l.name)}</name><description>${xmlNullable(l.description)}</description>`;
  for (const r of rates) {
    s += `<locationRates><id>${plainNumber(r.id)}</id><name>${xmlText(r.name)}</name><description>${xmlNullable(r.description)}</description><locationRate>${plainNumber(r.locationRate)}</locationRate></locationRates>`;
  }
  return `${s}</location><_links><self><href>${xmlText(h.location(base, l.name))}</href></self><locationInfos><href>${xmlText(h.locationInfos(base, l.name))}</href></locationInfos><locationProfiles><href>${xmlText(h.locationProfiles(base, l.name))}</href></locationProfiles></_links></locationList>`;
}

// A UTF-16 code unit without its pair: encodeURIComponent throws on it.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * True when the generic path would answer the list: every number is a GraphQL `Int` (32-bit;
 * otherwise graphql-js fails while serialising the result) and every location name can be
 * percent-encoded into its hrefs (otherwise `encodeURIComponent` throws). When false the direct
 * path declines and the generic path gives its own answer, so the two never differ; checked
 * before anything is sent, so a stream never fails half-way.
 */
export function writable({ locations, rates }: LocationListData): boolean {
  for (const l of locations) if (!isInt(l.id) || LONE_SURROGATE.test(l.name)) return false;
  for (const list of rates) for (const r of list) if (!isInt(r.id) || !isInt(r.locationRate)) return false;
  return true;
}

/**
 * Streams `{"locationList":[...]}` (JSON) or its XML form for `data`, already read in full: each
 * read of the stream writes the next {@link LOCATIONS_PER_CHUNK} locations as one UTF-8 chunk, so
 * only the chunks the socket has not taken yet are in memory, and the event loop gets a turn
 * whenever the socket is full. Nothing in it can fail once {@link writable} held (a client that
 * goes away just stops it).
 */
export function locationListStream(
  data: LocationListData,
  format: Format,
  base: string,
  h: LocationHrefs,
): Readable {
  const { locations, rates } = data;
  const json = format === 'json';
  const element = json ? jsonElement : xmlElement;
  let next = 0;
  return new Readable({
    read() {
      let s = next === 0 ? (json ? '{"locationList":[' : XML_PROLOGUE) : '';
      const end = Math.min(locations.length, next + LOCATIONS_PER_CHUNK);
      for (let i = next; i < end; i++)
        s += (json && i > 0 ? ',' : '') + element(locations[i], rates[i], base, h);
      next = end;
      if (end < locations.length) {
        this.push(Buffer.from(s));
        return;
      }
      this.push(Buffer.from(s + (json ? ']}' : '</response>')));
      this.push(null);
    },
  });
}
