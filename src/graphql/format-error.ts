import { GraphQLFormattedError } from 'graphql';
import { domainErrorOf } from '../errors';
import { Logger } from '../logger';

/**
 * Apollo `formatError` (CONTRACT §7): domain errors keep their message and `extensions`
 * (code and facts); GraphQL's own request errors (parse, validation, variable coercion) pass
 * through; anything unexpected is logged and masked as `internal error`. No stack trace is
 * ever returned.
 */
export function makeFormatError(logger: Logger) {
  return (formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError => {
    const domain = domainErrorOf(error);
    if (domain) return { ...formatted, message: domain.message, extensions: { ...domain.extensions } };
    const code = formatted.extensions?.code;
    if (!code || code === 'INTERNAL_SERVER_ERROR') {
      logger.error({ err: error }, 'unexpected GraphQL error');
      return {
        message: 'internal error',
        locations: formatted.locations,
        path: formatted.path,
        extensions: { code: 'INTERNAL_SERVER_ERROR' },
      };
    }
    const { stacktrace: _stacktrace, ...extensions } = formatted.extensions ?? {};
    return { ...formatted, extensions };
  };
}
