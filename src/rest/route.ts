import type { Readable } from 'node:stream';
import { Permission } from '../auth/permissions';
import { RequestShapeError, ServiceUnavailableError } from '../errors';
import type { GatewayContext } from '../graphql/context';
import type { Format } from './negotiate';
import type { JsonSchema } from './schemas';

/**
 * How a path renders its error bodies (CONTRACT §1–3):
 * - `oauth`: token endpoints, `{"error","error_description"}` (401 `unauthorized`, published);
 * - `plain`: every other path, `{"errorCode":1,"message"}` unless a domain error gives its own code;
 * - `sqs`: quota-sharing paths (CONTRACT §5): 412 `{"errors":[{"field","description"}]}`, 404/409/422
 *   `{"message","errorCode"}`, other statuses as `plain`;
 * - `oauth2`: the standard OAuth 2.0 rows (`/oauth2/*`, not legacy): RFC 6749 §5.2 error bodies
 *   (`invalid_client` 401, `unauthorized_client`, ...), always JSON; the body may also be
 *   form-encoded and the client may authenticate by RFC 6749 §2.3.1 (see `oauth2.ts`).
 */
export type ErrorStyle = 'oauth' | 'plain' | 'sqs' | 'oauth2';

/** What a row's variable mapping sees of the request. */
export interface RestInput {
  params: Record<string, string>;
  query: Record<string, string | string[] | undefined>;
  body: Record<string, unknown>;
  /** Absolute base URL for links (PUBLIC_BASE_URL, else the request origin). */
  baseUrl: string;
  /**
   * Checks that the caller holds `permission`, as the operation's `@Authorized` would. A row whose
   * mapping answers legacy value checks itself (null or empty fields, CONTRACT §3) calls it after
   * reading the body's JSON types and before those checks, so a client without the grant gets 403
   * before any answer about the values, as when the checks ran inside the operation.
   * @throws ForbiddenError naming the missing grant.
   */
  requireGrant(permission: Permission): void;
}

/** Status and body a row answers with; a null body sends no content (204). */
export interface RestOutput {
  status: number;
  body: Record<string, unknown> | null;
}

/** What a row's {@link RestRoute.direct} path answers: the body in the negotiated format. */
export interface DirectOutput {
  status: number;
  /** The body as UTF-8, streamed; everything that can fail has happened before it is returned. */
  body: Readable;
}

/** One documented response of a row (an OpenAPI response object, see src/rest/openapi.ts). */
export interface ResponseDoc {
  description: string;
  /** Body schema (the JSON form; the XML form follows from the mapping rule); absent: no body (204). */
  schema?: JsonSchema;
  /** An example body (JSON; its XML form is generated). */
  example?: Record<string, unknown>;
}

/**
 * What the OpenAPI document says about a row (src/rest/openapi.ts generates it from the table).
 * Only the row's own outcomes are listed here; the statuses its transport rules give (400 for a
 * missing `tenant` header or a bad body, 401, 403, 413, 415, 412/409/422 of `Idempotency-Key`,
 * 500, 503) are added from the row's properties and error style.
 */
export interface RouteDoc {
  /** Unique, stable: the method name a generated client gets. */
  operationId: string;
  /** Section of the document (`tokens`, `charging`, `quota sharing`, `locations`, `OAuth 2.0`). */
  tag: string;
  summary: string;
  /** CommonMark; units, rules and the CONTRACT section. */
  description?: string;
  /** Path parameters by name (`:id` is `id`). */
  params?: Readonly<Record<string, string>>;
  /** Query parameters by name. */
  query?: Readonly<Record<string, { description: string; schema: JsonSchema }>>;
  /** The JSON request body (POST/PUT rows). */
  request?: { schema: JsonSchema; example: Record<string, unknown> };
  /** The row's own statuses: success, business outcomes and the domain errors it can answer. */
  responses: Readonly<Record<number, ResponseDoc>>;
}

/**
 * One legacy REST path (ARCHITECTURE.md "The route table is data"): the GraphQL operation it
 * runs (parsed and validated once at start-up), how the request becomes variables, and how the
 * result becomes status and body. `TData` is the shape of the operation's `data`.
 */
