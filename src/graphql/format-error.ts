import { GraphQLError, GraphQLFormattedError } from 'graphql';
import { databaseFailureOf } from '../db/knex';
import { ServiceUnavailableError, domainErrorOf } from '../errors';
import { deadlineExceededOf } from '../lib/request-scope';
import { Logger } from '../logger';
import { TIMEOUT_CODE } from './limits';

/**
 * Apollo `formatError` (docs/contract.md §7): domain errors keep their message and `extensions`
 * (code and facts); GraphQL's own request errors (parse, validation, variable coercion) pass
 * through; a database that is down, slow or locked is `SERVICE_UNAVAILABLE` (docs/contract.md §8);
 * a field stopped by the request's deadline (DeadlineExceededError at a GraphQL checkpoint) is
 * `TIMEOUT` (on `/graphql` the limits plugin then makes the whole response one such error);
 * Apollo's own refusals of a request (persisted-query errors such as `provided sha does not
 * match query`, `PERSISTED_QUERY_NOT_FOUND`) keep their message and status, with their code or
 * `BAD_REQUEST`, and are not logged; anything unexpected is logged and masked as
 * `internal error`. No stack trace is ever returned, nor the `http` extension Apollo reads the
 * status from.
 */
export function makeFormatError(logger: Logger) {
  return (formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError => {
    let domain = domainErrorOf(error);
    const failure = domain ? undefined : databaseFailureOf(error);
    if (failure) {
      logger.warn({ err: error }, 'database unavailable');
      domain = new ServiceUnavailableError(failure);
    }
    if (domain) {
      const { http: _http, ...extensions } = domain.extensions;
      return { ...formatted, message: domain.message, extensions };
    }
    const deadline = deadlineExceededOf(error);
    if (deadline)
      return {
        message: deadline.message,
        locations: formatted.locations,
        path: formatted.path,
        extensions: { code: TIMEOUT_CODE },
      };
    const code = formatted.extensions?.code;
    if (isApolloClientError(error))
      return { message: formatted.message, extensions: { code: 'BAD_REQUEST' } };
    if (!code || code === 'INTERNAL_SERVER_ERROR') {
      logger.error({ err: error }, 'unexpected GraphQL error');
      return {
        message: 'internal error',
        locations: formatted.locations,
        path: formatted.path,
        extensions: { code: 'INTERNAL_SERVER_ERROR' },
      };
    }
    const { stacktrace: _stacktrace, http: _http, ...extensions } = formatted.extensions ?? {};
    return { ...formatted, extensions };
  };
}

/**
 * True when a response's errors include a database outage (a database that is down, slow or
 * locked, or a `SERVICE_UNAVAILABLE` domain error): `/graphql` then answers HTTP 503 with
 * `retry-after` (docs/contract.md §8; Apollo's plugin in src/http/apollo.ts and the fast path).
 */
export function databaseOutageIn(errors: readonly unknown[]): boolean {
  return errors.some((e) => databaseFailureOf(e) || domainErrorOf(e)?.code === 'SERVICE_UNAVAILABLE');
}

/**
 * True for an error Apollo Server raised itself to refuse a request (no code, an HTTP status
 * 400-499, not thrown by a resolver or from another error), such as `provided sha does not match
 * query` or `Unsupported persisted query version`.
 */
function isApolloClientError(error: unknown): boolean {
  if (!(error instanceof GraphQLError) || error.originalError || error.path) return false;
  // graphql-jit's errors may carry no `extensions` at all.
  const extensions = error.extensions as Record<string, unknown> | undefined;
  if (extensions?.code !== undefined) return false;
  const status = (extensions?.http as { status?: unknown } | undefined)?.status;
  return typeof status === 'number' && status >= 400 && status < 500;
}
