import { bodyParser } from '@koa/bodyparser';
import type { Context } from 'koa';
import typeis from 'type-is';

/** Largest accepted request body (CONTRACT §1): 1 MiB. */
export const BODY_LIMIT_BYTES = 1024 * 1024;

/** A request body that cannot be used: status 400, 413 or 415 and a message for the client. */
export class BodyError extends Error {
  override name = 'BodyError';
  constructor(
    readonly status: 400 | 413 | 415,
    message: string,
  ) {
    super(message);
  }
}

const parser = bodyParser({
  enableTypes: ['json'],
  jsonLimit: BODY_LIMIT_BYTES,
  jsonStrict: true,
  // A body without content-type is read as JSON (CONTRACT §1).
  detectJSON: (ctx) => !ctx.get('content-type'),
  parsedMethods: ['POST', 'PUT', 'PATCH', 'DELETE'],
});

/** True when the content-type is JSON (any case, parameters allowed) or absent. */
export function isJsonContentType(contentType: string | undefined): boolean {
  return !contentType || typeis.is(contentType.toLowerCase(), ['application/json', '+json']) !== false;
}

/**
 * Reads the request body as a JSON object (CONTRACT §1): a non-JSON content-type is 415, more
 * than 1 MiB is 413, unparseable JSON or a top level that is not an object is 400. An empty
 * body reads as `{}`.
 * @throws BodyError
 */
export async function readJsonObject(ctx: Context): Promise<Record<string, unknown>> {
  if (!isJsonContentType(ctx.get('content-type') || undefined)) {
    throw new BodyError(415, 'content-type must be application/json');
  }
  try {
    if (smallPlainBody(ctx)) ctx.request.body = await readSmallJson(ctx);
    else await parser(ctx, async () => undefined);
  } catch (err) {
    const status = (err as { status?: number }).status;
    if (status === 413) throw new BodyError(413, `request body exceeds ${BODY_LIMIT_BYTES} bytes`);
    if (status === 415) throw new BodyError(415, 'unsupported content encoding');
    throw new BodyError(400, 'request body is not valid JSON');
  }
  const body = ctx.request.body;
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new BodyError(400, 'request body must be a JSON object');
  }
  return body as Record<string, unknown>;
}

/** Largest body {@link readSmallJson} reads itself, bytes (issue 16 "Speed"). */
const SMALL_BODY_BYTES = 64 * 1024;

/**
 * True when the body can be read by {@link readSmallJson}: a POST or PUT not read yet, its
 * length declared (at most {@link SMALL_BODY_BYTES}) and no content-encoding. Everything else
 * (chunked, compressed, large, a closed request) goes through @koa/bodyparser.
 */
function smallPlainBody(ctx: Context): boolean {
  if ((ctx.method !== 'POST' && ctx.method !== 'PUT') || ctx.request.body !== undefined) return false;
  const { headers } = ctx.req;
  const length = headers['content-length'];
  return (
    headers['content-encoding'] === undefined &&
    length !== undefined &&
    /^\d{1,6}$/.test(length) &&
    Number(length) <= SMALL_BODY_BYTES &&
    !ctx.req.closed
  );
}

// co-body's strict JSON rule (RFC 7159 whitespace, then an object or an array) and
// @hapi/bourne's test for a `__proto__` key, which the parser refuses ("prototype poisoning").
const STRICT_JSON = /^[ \t\n\r]*(\[|\{)/;
const SUSPECT_PROTO =
  /"(?:_|\\u005[Ff])(?:_|\\u005[Ff])(?:p|\\u0070)(?:r|\\u0072)(?:o|\\u006[Ff])(?:t|\\u0074)(?:o|\\u006[Ff])(?:_|\\u005[Ff])(?:_|\\u005[Ff])"\s*:/;

/** True when `value` or anything inside it has an own `__proto__` key. */
function hasProtoKey(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (Object.prototype.hasOwnProperty.call(value, '__proto__')) return true;
  return Object.values(value).some(hasProtoKey);
}

/**
 * Reads a small JSON body of declared length (issue 16 "Speed": the request path's bodies are
 * a few hundred bytes) with the same outcome as the JSON parser above: UTF-8 with a leading
 * byte order mark dropped, an empty body `{}`, strict JSON (object or array at the top), a
 * `__proto__` key refused. Throws an error with status 400 when the body is cut short or does
 * not parse.
 */
async function readSmallJson(ctx: Context): Promise<unknown> {
  const chunks: Buffer[] = [];
  let received = 0;
  try {
    for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
      chunks.push(chunk);
      received += chunk.length;
    }
  } catch {
    throw Object.assign(new Error('request aborted'), { status: 400 });
  }
  if (received !== Number(ctx.req.headers['content-length']))
    throw Object.assign(new Error('request size did not match content length'), { status: 400 });
  let text = Buffer.concat(chunks, received).toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (!text) return {};
  if (!STRICT_JSON.test(text)) throw Object.assign(new Error('invalid JSON'), { status: 400 });
  const parsed: unknown = JSON.parse(text);
  if (SUSPECT_PROTO.test(text) && hasProtoKey(parsed))
    throw Object.assign(new Error('forbidden prototype property'), { status: 400 });
  return parsed;
}

// Reads an urlencoded body as text; it is split into parameters below (URLSearchParams), so that
// `a[b]=c` stays a flat parameter name instead of the nested object `qs` would make of it.
const formParser = bodyParser({
  enableTypes: ['text'],
  extendTypes: { text: ['application/x-www-form-urlencoded'] },
  textLimit: BODY_LIMIT_BYTES,
  parsedMethods: ['POST'],
});

const FORM = 'application/x-www-form-urlencoded';

/**
 * Reads an `application/x-www-form-urlencoded` body (RFC 6749 §3.2, UTF-8) as flat string
 * parameters, or a JSON body as {@link readJsonObject} does. Opt-in per row (the standard OAuth
 * 2.0 rows); every legacy row stays JSON-only. A parameter given more than once is 400
 * (RFC 6749 §3.2: "MUST NOT be included more than once"); another content-type is 415; more
 * than 1 MiB is 413.
 * @throws BodyError
 */
export async function readFormOrJsonObject(ctx: Context): Promise<Record<string, unknown>> {
  const contentType = ctx.get('content-type') || undefined;
  if (isJsonContentType(contentType)) return readJsonObject(ctx);
  if (typeis.is(contentType!.toLowerCase(), [FORM]) === false) {
    throw new BodyError(415, `content-type must be ${FORM} or application/json`);
  }
  try {
    await formParser(ctx, async () => undefined);
  } catch (err) {
    const status = (err as { status?: number }).status;
    if (status === 413) throw new BodyError(413, `request body exceeds ${BODY_LIMIT_BYTES} bytes`);
    if (status === 415) throw new BodyError(415, 'unsupported content encoding');
    throw new BodyError(400, 'request body is not valid form data');
  }
  const raw = ctx.request.body;
  const params = new Map<string, string>();
  for (const [name, value] of new URLSearchParams(typeof raw === 'string' ? raw : '')) {
    if (params.has(name)) throw new BodyError(400, `${name} must be given once`);
    params.set(name, value);
  }
  return Object.fromEntries(params);
}
