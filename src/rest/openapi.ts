import type { Middleware } from 'koa';
import { VERSION } from '../version';
import { systemPaths } from './openapi-system';
import { ErrorStyle, ResponseDoc, RestRoute } from './route';
import { ROUTES } from './routes';
import {
  JsonSchema,
  OAUTH2_ERROR,
  OAUTH_ERROR,
  PLAIN_ERROR,
  SQS_ERROR,
  SQS_VALIDATION_ERRORS,
  integer,
  nameOf,
  permissionsHeaderSchema,
  text,
} from './schemas';
import { toXml } from './xml';

/** An OpenAPI 3.1 document as JSON (what `GET /openapi.json` and `schema/openapi.json` hold). */
export type OpenApiDocument = Record<string, unknown> & {
  paths: Record<string, Record<string, OpenApiOperation>>;
};

/** One operation of the document (the parts tests and the generator read). */
export interface OpenApiOperation {
  operationId: string;
  responses: Record<string, { content?: Record<string, { schema: JsonSchema }> }>;
  [key: string]: unknown;
}

/** Where the document is served (public, like /healthz; CONTRACT §2): see ./openapi-system.ts. */
export { OPENAPI_PATH } from './openapi-system';

const JSON_TYPE = 'application/json';
const XML_TYPE = 'application/xml';
const FORM_TYPE = 'application/x-www-form-urlencoded';
const ALL_SECURITY = [{ basic: [] }, { authorisation: [] }];

const TAGS = [
  { name: 'tokens', description: 'Captive-portal tokens, legacy paths (CONTRACT §3).' },
  { name: 'charging', description: 'Rating and refund (CONTRACT §4): HTTP 200 for every business outcome.' },
  { name: 'quota sharing', description: 'Donations, groups, members, recurring donations (CONTRACT §5).' },
  { name: 'locations', description: 'PCRF locations (CONTRACT §6), HAL links.' },
  { name: 'OAuth 2.0', description: 'RFC 6749 client credentials, RFC 7662, RFC 7009, RFC 8414; JSON only.' },
  { name: 'system', description: 'Probes, metrics and this document: public, never shed.' },
];

const INFO_DESCRIPTION = `Legacy REST paths of the Subscriber Gateway, generated from its route table
(src/rest/routes.ts). Every path runs a GraphQL operation of the same schema as \`/graphql\`
(see schema/schema.graphql).

- **Credentials**: HTTP Basic in \`authorization\` or the published spelling \`authorisation\`
  (same value). Missing or bad: 401 with \`www-authenticate: Basic realm="subscriber-gateway"\`.
- **Tenant**: the \`tenant\` header, where sent, must name the client's tenant (else 403); rating
  and quota-sharing paths require it (missing: 400).
- **Response format**: JSON when \`application/json\` is the client's best acceptable type in
  \`accept\` (case-insensitive, q-values honoured); otherwise XML (\`application/xml; charset=utf-8\`):
  root \`<response>\`, one child element per key in order, one repeated element per array item,
  an empty element for null. Error bodies follow the same rule. The \`/oauth2/*\` paths answer JSON only.
- **Request bodies**: JSON (a missing content-type is read as JSON), at most 1 MiB (413); other
  content types 415. Unknown fields are ignored.
- Every response carries \`x-request-id\`. Money is a decimal string (at most 6 fractional digits).`;

const HEADERS: Record<string, { description: string; schema: JsonSchema }> = {
  XRequestId: { description: 'echoes a valid incoming x-request-id, else a generated one', schema: text('') },
  RetryAfter: { description: 'seconds to wait before retrying', schema: integer('') },
  WwwAuthenticate: { description: '`Basic realm="subscriber-gateway"`', schema: text('') },
  CacheControl: {
    description:
      '`no-store` (token responses); `private, no-cache` (a GET answer: revalidate with `If-None-Match`)',
    schema: text(''),
  },
  ETag: { description: 'strong entity tag of this representation (JSON and XML differ)', schema: text('') },
  Pragma: { description: '`no-cache` (token responses)', schema: text('') },
};

const headerRef = (name: keyof typeof HEADERS) => ({ $ref: `#/components/headers/${name}` });

