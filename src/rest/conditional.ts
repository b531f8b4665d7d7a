import { createHash } from 'node:crypto';
import type { Context } from 'koa';
import { VERSION } from '../version';

/**
 * HTTP caching of the REST GET rows (docs/platform.md "HTTP caching", RFC 9110 §8.8.3
 * and §13.1.2): every 200 answer of a GET row carries a strong `ETag` for its exact bytes and
 * `Cache-Control: private, no-cache` (a cache may keep it for this client only and must revalidate
 * it each time); a request whose `If-None-Match` names the current tag gets 304 with no body.
 */

/** `Cache-Control` of a GET row's 200 and 304: per client (bodies are per tenant), revalidated on every use. */
export const CACHE_CONTROL = 'private, no-cache';

const digest = (data: string | Buffer): string => createHash('sha1').update(data).digest('base64url');

/**
 * The strong entity tag of a rendered body: `"` + the body's SHA-1 (base64url, 27 characters) +
 * `"`. JSON and XML bodies differ in bytes, so their tags differ. The cost is one hash of bytes
 * already in memory (small bodies).
 */
export function bodyTag(body: string | Buffer): string {
  return `"${digest(body)}"`;
}

/**
 * The strong entity tag of a representation known before its body is read: `"v<version>-<key>"`
 * where `version` is the data version the body will be read at or after (see the caller's
 * ordering rule) and `key` hashes `parts` (tenant, format, query, base URL) together with the
 * gateway's own version, since an upgrade may render the same data differently.
 * The version must be read **before** the data: a write between the two reads then gives a tag
 * older than the body, which costs one more full answer on the next request, never a stale one.
 */
export function versionTag(version: number, parts: ReadonlyArray<string | number | null>): string {
  return `"v${version}-${digest(JSON.stringify([VERSION, ...parts])).slice(0, 16)}"`;
}

/** The opaque part of an entity tag: without a `W/` prefix (the weak comparison of RFC 9110 §8.8.3.2). */
const opaque = (tag: string): string => (tag.startsWith('W/') ? tag.slice(2) : tag);

// One entity-tag of an `If-None-Match` list: optional `W/`, then a quoted string (which may hold commas).
const ENTITY_TAG = /(?:W\/)?"[^"]*"/g;

/**
 * True when the request's `If-None-Match` matches `tag` (RFC 9110 §13.1.2): `*` (only when
 * `star`, i.e. the resource is known to exist), or a list of entity tags one of which equals
 * `tag` by the weak comparison (`W/"x"` matches `"x"`). False without the header.
 */
export function ifNoneMatchHits(ctx: Context, tag: string, star: boolean): boolean {
  const header = ctx.get('if-none-match');
  if (!header) return false;
  if (header.trim() === '*') return star;
  const want = opaque(tag);
  for (const candidate of header.match(ENTITY_TAG) ?? []) if (opaque(candidate) === want) return true;
  return false;
}

/** Sets `ETag` and `Cache-Control` of a cacheable GET answer (its 200 or its 304). */
export function setValidators(ctx: Context, tag: string): void {
  ctx.set('etag', tag);
  ctx.set('cache-control', CACHE_CONTROL);
}