export interface RestRoute<TData = unknown> {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** @koa/router path pattern. */
  path: string;
  /** The row's OpenAPI description; a row without one fails the document build (and so the tests). */
  doc: RouteDoc;
  style: ErrorStyle;
  /** Permission the `permissions` header must name (and the client hold); absent: grant only. */
  permissionHeader?: Permission;
  /** `required`: a missing `tenant` header is 400. Either way a sent one must name the client's tenant. */
  tenantHeader: 'required' | 'optional';
  /** Sends `cache-control: no-store` and `pragma: no-cache` (token responses). */
  noStore?: boolean;
  /**
   * Takes the `Idempotency-Key` header (CONTRACT §5: every SQS POST and PUT) and passes it as the
   * operation's `$idempotencyKey` variable, which the document must declare (checked at start-up).
   */
  idempotent?: boolean;
  /**
   * `oauth2` rows only: how this row names, in its error descriptions, the request parameters
   * the operation's errors name otherwise (e.g. `{client_id: 'msisdn'}` on `/oauth2/token`).
   */
  parameterNames?: Readonly<Record<string, string>>;
  /** The GraphQL document, one operation. */
  document: string;
  /**
   * Request → variables. A row with `resolve` may instead return {@link edgeOutcome}: an answer
   * decided at the edge for a request that cannot become the operation's typed variables but is
   * still a domain outcome (a rating refused at the transport, CONTRACT §4, which the domain
   * records and answers with HTTP 200); the operation does not run, `resolve` answers it through
   * the domain (see {@link edgeOutcomeOf}).
   * @throws RequestShapeError for a field of the wrong JSON type, BadUserInputError for a legacy
   *   value check made at the edge (rows whose legacy answer is an error).
   */
  variables(input: RestInput): Record<string, unknown>;
  /** Operation data → status and legacy body. */
  result(data: TData, input: RestInput): RestOutput;
  /**
   * The operation's data computed without GraphQL execution (a fast path), for a hot row
   * whose one field is one service call: it calls the function the field's resolver calls
   * (permission check included), so `result` renders the same status and bytes; a test per row
   * compares the two paths. Throws what the resolver throws (the row's usual error outcomes).
   * Its data is checked against `TData` where the row is declared ({@link defineRoute}). It is
   * also what answers the row's {@link edgeOutcome}s (there is no GraphQL path for them): it
   * calls the domain function that records such an outcome and renders it as the operation's data.
   */
  resolve?(gctx: GatewayContext, variables: Record<string, unknown>): Promise<unknown>;
  /**
   * A faster path for a row whose generic execution is too slow for its size (the full location
   * list, a fast path): runs after the same transport checks, with the same variables, and
   * must answer byte-identically to `document` + `result` in `format` (a test per row compares
   * the two). It throws as the operation would (domain and database errors get the row's usual
   * outcomes), or resolves undefined to decline, and the generic path answers.
   */
  direct?(
    gctx: GatewayContext,
    variables: Record<string, unknown>,
    input: RestInput,
    format: Format,
  ): Promise<DirectOutput | undefined>;
  /**
   * A GET row's entity tag known before its body is read (a data version, `versionTag` in
   * src/rest/conditional.ts): a request whose `If-None-Match` names it is answered 304 without
   * reading the data, and the row's 200 carries it as `ETag`. Absent, a GET row's 200 is tagged
   * with the hash of its rendered bytes. Runs after the transport checks, with the row's
   * variables; throws as the operation would (permission, database failures).
   */
  etag?(
    gctx: GatewayContext,
    variables: Record<string, unknown>,
    input: RestInput,
    format: Format,
  ): Promise<string>;
  /**
   * The answer when the database is unavailable or the deadline passed before the operation could
   * decide (CONTRACT §8): absent, the path answers 503 with its error body and `retry-after`;
   * rating rows answer HTTP 200 with a returnCode instead (CONTRACT §4).
   */
  unavailable?(reason: ServiceUnavailableError['reason']): RestOutput;
}

/** The key of {@link edgeOutcome}'s variables: `@` cannot begin a GraphQL variable name. */
const EDGE_OUTCOME = '@edgeOutcome';

/**
 * What a row's {@link RestRoute.variables} returns for an outcome decided at the edge (a row with
 * `resolve` only): `outcome` is whatever that row's `resolve` reads back with {@link edgeOutcomeOf}.
 */
export function edgeOutcome(outcome: unknown): Record<string, unknown> {
  return { [EDGE_OUTCOME]: outcome };
}

/** The outcome {@link edgeOutcome} put in a row's variables, or undefined for the operation's variables. */
export function edgeOutcomeOf<T>(variables: Record<string, unknown>): T | undefined {
  return variables[EDGE_OUTCOME] as T | undefined;
}

/** Declares a row with its data type checked (`result`'s input, and `resolve`'s output). */
export function defineRoute<TData>(
  route: RestRoute<TData> & {
    resolve?(gctx: GatewayContext, variables: Record<string, unknown>): Promise<TData>;
  },
): RestRoute<TData> {
  return route;
}

/**
 * Reads an optional string field of a JSON body: absent or null gives null.
 * @throws RequestShapeError when present with another JSON type.
 */
export function optionalString(body: Record<string, unknown>, key: string): string | null {
  const v = body[key];
  if (v === undefined || v === null) return null;
  if (typeof v !== 'string')
    throw new RequestShapeError(`${key} must be a string`, [{ field: key, description: 'must be a string' }]);
  return v;
}

/**
 * Reads an optional query parameter: absent or empty gives null.
 * @throws RequestShapeError when the parameter is repeated.
 */
export function optionalQueryString(query: RestInput['query'], key: string): string | null {
  const v = query[key];
  if (Array.isArray(v))
    throw new RequestShapeError(`${key} must be given once`, [
      { field: key, description: 'must be given once' },
    ]);
  return v === undefined || v === '' ? null : v;
}