/** The error body a row of `style` answers with `status` (src/rest/failure.ts and oauth2.ts). */
function errorSchema(style: ErrorStyle, status: number): JsonSchema {
  // The overload guard and the error guard (src/app.ts) answer every path with the plain body.
  const orPlain = (s: JsonSchema): JsonSchema =>
    status === 500 || status === 503 ? { anyOf: [s, PLAIN_ERROR] } : s;
  if (style === 'oauth2') return orPlain(OAUTH2_ERROR);
  if (style === 'oauth') return status === 403 ? PLAIN_ERROR : orPlain(OAUTH_ERROR);
  if (style === 'sqs') {
    if (status === 412) return SQS_VALIDATION_ERRORS;
    if (status === 404 || status === 409 || status === 422) return SQS_ERROR;
  }
  return PLAIN_ERROR;
}

/** The statuses a row's transport rules give (src/rest/router.ts, body.ts, app.ts), with why. */
function transportResponses(route: RestRoute<never>): Record<number, string> {
  const body = route.method === 'POST' || route.method === 'PUT';
  const oauth2 = route.style === 'oauth2';
  const r: Record<number, string[]> = {};
  const add = (status: number, why: string) => (r[status] ??= []).push(why);
  if (body) add(400, 'the body is not valid JSON or not a JSON object, or a field has the wrong JSON type');
  if (route.tenantHeader === 'required') add(400, 'the `tenant` header is missing');
  if (route.doc.query) add(400, 'a query parameter is repeated or malformed');
  if (route.method === 'GET') add(304, '`If-None-Match` names the current `ETag`: no body');
  add(401, 'missing or bad credentials (a disabled client too)');
  const forbidden = oauth2 ? 400 : 403;
  const prefix = oauth2 ? '`unauthorized_client`: ' : '';
  add(forbidden, `${prefix}the client lacks the permission this path needs`);
  add(forbidden, `${prefix}the \`tenant\` header names another tenant`);
  if (route.permissionHeader)
    add(forbidden, `${prefix}the \`permissions\` header does not name ${route.permissionHeader}`);
  if (route.idempotent) {
    add(412, '`Idempotency-Key` is not 1-255 visible ASCII characters');
    add(409, 'a request with this `Idempotency-Key` is still in flight');
    add(422, 'this `Idempotency-Key` was used with another body within 24 h (errorCode 1)');
  }
  if (body) {
    add(413, 'the body exceeds 1 MiB');
    add(415, 'the content-type is not JSON' + (oauth2 ? ' nor form-urlencoded' : ''));
  }
  add(
    429,
    'too many failed logins for this username or client address (`AUTH_MAX_FAILURES`, `AUTH_MAX_FAILURES_PER_ADDRESS` within `AUTH_WINDOW_SECONDS`), or the client is over its rate limit (with `RateLimit-Policy` and `RateLimit` headers, docs/operations.md "Rate limits"); retry after `retry-after` seconds',
  );
  add(431, 'the request headers exceed 16 KiB (Node.js answers, before the gateway: no body, no headers)');
  add(500, 'internal error (a defect; the body carries no detail)');
  add(
    503,
    route.unavailable
      ? 'overloaded (`MAX_INFLIGHT` requests in flight); a database failure is a return code instead'
      : 'overloaded, the database is unavailable, or the request deadline passed',
  );
  return Object.fromEntries(Object.entries(r).map(([s, why]) => [s, why.join('; ')]));
}

/** Named schemas collected while one document is built, and the function that collects them. */
interface SchemaHoist {
  /** `components.schemas`: each named schema once, in first-use order. */
  readonly schemas: Record<string, unknown>;
  /** Walks a schema and replaces every named schema in it with a `$ref` to `components.schemas`. */
  hoist(value: unknown): unknown;
}

/** A fresh {@link SchemaHoist}; a name is reserved before its schema is walked, so a cycle ends in a `$ref`. */
function schemaHoist(): SchemaHoist {
  const schemas: Record<string, unknown> = {};
  const hoist = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(hoist);
    if (value === null || typeof value !== 'object') return value;
    const name = nameOf(value);
    const walked = () => Object.fromEntries(Object.entries(value).map(([k, v]) => [k, hoist(v)]));
    if (name === undefined) return walked();
    if (!(name in schemas)) {
      schemas[name] = null;
      schemas[name] = walked();
    }
    return { $ref: `#/components/schemas/${name}` };
  };
  return { schemas, hoist };
}

/** A response's or request's `content`: JSON, plus XML (root `<response>`) when `xml` is set. */
function mediaContent(h: SchemaHoist, schema: JsonSchema, example: unknown, xml: boolean) {
  const s = h.hoist(schema) as JsonSchema;
  const out: Record<string, unknown> = {
    [JSON_TYPE]: { schema: s, ...(example !== undefined ? { example } : {}) },
  };
  if (xml)
    out[XML_TYPE] = {
      schema: { ...s, xml: { name: 'response' } },
      ...(example !== undefined ? { example: toXml(example as Record<string, unknown>) } : {}),
    };
  return out;
}

