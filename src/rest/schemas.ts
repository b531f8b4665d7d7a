import { Permission } from '../auth/permissions';

/**
 * A JSON Schema (the 2020-12 vocabulary OpenAPI 3.1 uses), written as a plain object literal
 * like the dataset schema (src/dataset/dataset.schema.ts).
 */
export type JsonSchema = { readonly [keyword: string]: unknown };

const NAMES = new WeakMap<object, string>();

/**
 * Registers `schema` under `name`: the OpenAPI document lists it once in `components.schemas`
 * and refers to it by `$ref` wherever a row uses it. Returns the same object.
 */
export function named<T extends JsonSchema>(name: string, schema: T): T {
  NAMES.set(schema, name);
  return schema;
}

/** The component name `schema` was registered under with {@link named}, if any. */
export function nameOf(schema: object): string | undefined {
  return NAMES.get(schema);
}

/** An object schema whose listed properties are all required (the common case of response bodies). */
export function object(properties: Record<string, JsonSchema>, optional: string[] = []): JsonSchema {
  return {
    type: 'object',
    required: Object.keys(properties).filter((k) => !optional.includes(k)),
    properties,
  };
}

/** A string schema with a description. */
export const text = (description: string, extra: JsonSchema = {}): JsonSchema => ({
  type: 'string',
  description,
  ...extra,
});

/** An integer schema with a description. */
export const integer = (description: string, extra: JsonSchema = {}): JsonSchema => ({
  type: 'integer',
  description,
  ...extra,
});

/** A nullable string. */
export const nullableText = (description: string): JsonSchema => ({ type: ['string', 'null'], description });

/** MSISDN as a client may send it (CONTRACT §1): optional `+`, 5–15 digits. */
export const MSISDN_IN = named('MsisdnInput', {
  type: 'string',
  pattern: '^\\+?[0-9]{5,15}$',
  description: 'MSISDN: an optional leading + then 5-15 digits; the + is not significant',
  examples: ['353871234567'],
});

/** MSISDN as the service returns it: digits only, no `+`. */
export const MSISDN = named('Msisdn', {
  type: 'string',
  pattern: '^[0-9]{5,15}$',
  description: 'MSISDN, 5-15 digits, returned without the +',
  examples: ['353871234567'],
});

/** `{"errorCode","message"}`: every 401/403/4xx/5xx body of the plain style (CONTRACT §2). */
export const PLAIN_ERROR = named(
  'Error',
  object({
    errorCode: integer('1 unless a domain error gives its own code'),
    message: text('what went wrong, for a person'),
  }),
);

/** The legacy token endpoints' error body (CONTRACT §3, published format). */
export const OAUTH_ERROR = named(
  'TokenError',
  object({
    error: text(
      '`unauthorized` (401), `invalid_request`, `unsupported_grant_type`, `temporarily_unavailable`',
    ),
    error_description: text(
      'for a missing field the published form `[client_id cannot be null, grant_type cannot be null]`',
    ),
  }),
);

/** RFC 6749 §5.2 error body of the standard `/oauth2/*` rows. */
export const OAUTH2_ERROR = named(
  'OAuth2Error',
  object({
    error: {
      type: 'string',
      enum: [
        'invalid_request',
        'invalid_client',
        'invalid_grant',
        'unauthorized_client',
        'unsupported_grant_type',
        'invalid_scope',
        'temporarily_unavailable',
        'server_error',
      ],
    },
    error_description: text('what went wrong, for a person'),
  }),
);

/** Quota-sharing 404/409/422 body (CONTRACT §5): `{"message","errorCode"}`. */
export const SQS_ERROR = named(
  'SharingError',
  object({
    message: text('what went wrong, for a person'),
    errorCode: integer('quota-sharing errorCode, e.g. 5 group not found, 2 duplicate group'),
  }),
);

/** Quota-sharing 412 body (CONTRACT §5): the fields that failed validation. */
export const SQS_VALIDATION_ERRORS = named(
  'ValidationErrors',
  object({
    errors: {
      type: 'array',
      minItems: 1,
      items: object({
        field: text('the offending field, a JSON path such as `recipients[0].quota`, or a header name'),
        description: text('the rule it breaks'),
      }),
    },
  }),
);

/** A HAL link (CONTRACT §6): an absolute href, PUBLIC_BASE_URL or the request's origin. */
export const LINK = named(
  'Link',
  object({ href: text('absolute URL; every href the service emits answers 200') }),
);

/** The `permissions` header value a row requires (a comma-separated list naming `permission`). */
export function permissionsHeaderSchema(permission: Permission): JsonSchema {
  return {
    type: 'string',
    description: `comma-separated list that names ${permission}`,
    examples: [permission],
  };
}
