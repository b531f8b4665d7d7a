import { execute, parse } from 'graphql';
import { assertPermissions } from '../../src/graphql/auth-checker';
import { GatewayContext } from '../../src/graphql/context';
import { gatewaySchema } from '../../src/graphql/schema';
import { createLogger } from '../../src/logger';
import { failureBody, toFailure } from '../../src/rest/failure';
import { RestInput, RestRoute, edgeOutcomeOf } from '../../src/rest/route';
import { toXml } from '../../src/rest/xml';
import { TestApp } from './app';

const logger = createLogger('silent');
const schema = gatewaySchema();

/**
 * What a REST row answers on the generic path, for comparing a row's faster
 * path (`direct` or `resolve`) with it: the row's GraphQL operation executed against the schema
 * with the caller's context, then the row's `result` (or the failure's legacy body), then
 * `JSON.stringify` or `toXml`. An outcome the row's `variables` decided at the edge (`edgeOutcome`)
 * has no generic path: the row's `resolve` answers it here too. `authorization` is the Basic header of the caller.
 */
export async function genericAnswer(
  target: TestApp,
  row: RestRoute<never>,
  input: Pick<RestInput, 'params' | 'query'> & Partial<Pick<RestInput, 'body'>>,
  format: 'json' | 'xml',
  authorization: string,
  baseUrl = target.url,
): Promise<{ status: number; text: string }> {
  const auth = await target.app.authenticator.authenticate({ authorization });
  const gctx: GatewayContext = {
    requestId: 'generic',
    auth,
    client: auth.status === 'ok' ? auth.client : null,
    tenantHeader: undefined,
    baseUrl,
    services: target.app.services,
    logger,
    cache: new Map(),
    legacyRest: true,
  };
  const full: RestInput = {
    body: {},
    ...input,
    baseUrl,
    requireGrant: (permission) => assertPermissions(gctx, [permission]),
  };
  // As the router: the row's variable mapping may answer first (a legacy body check).
  let variables: Record<string, unknown> | undefined;
  let refused: unknown;
  try {
    variables = row.variables(full);
  } catch (err) {
    refused = err;
  }
  // An outcome decided at the edge has no GraphQL path: the row's `resolve` answers it on both.
  const atEdge = variables !== undefined && edgeOutcomeOf(variables) !== undefined;
  const result = !variables
    ? { errors: [refused], data: undefined }
    : atEdge
      ? await row.resolve!(gctx, variables).then(
          (data) => ({ data, errors: undefined }),
          (err: unknown) => ({ errors: [err], data: undefined }),
        )
      : await execute({
          schema: await schema,
          document: parse(row.document),
          contextValue: gctx,
          variableValues: variables,
        });
  let status: number;
  let body: Record<string, unknown>;
  if (result.errors?.length) {
    const failure = toFailure(result.errors[0], logger, row.style);
    status = failure.status;
    body = failureBody(row.style, failure);
  } else {
    const out = row.result(result.data as never, full);
    status = out.status;
    body = out.body!;
  }
  return { status, text: format === 'json' ? JSON.stringify(body) : toXml(body) };
}