/** One status of a row's `responses`: its headers, and its body schema unless 204 or 431. */
function response(
  h: SchemaHoist,
  route: RestRoute<never>,
  status: number,
  doc: ResponseDoc,
): Record<string, unknown> {
  if (status === 431) return { description: doc.description };
  const headers: Record<string, unknown> = { 'x-request-id': headerRef('XRequestId') };
  if (route.noStore) {
    headers['cache-control'] = headerRef('CacheControl');
    headers.pragma = headerRef('Pragma');
  }
  if (route.method === 'GET' && (status === 200 || status === 304)) {
    headers.etag = headerRef('ETag');
    headers['cache-control'] = headerRef('CacheControl');
  }
  if (status === 401) headers['www-authenticate'] = headerRef('WwwAuthenticate');
  if (status === 503 || status === 429 || (status === 409 && route.idempotent))
    headers['retry-after'] = headerRef('RetryAfter');
  if (status === 204 || status === 304) return { description: doc.description, headers };
  const schema = doc.schema ?? (status >= 400 ? errorSchema(route.style, status) : undefined);
  if (!schema) throw new Error(`REST row ${route.method} ${route.path}: status ${status} needs a schema`);
  const xml = route.style !== 'oauth2' || status === 500 || status === 503;
  return { description: doc.description, headers, content: mediaContent(h, schema, doc.example, xml) };
}

type RouteDoc = RestRoute<never>['doc'];

/** A row's path parameters (each must be described in `doc.params`) and query parameters. */
function pathAndQueryParameters(h: SchemaHoist, route: RestRoute<never>, doc: RouteDoc, where: string) {
  const parameters: unknown[] = [];
  for (const [, name] of route.path.matchAll(/:(\w+)/g)) {
    const description = doc.params?.[name];
    if (!description) throw new Error(`${where}: path parameter ${name} is not described`);
    parameters.push({ name, in: 'path', required: true, description, schema: { type: 'string' } });
  }
  for (const [name, q] of Object.entries(doc.query ?? {}))
    parameters.push({
      name,
      in: 'query',
      required: false,
      description: q.description,
      schema: h.hoist(q.schema),
    });
  return parameters;
}

/** A row's header parameters: `tenant`, and `permissions`, `Idempotency-Key`, `If-None-Match`, `accept` where they apply. */
function headerParameters(route: RestRoute<never>): unknown[] {
  const parameters: unknown[] = [];
  parameters.push({
    name: 'tenant',
    in: 'header',
    required: route.tenantHeader === 'required',
    description: "the client's tenant; another tenant is 403",
    schema: text('tenant name', { examples: ['acme'] }),
  });
  if (route.permissionHeader)
    parameters.push({
      name: 'permissions',
      in: 'header',
      required: true,
      description: `must name ${route.permissionHeader}, which the client must also hold`,
      schema: permissionsHeaderSchema(route.permissionHeader),
    });
  if (route.idempotent)
    parameters.push({
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      description:
        'IETF httpapi draft: the same key and body within 24 h replays the first status and body (per tenant)',
      schema: text('1-255 visible ASCII characters, bare or as a structured-field string'),
    });
  if (route.method === 'GET')
    parameters.push({
      name: 'If-None-Match',
      in: 'header',
      required: false,
      description: 'ETags from earlier answers (or `*`): 304 with no body when one is the current tag',
      schema: text('', { examples: ['"v12-Vd2bT8oXq1mY4kPz"'] }),
    });
  if (route.style !== 'oauth2')
    parameters.push({
      name: 'accept',
      in: 'header',
      required: false,
      description: 'JSON when application/json is the best acceptable type, otherwise XML',
      schema: text('', { examples: [JSON_TYPE] }),
    });
  return parameters;
}

/** A row's `requestBody` (JSON; OAuth 2.0 rows also form-urlencoded); POST and PUT rows must describe one. */
function requestBody(h: SchemaHoist, route: RestRoute<never>, doc: RouteDoc, where: string) {
  const hasBody = route.method === 'POST' || route.method === 'PUT';
  if (hasBody && !doc.request) throw new Error(`${where}: the request body is not described`);
  return (
    doc.request && {
      required: false,
      content: {
        [JSON_TYPE]: { schema: h.hoist(doc.request.schema), example: doc.request.example },
        ...(route.style === 'oauth2' ? { [FORM_TYPE]: { schema: h.hoist(doc.request.schema) } } : {}),
      },
    }
  );
}

