import type { Readable } from 'node:stream';
import type { Context } from 'koa';
import { bodyTag, ifNoneMatchHits, setValidators } from './conditional';
import { Format, negotiateFormat } from './negotiate';
import { toXml } from './xml';

const JSON_TYPE = 'application/json; charset=utf-8';
const XML_TYPE = 'application/xml; charset=utf-8';

/** Adds `vary: accept` (the header `ctx.vary` would write, without parsing when there is none yet). */
function varyAccept(ctx: Context): void {
  if (ctx.response.get('vary')) ctx.vary('accept');
  else ctx.set('vary', 'accept');
}

/**
 * Answers 304 Not Modified for `tag` (src/rest/conditional.ts): no body, with `ETag`,
 * `Cache-Control` and `Vary: accept`, the headers of the 200 a cache needs (RFC 9110 §15.4.5).
 */
export function sendNotModified(ctx: Context, tag: string): void {
  setValidators(ctx, tag);
  varyAccept(ctx);
  ctx.status = 304;
  ctx.body = null;
}

/** The format a request negotiated (docs/contract.md §1): JSON when it is the best acceptable type, else XML. */
export function requestFormat(ctx: Context): Format {
  return negotiateFormat(ctx.get('accept') || undefined);
}

/**
 * Streams a REST response already serialised in `format` (UTF-8): the headers {@link sendBody}
 * sends for the same body, except that the length is not known ahead (chunked transfer coding).
 * With `tag` (a GET row's 200, see src/rest/conditional.ts) it carries `ETag` and `Cache-Control`,
 * and answers 304 instead (the stream dropped unread) when `If-None-Match` matches, `*` included.
 * Returns the status sent.
 */
export function sendStream(
  ctx: Context,
  status: number,
  format: Format,
  body: Readable,
  tag?: string,
): number {
  if (tag !== undefined && status === 200) {
    if (ifNoneMatchHits(ctx, tag, true)) {
      body.destroy();
      sendNotModified(ctx, tag);
      return 304;
    }
    setValidators(ctx, tag);
  }
  ctx.status = status;
  varyAccept(ctx);
  ctx.type = format === 'json' ? JSON_TYPE : XML_TYPE;
  ctx.body = body;
  return status;
}

/**
 * Writes a REST response in the negotiated format (docs/contract.md §1): JSON when it is the client's
 * best acceptable type, otherwise XML. `vary: accept` tells caches the body depends on it. A null
 * body sends none (for 204). `format` overrides negotiation (the JSON-only OAuth 2.0 rows).
 */
export function sendBody(
  ctx: Context,
  status: number,
  body: Record<string, unknown> | null,
  format?: Format,
): void {
  ctx.status = status;
  varyAccept(ctx);
  if (body === null) {
    ctx.body = null;
    return;
  }
  const json = (format ?? requestFormat(ctx)) === 'json';
  ctx.type = json ? JSON_TYPE : XML_TYPE;
  ctx.body = json ? JSON.stringify(body) : toXml(body);
}

/**
 * Writes a GET row's 200 answer as {@link sendBody} does, with a strong `ETag` (`tag`, else the
 * hash of the rendered bytes) and `Cache-Control`; when `If-None-Match` matches (`*` included)
 * it answers 304 with no body instead (src/rest/conditional.ts). Returns the status sent.
 */
export function sendCacheable(
  ctx: Context,
  body: Record<string, unknown>,
  format?: Format,
  tag?: string,
): number {
  const json = (format ?? requestFormat(ctx)) === 'json';
  const text = json ? JSON.stringify(body) : toXml(body);
  const etag = tag ?? bodyTag(text);
  if (ifNoneMatchHits(ctx, etag, true)) {
    sendNotModified(ctx, etag);
    return 304;
  }
  setValidators(ctx, etag);
  ctx.status = 200;
  varyAccept(ctx);
  ctx.type = json ? JSON_TYPE : XML_TYPE;
  ctx.body = text;
  return 200;
}
