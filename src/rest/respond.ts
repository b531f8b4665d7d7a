import type { Readable } from 'node:stream';
import type { Context } from 'koa';
import { Format, negotiateFormat } from './negotiate';
import { toXml } from './xml';

/** Adds `vary: accept` (the header `ctx.vary` would write, without parsing when there is none yet). */
function varyAccept(ctx: Context): void {
  if (ctx.response.get('vary')) ctx.vary('accept');
  else ctx.set('vary', 'accept');
}

/** The format a request negotiated (docs/contract.md §1): JSON when it is the best acceptable type, else XML. */
export function requestFormat(ctx: Context): Format {
  return negotiateFormat(ctx.get('accept') || undefined);
}

/**
 * Streams a REST response already serialised in `format` (UTF-8): the headers {@link sendBody}
 * sends for the same body, except that the length is not known ahead (chunked transfer coding).
 */
export function sendStream(ctx: Context, status: number, format: Format, body: Readable): void {
  ctx.status = status;
  varyAccept(ctx);
  ctx.type = format === 'json' ? 'application/json; charset=utf-8' : 'application/xml; charset=utf-8';
  ctx.body = body;
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
  if ((format ?? requestFormat(ctx)) === 'json') {
    ctx.type = 'application/json; charset=utf-8';
    ctx.body = JSON.stringify(body);
  } else {
    ctx.type = 'application/xml; charset=utf-8';
    ctx.body = toXml(body);
  }
}