/**
 * A row's `responses` in status order: the transport statuses ({@link transportResponses}) merged
 * with the row's own (a status in both is described as "own; transport").
 */
function responses(h: SchemaHoist, route: RestRoute<never>, doc: RouteDoc) {
  const statuses: Record<number, ResponseDoc> = {};
  for (const [status, why] of Object.entries(transportResponses(route)))
    statuses[Number(status)] = { description: why };
  for (const [status, own] of Object.entries(doc.responses)) {
    const transport = statuses[Number(status)]?.description;
    statuses[Number(status)] = transport ? { ...own, description: `${own.description}; ${transport}` } : own;
  }
  return Object.fromEntries(
    Object.entries(statuses)
      .sort(([a], [b]) => Number(a) - Number(b))
      .map(([status, d]) => [status, response(h, route, Number(status), d)]),
  );
}

/** One row's operation object. @throws Error naming the row when its doc is missing or incomplete. */
function operation(h: SchemaHoist, route: RestRoute<never>): OpenApiOperation {
  const doc = route.doc as RouteDoc | undefined;
  const where = `REST row ${route.method} ${route.path}`;
  if (!doc) throw new Error(`${where} has no doc (add summary, request and responses to the row)`);
  // Built in this order so that named schemas land in components.schemas in first-use order.
  const parameters = [...pathAndQueryParameters(h, route, doc, where), ...headerParameters(route)];
  const body = requestBody(h, route, doc, where);
  const security =
    route.style === 'oauth2'
      ? [...ALL_SECURITY, {}] // client_secret_post: credentials in the body instead
      : ALL_SECURITY;
  return {
    operationId: doc.operationId,
    tags: [doc.tag],
    summary: doc.summary,
    ...(doc.description ? { description: doc.description } : {}),
    security,
    parameters,
    ...(body ? { requestBody: body } : {}),
    responses: responses(h, route, doc),
  };
}

/** `components` of the document: the hoisted schemas, the shared response headers, the security schemes. */
function components(h: SchemaHoist) {
  return {
    schemas: h.schemas,
    headers: Object.fromEntries(
      Object.entries(HEADERS).map(([k, hd]) => [k, { description: hd.description, schema: hd.schema }]),
    ),
    securitySchemes: {
      basic: { type: 'http', scheme: 'basic', description: 'API client username and password' },
      authorisation: {
        type: 'apiKey',
        in: 'header',
        name: 'authorisation',
        description: 'the published spelling of the header: `Basic base64(username:password)`',
      },
    },
  };
}

/**
 * Builds the OpenAPI 3.1 document from the route table (CONTRACT §8): one operation per row with
 * its path, method, headers (`tenant`, `permissions`, `Idempotency-Key`, `accept`, credentials as
 * security schemes), request body, every status with its JSON and XML body schema and examples;
 * plus the system paths and the RFC 8414 metadata document. Schemas registered with `named` are
 * listed once under `components.schemas`.
 * @throws Error naming the row when a row has no `doc`, leaves a path parameter or a request body
 *   undocumented, or reuses an operationId.
 */
export function buildOpenApi(routes: ReadonlyArray<RestRoute<never>> = ROUTES): OpenApiDocument {
  const h = schemaHoist();
  const paths: OpenApiDocument['paths'] = {};
  const ids = new Set<string>();
  for (const route of routes) {
    const op = operation(h, route);
    if (ids.has(op.operationId)) throw new Error(`operationId ${op.operationId} is used twice`);
    ids.add(op.operationId);
    const path = route.path.replace(/:(\w+)/g, '{$1}');
    (paths[path] ??= {})[route.method.toLowerCase()] = op;
  }
  Object.assign(
    paths,
    systemPaths((schema, example, xml) => mediaContent(h, schema, example, xml), headerRef('XRequestId')),
  );

  return {
    openapi: '3.1.0',
    info: { title: 'Subscriber Gateway REST API', version: VERSION, description: INFO_DESCRIPTION },
    tags: TAGS,
    paths,
    components: components(h),
  };
}

let built: string | undefined;

/** The document as committed in schema/openapi.json: 2-space JSON and a final newline. */
export function printOpenApi(): string {
  built ??= JSON.stringify(buildOpenApi(), null, 2) + '\n';
  return built;
}

/** `GET /openapi.json`: the document, JSON whatever `accept` says (public; CONTRACT §2). */
export function openApiHandler(): Middleware {
  // Built on the first request, not at start-up (it costs start-up time); the tests check every row's doc.
  return (ctx) => {
    ctx.type = 'application/json; charset=utf-8';
    ctx.body = printOpenApi();
  };
}
