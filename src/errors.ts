import { GraphQLError } from 'graphql';

/**
 * GraphQL error codes used in `extensions.code` (CONTRACT §7).
 */
export type ErrorCode =
  | 'UNAUTHENTICATED'
  | 'FORBIDDEN'
  | 'BAD_USER_INPUT'
  | 'NOT_FOUND'
  | 'CONFLICT'
  | 'UNPROCESSABLE'
  | 'SERVICE_UNAVAILABLE'
  | 'TOO_MANY_REQUESTS'
  | 'INTERNAL_SERVER_ERROR';

/** One offending input field, as in the 412 body `{"errors":[{"field","description"}]}`. */
export interface FieldError {
  field: string;
  description: string;
}

/**
 * A rule violation raised by a service or the auth layer. It is a GraphQLError, so it reaches
 * GraphQL clients with `extensions.code` and its facts (ARCHITECTURE.md "Errors are typed";
 * `extensions` never holds a stack). It knows no HTTP status: the REST edge derives the legacy
 * status from `code` and the path (src/rest/failure.ts).
 */
export class DomainError extends GraphQLError {
  constructor(
    message: string,
    readonly code: ErrorCode,
    facts: Record<string, unknown> = {},
  ) {
    super(message, { extensions: { code, ...facts } });
  }
}

/** Missing or bad credentials (HTTP 401). */
export class UnauthenticatedError extends DomainError {
  constructor(message = 'authorization failed') {
    super(message, 'UNAUTHENTICATED');
  }
}

/** Authenticated, but not allowed: missing grant, permission header or wrong tenant (HTTP 403). */
export class ForbiddenError extends DomainError {
  constructor(message: string) {
    super(message, 'FORBIDDEN');
  }
}

/** Invalid input, listing the offending fields. */
export class BadUserInputError extends DomainError {
  constructor(
    message: string,
    readonly fields: FieldError[],
    facts: Record<string, unknown> = {},
  ) {
    super(message, 'BAD_USER_INPUT', { fields, ...facts });
  }
}

/**
 * A request whose shape is wrong before any of its values is judged: a body field of the wrong
 * JSON type, a required header missing, a query parameter given twice. The legacy quota-sharing
 * paths answer it 400 where a value that breaks a rule is 412 (CONTRACT §1, §5).
 */
export class RequestShapeError extends BadUserInputError {}

/** A validation failure on one field, message `<field> <description>`. */
export function invalidField(field: string, description: string): BadUserInputError {
  return new BadUserInputError(`${field} ${description}`, [{ field, description }]);
}

/** The named entity does not exist in the caller's tenant (HTTP 404). */
export class NotFoundError extends DomainError {
  constructor(message: string, facts: Record<string, unknown> = {}) {
    super(message, 'NOT_FOUND', facts);
  }
}

/** The request conflicts with existing state (HTTP 409). */
export class ConflictError extends DomainError {
  constructor(message: string, facts: Record<string, unknown> = {}) {
    super(message, 'CONFLICT', facts);
  }
}

/**
 * A request that passed validation but cannot be carried out (HTTP 422), e.g. a quota-sharing
 * refusal with its `errorCode` (CONTRACT §5).
 */
export class UnprocessableError extends DomainError {
  constructor(message: string, facts: Record<string, unknown> = {}) {
    super(message, 'UNPROCESSABLE', facts);
  }
}

/**
 * The OAuth-style token errors of CONTRACT §3 (HTTP 400): `error` is `invalid_request` or
 * `unsupported_grant_type` (`invalid_scope` on the standard `/oauth2/token`, RFC 6749 §5.2);
 * `error_description` is the published text.
 */
export class OAuthRequestError extends BadUserInputError {
  constructor(
    readonly error: 'invalid_request' | 'unsupported_grant_type' | 'invalid_scope',
    readonly errorDescription: string,
    fields: string[],
  ) {
    super(
      errorDescription,
      fields.map((field) => ({ field, description: errorDescription })),
      { error, error_description: errorDescription },
    );
  }
}

