/*
 * The system paths of the OpenAPI document (probes, metrics, the document itself, the OAuth 2.0
 * authorization server metadata): paths the route table does not hold, documented by hand here
 * and added to the document by buildOpenApi (./openapi.ts).
 */
import { VERSION } from '../version';
import { OAUTH2_AUTH_METHODS, OAUTH2_PATHS, authorizationServerMetadata } from './oauth2';
import type { OpenApiDocument, OpenApiOperation } from './openapi';
import { JsonSchema, object, text } from './schemas';

/** Where the document is served (public, like /healthz; CONTRACT §2). */
export const OPENAPI_PATH = '/openapi.json';

/**
 * The OpenAPI path items of the public paths registered beside the route table (src/http/probes.ts;
 * CONTRACT §2, §8): the probes, metrics, this document and the RFC 8414 metadata, each a `GET`
 * with no security and tag `system`.
 * @param content renders a response body's media types for a schema and an example (`xml`: an
 *   `application/xml` entry beside the JSON one), hoisting named schemas (openapi.ts mediaContent)
 * @param requestIdHeader the reference to the `x-request-id` response header's component
 */
export function systemPaths(
  content: (schema: JsonSchema, example: unknown, xml: boolean) => unknown,
  requestIdHeader: unknown,
): OpenApiDocument['paths'] {
  const requestId = { 'x-request-id': requestIdHeader };
  const get = (operationId: string, summary: string, responses: Record<number, unknown>) => ({
    get: { operationId, tags: ['system'], summary, security: [], responses } as unknown as OpenApiOperation,
  });
  const status = (value: string) => object({ status: { type: 'string', const: value } });
  const example = authorizationServerMetadata('https://gateway.example.com');
  const methods = { type: 'array', items: { enum: [...OAUTH2_AUTH_METHODS] } };
  return {
    '/healthz': get('health', 'Liveness: the process is up; reports the package version', {
      200: {
        description: 'up',
        headers: requestId,
        content: content(
          object({ status: { type: 'string', const: 'ok' }, version: text('semantic version') }),
          { status: 'ok', version: VERSION },
          true,
        ),
      },
    }),
    '/readyz': get('ready', 'Readiness: the database answered within 900 ms', {
      200: { description: 'ready', headers: requestId, content: content(status('ready'), undefined, true) },
      503: {
        description: 'the database did not answer',
        headers: requestId,
        content: content(status('unavailable'), undefined, true),
      },
    }),
    '/metrics': get('metrics', 'Prometheus metrics (text exposition format)', {
      200: {
        description: 'metrics',
        headers: requestId,
        content: { 'text/plain': { schema: { type: 'string' } } },
      },
    }),
    [OPENAPI_PATH]: get('openApi', 'This document (OpenAPI 3.1), also committed as schema/openapi.json', {
      200: {
        description: 'the document',
        headers: requestId,
        content: content({ type: 'object' }, undefined, false),
      },
    }),
    [OAUTH2_PATHS.metadata]: get(
      'oauthAuthorizationServerMetadata',
      'RFC 8414 authorization server metadata',
      {
        200: {
          description: 'the metadata; URLs are PUBLIC_BASE_URL or the request origin',
          headers: requestId,
          content: content(
            object({
              issuer: text('base URL'),
              token_endpoint: text(OAUTH2_PATHS.token),
              introspection_endpoint: text(OAUTH2_PATHS.introspection),
              revocation_endpoint: text(OAUTH2_PATHS.revocation),
              grant_types_supported: { type: 'array', items: { const: 'client_credentials' } },
              response_types_supported: { type: 'array', maxItems: 0 },
              token_endpoint_auth_methods_supported: methods,
              introspection_endpoint_auth_methods_supported: methods,
              revocation_endpoint_auth_methods_supported: methods,
            }),
            example,
            false,
          ),
        },
      },
    ),
  };
}
