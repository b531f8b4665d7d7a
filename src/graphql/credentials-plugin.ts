import { ApolloServerPlugin, HeaderMap } from '@apollo/server';
import { DocumentNode, GraphQLError, OperationDefinitionNode, SelectionSetNode } from 'graphql';
import { PORTAL_ROOT_FIELDS } from '../auth/subscriber';
import { assertTenantHeader } from '../auth/tenant';
import { ForbiddenError } from '../errors';
import { GatewayContext, subscriberForbidden } from './context';

/** `www-authenticate` challenge sent with every 401 (docs/contract.md §2). */
export const BASIC_CHALLENGE = 'Basic realm="subscriber-gateway"';

const INTROSPECTION_FIELDS = new Set(['__schema', '__type', '__typename']);

/** `www-authenticate` challenge of a refused subscriber token (RFC 6750 §3). */
export const BEARER_CHALLENGE = 'Bearer realm="subscriber-gateway", error="invalid_token"';

/** True when every top-level field of the operation is schema introspection. */
export function isIntrospectionOnly(document: DocumentNode, op: OperationDefinitionNode): boolean {
  return op.operation === 'query' && onlyRootFields(document, op, INTROSPECTION_FIELDS);
}

/** True when every top-level field of the operation (through fragments) is one of `allowed`. */
function onlyRootFields(
  document: DocumentNode,
  op: OperationDefinitionNode,
  allowed: ReadonlySet<string>,
): boolean {
  const fragments = new Map(
    document.definitions.flatMap((d) =>
      d.kind === 'FragmentDefinition' ? [[d.name.value, d.selectionSet] as const] : [],
    ),
  );
  const seen = new Set<string>();
  const check = (set: SelectionSetNode): boolean =>
    set.selections.every((s) => {
      if (s.kind === 'Field') return allowed.has(s.name.value);
      if (s.kind === 'InlineFragment') return check(s.selectionSet);
      if (seen.has(s.name.value)) return true;
      seen.add(s.name.value);
      const f = fragments.get(s.name.value);
      return f ? check(f) : false;
    });
  return check(op.selectionSet);
}

function httpError(
  message: string,
  code: string,
  status: number,
  headers?: [string, string][],
): GraphQLError {
  return new GraphQLError(message, {
    extensions: { code, http: { status, headers: new HeaderMap(headers ?? []) } },
  });
}

/**
 * Credentials and tenant rule for `/graphql` (docs/contract.md §2): every operation needs valid
 * Basic credentials (401 with `www-authenticate` otherwise) or an active captive-portal token
 * (`authorization: Bearer`, docs/portal.md: 401 UNAUTHENTICATED when unknown, revoked or expired;
 * 403 FORBIDDEN for an operation selecting anything but the portal's root fields), except pure
 * schema introspection
 * without credentials while the sandbox is enabled; a `tenant` header, when sent, must name
 * the client's tenant, or the portal token's (403; the rule itself is src/auth/tenant.ts, shared with the REST rows and
 * graphql-ws connections).
 */
export function credentialsPlugin(sandboxEnabled: boolean): ApolloServerPlugin<GatewayContext> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ contextValue, operation, document }) {
          await assertCredentials(contextValue, document, operation, sandboxEnabled);
        },
      };
    },
  };
}

/**
 * The check of {@link credentialsPlugin} for one resolved operation (also run by the `/graphql`
 * fast path, src/graphql/fast-path.ts): sets `contextValue.subscriber` for an active portal token.
 * An API client's credentials are checked synchronously (undefined returned: nothing to wait
 * for, a hot path); a portal token's need the database (a promise returned).
 * @throws GraphQLError `UNAUTHENTICATED` (401, with `www-authenticate`) or `FORBIDDEN` (403), the
 *   status in the `http` extension: thrown for an API client, the promise's rejection for a portal token.
 */
export function assertCredentials(
  contextValue: GatewayContext,
  document: DocumentNode,
  operation: OperationDefinitionNode | undefined,
  sandboxEnabled: boolean,
): Promise<void> | undefined {
  const { auth } = contextValue;
  if (auth.status === 'bearer')
    return assertSubscriberCredentials(contextValue, auth.token, document, operation);
  if (auth.status !== 'ok') {
    if (auth.status === 'missing' && sandboxEnabled && operation && isIntrospectionOnly(document, operation))
      return;
    throw httpError('authentication required', 'UNAUTHENTICATED', 401, [
      ['www-authenticate', BASIC_CHALLENGE],
    ]);
  }
  assertTenant(contextValue.tenantHeader, auth.client.tenantName);
}

/**
 * {@link assertCredentials} for a portal token (docs/portal.md): only an active one, and only the
 * portal's fields; sets `contextValue.subscriber`.
 * @throws GraphQLError `UNAUTHENTICATED` (401) or `FORBIDDEN` (403), as {@link assertCredentials}.
 */
async function assertSubscriberCredentials(
  contextValue: GatewayContext,
  token: string,
  document: DocumentNode,
  operation: OperationDefinitionNode | undefined,
): Promise<void> {
  // A subscriber token (docs/portal.md): only an active one, and only the portal's fields.
  const principal = await contextValue.services.portal.principal(token);
  if (!principal)
    throw httpError('the access token is unknown, revoked or expired', 'UNAUTHENTICATED', 401, [
      ['www-authenticate', BEARER_CHALLENGE],
    ]);
  contextValue.subscriber = principal;
  // A `tenant` header must name the token's tenant, as for API clients (src/auth/tenant.ts).
  if (contextValue.tenantHeader !== undefined) {
    const tenantName = (await contextValue.services.portal.tenantName(principal.tenantId)) ?? '';
    assertTenant(contextValue.tenantHeader, tenantName);
  }
  if (operation?.operation === 'subscription' || !onlyRootFields(document, operation!, PORTAL_ROOT_FIELDS))
    throw httpError(subscriberForbidden().message, 'FORBIDDEN', 403);
}

/**
 * The tenant-header rule of src/auth/tenant.ts for the caller's tenant `tenantName`.
 * @throws GraphQLError `FORBIDDEN` (403) when `tenantHeader` names another tenant.
 */
function assertTenant(tenantHeader: string | undefined, tenantName: string): void {
  try {
    assertTenantHeader(tenantHeader, { tenantName });
  } catch (err) {
    if (err instanceof ForbiddenError) throw httpError(err.message, 'FORBIDDEN', 403);
    throw err;
  }
}
