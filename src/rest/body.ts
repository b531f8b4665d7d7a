import { bodyParser } from '@koa/bodyparser';
import coBody from 'co-body';
import type { Context } from 'koa';
import typeis from 'type-is';
import { BODY_LIMIT_BYTES } from '../http/limits';
import { memoByString } from '../lib/memo';

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

/**
 * co-body's JSON reader (the one @koa/bodyparser runs), called directly: the content-type is
 * checked here already, so @koa/bodyparser's own type detection (type-is on every request) only
 * cost time (a hot path). Strict: the top level must be an object or array, an empty body
 * reads as `{}`; a `__proto__` key is an error; content-encoding gzip, deflate and br are
 * inflated, another is 415; more than {@link BODY_LIMIT_BYTES} is 413.
 */
const JSON_READ: coBody.Options & { onProtoPoisoning: 'error' } = {
  limit: BODY_LIMIT_BYTES,
  strict: true,
  encoding: 'utf-8',
  onProtoPoisoning: 'error',
};

/**
 * True when the content-type is `application/json` or a `+json` type (any case, parameters
 * allowed; `+json` goes beyond docs/contract.md §1, see docs/rest.md), or absent.
 */
export function isJsonContentType(contentType: string | undefined): boolean {
  return !contentType || jsonContentType(contentType);
}

const jsonContentType = memoByString(
  (contentType) => typeis.is(contentType.toLowerCase(), ['application/json', '+json']) !== false,
);

/**
 * The `next` the form parser gets: nothing runs after it. Not async (the parser awaits its
 * result either way): one promise less per request body (a hot path).
 */
const end = (() => undefined) as unknown as () => Promise<void>;

/**
 * Reads the request body as a JSON object (docs/contract.md §1): a non-JSON content-type is 415, more
 * than 1 MiB is 413, unparseable JSON or a top level that is not an object is 400. An empty
 * body reads as `{}`.
 * @throws BodyError (the promise rejects with it)
 */
export function readJsonObject(ctx: Context): Promise<Record<string, unknown>> {
  if (!isJsonContentType(ctx.get('content-type') || undefined)) {
    return Promise.reject(new BodyError(415, 'content-type must be application/json'));
  }
  // `then` rather than an async function: one promise less per request (a hot path).
  return coBody.json(ctx, JSON_READ).then(
    (body: unknown) => {
      if (body === null || typeof body !== 'object' || Array.isArray(body)) {
        throw new BodyError(400, 'request body must be a JSON object');
      }
      return body as Record<string, unknown>;
    },
    (err: unknown) => {
      throw parseFailure(err, 'request body is not valid JSON');
    },
  );
}

/** The BodyError for a body parser's failure: 413 too large, 415 unknown encoding, else 400 `invalid`. */
function parseFailure(err: unknown, invalid: string): BodyError {
  const status = (err as { status?: number }).status;
  if (status === 413) return new BodyError(413, `request body exceeds ${BODY_LIMIT_BYTES} bytes`);
  if (status === 415) return new BodyError(415, 'unsupported content encoding');
  return new BodyError(400, invalid);
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
export function readFormOrJsonObject(ctx: Context): Promise<Record<string, unknown>> {
  const contentType = ctx.get('content-type') || undefined;
  // Not an async function: a JSON body (the usual one) costs no promise more than readJsonObject.
  return isJsonContentType(contentType) ? readJsonObject(ctx) : readFormObject(ctx, contentType!);
}

/** The form half of {@link readFormOrJsonObject}. */
async function readFormObject(ctx: Context, contentType: string): Promise<Record<string, unknown>> {
  if (typeis.is(contentType.toLowerCase(), [FORM]) === false) {
    throw new BodyError(415, `content-type must be ${FORM} or application/json`);
  }
  try {
    await formParser(ctx, end);
  } catch (err) {
    throw parseFailure(err, 'request body is not valid form data');
  }
  const raw = ctx.request.body;
  const params = new Map<string, string>();
  for (const [name, value] of new URLSearchParams(typeof raw === 'string' ? raw : '')) {
    if (params.has(name)) throw new BodyError(400, `${name} must be given once`);
    params.set(name, value);
  }
  return Object.fromEntries(params);
}