/**
 * A database statement that ran past its own bound, DB_STATEMENT_TIMEOUT_MS (not the request's
 * deadline: that is a DeadlineExceededError, src/lib/request-scope.ts); its connection was
 * dropped, so the server rolled back the open transaction. `commit` is true when the statement
 * was a COMMIT, whose outcome is therefore unknown. Classified as a `timeout` by
 * `databaseFailureOf` (REST 503 with `retry-after`, GraphQL SERVICE_UNAVAILABLE).
 */
export class DatabaseTimeoutError extends Error {
  override name = 'DatabaseTimeoutError';
  constructor(
    message: string,
    readonly commit = false,
  ) {
    super(message);
  }
}

/**
 * Seconds a client should wait before retrying a request refused because the database or the
 * gateway is unavailable, or its idempotency key is still in flight (`retry-after` header; a
 * domain error carrying `retryAfterSeconds` in its facts gets the header on REST paths).
 */
export const RETRY_AFTER_SECONDS = 1;

/**
 * The database is unreachable, too slow or locked, or the request's deadline passed
 * (CONTRACT §8 "When things fail"): HTTP 503 with `retry-after` on REST paths (rating rows answer
 * 200 with 2002/2003/5001 instead), `extensions.code` SERVICE_UNAVAILABLE in GraphQL. Nothing was
 * changed, so the request can be retried as it is. `cause` says which: `unreachable`, `timeout`
 * (a bounded wait ran out) or `deadline` (the request's own deadline passed).
 */
export class ServiceUnavailableError extends DomainError {
  constructor(readonly reason: 'unreachable' | 'timeout' | 'deadline') {
    super(
      reason === 'unreachable'
        ? 'database unavailable, retry later'
        : reason === 'timeout'
          ? 'database did not answer in time, retry later'
          : 'request deadline exceeded, retry later',
      'SERVICE_UNAVAILABLE',
      {
        reason,
        retryAfterSeconds: RETRY_AFTER_SECONDS,
        http: { status: 503, headers: new Map([['retry-after', String(RETRY_AFTER_SECONDS)]]) },
      },
    );
  }
}

/**
 * Too many failed logins for the username or the client address within AUTH_WINDOW_SECONDS
 * (login throttling): HTTP 429 with `retry-after` (whole seconds until the window ends), on every
 * path and on GraphQL (`extensions.code` TOO_MANY_REQUESTS, `extensions.retryAfter`). The
 * credentials were not checked.
 */
export class TooManyRequestsError extends DomainError {
  /** `headers`: further response headers of the 429 (besides `retry-after`). */
  constructor(
    readonly retryAfterSeconds: number,
    message = 'too many failed logins, retry later',
    readonly headers: ReadonlyArray<[string, string]> = [],
  ) {
    super(message, 'TOO_MANY_REQUESTS', {
      retryAfter: retryAfterSeconds,
      http: { status: 429, headers: new Map([['retry-after', String(retryAfterSeconds)], ...headers]) },
    });
  }
}

/**
 * An authenticated client sent more requests than its rate limit allows (docs/operations.md
 * "Rate limits"): the 429 of {@link TooManyRequestsError}, with the `RateLimit-Policy` and
 * `RateLimit` headers besides `retry-after`. Nothing was run.
 */
export class RateLimitedError extends TooManyRequestsError {
  constructor(retryAfterSeconds: number, headers: ReadonlyArray<[string, string]>) {
    super(retryAfterSeconds, 'rate limit exceeded, retry later', headers);
  }
}

/**
 * `err` and the errors it wraps, outermost first, at most five: GraphQL's `originalError`, the
 * standard `cause`, and graphql-js's `thrownValue` (a NonErrorThrown wraps a thrown value that is
 * not an Error of its realm, as a native driver's errors are under Jest).
 */
export function* errorChain(err: unknown): Generator<unknown> {
  let e: unknown = err;
  for (let depth = 0; e && depth < 5; depth++) {
    yield e;
    const x = e as { originalError?: unknown; cause?: unknown; thrownValue?: unknown };
    e = x.originalError ?? x.cause ?? x.thrownValue;
  }
}

/** Finds the DomainError behind a GraphQL error, if any. */
export function domainErrorOf(err: unknown): DomainError | undefined {
  for (const e of errorChain(err)) if (e instanceof DomainError) return e;
  return undefined;
}
