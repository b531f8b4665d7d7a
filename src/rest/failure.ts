import { GraphQLError } from 'graphql';
import { databaseFailureOf } from '../db/knex';
import {
  BadUserInputError,
  DomainError,
  ErrorCode,
  RequestShapeError,
  OAuthRequestError,
  ServiceUnavailableError,
  domainErrorOf,
} from '../errors';
import { Logger } from '../logger';
import { BodyError } from './body';
import { ErrorStyle } from './route';

/** A REST error outcome before rendering. */
export interface RestFailure {
  status: number;
  message: string;
  domain?: DomainError;
}

/** The legacy HTTP status of each domain error code (CONTRACT §2-§5). */
const STATUS: Readonly<Record<ErrorCode, number>> = {
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  BAD_USER_INPUT: 400,
  NOT_FOUND: 404,
  CONFLICT: 409,
  UNPROCESSABLE: 422,
  TOO_MANY_REQUESTS: 429,
  SERVICE_UNAVAILABLE: 503,
  INTERNAL_SERVER_ERROR: 500,
};

/**
 * The status a path of error style `style` answers a domain error with: by its code, except that
 * the quota-sharing paths answer a value that breaks a rule 412 (CONTRACT §5) and keep 400 for a
 * request of the wrong shape ({@link RequestShapeError}: a wrongly typed field, a missing header).
 */
export function statusOf(domain: DomainError, style: ErrorStyle): number {
  if (domain.code === 'BAD_USER_INPUT' && style === 'sqs' && !(domain instanceof RequestShapeError))
    return 412;
  return STATUS[domain.code];
}

/**
 * Classifies anything a REST row of error style `style` threw or the operation returned: body
 * errors keep their 400/413/415, domain errors get their legacy status ({@link statusOf}), a
 * database that is down, slow or locked 503 (CONTRACT §8 "When things fail"), GraphQL request
 * errors 400, and anything else is logged and becomes a bare 500 (no message or stack from
 * inside).
 */
export function toFailure(err: unknown, logger: Logger, style: ErrorStyle): RestFailure {
  if (err instanceof BodyError) return { status: err.status, message: err.message };
  const dbFailure = domainErrorOf(err) ? undefined : databaseFailureOf(err);
  if (dbFailure) {
    logger.warn({ err }, 'database unavailable');
    const domain = new ServiceUnavailableError(dbFailure);
    return { status: 503, message: domain.message, domain };
  }
  const domain = domainErrorOf(err);
  if (domain) return { status: statusOf(domain, style), message: domain.message, domain };
  if (err instanceof GraphQLError && !err.originalError) return { status: 400, message: err.message };
  logger.error({ err }, 'unexpected error in REST row');
  return { status: 500, message: 'internal error' };
}

/**
 * Renders a failure as the path's legacy error body (CONTRACT §1–3).
 * oauth: 401 is the published `{"error":"unauthorized","error_description":"authorization failed"}`,
 * 429 (too many failed logins) `{"error":"unauthorized","error_description":"too many failed logins, retry later"}`,
 * 403 the common `{"errorCode":1,"message"}`, token request errors their own `error`,
 * other 4xx `invalid_request`, 503 `temporarily_unavailable`, other 5xx `server_error`.
 * plain: `{"errorCode","message"}`, errorCode from the domain error when it has one, else 1.
 * sqs (CONTRACT §5): 412 `{"errors":[{"field","description"}]}`; 404, 409 and 422
 * `{"message","errorCode"}`; other statuses as plain.
 */
export function failureBody(style: ErrorStyle, f: RestFailure): Record<string, unknown> {
  if (style === 'oauth' && f.status !== 403) {
    if (f.status === 401) return { error: 'unauthorized', error_description: 'authorization failed' };
    if (f.status === 429) return { error: 'unauthorized', error_description: f.message };
    if (f.domain instanceof OAuthRequestError)
      return { error: f.domain.error, error_description: f.domain.errorDescription };
    if (f.status === 503) return { error: 'temporarily_unavailable', error_description: f.message };
    if (f.status >= 500) return { error: 'server_error', error_description: f.message };
    return { error: 'invalid_request', error_description: f.message };
  }
  const code = f.domain?.extensions.errorCode;
  const errorCode = typeof code === 'number' ? code : 1;
  if (style === 'sqs') {
    if (f.status === 412 && f.domain instanceof BadUserInputError) return { errors: f.domain.fields };
    if (f.status === 404 || f.status === 409 || f.status === 422) return { message: f.message, errorCode };
  }
  return { errorCode, message: f.message };
}
