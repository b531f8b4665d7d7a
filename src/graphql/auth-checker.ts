import { AuthChecker } from 'type-graphql';
import { Permission } from '../auth/permissions';
import { ForbiddenError, UnauthenticatedError } from '../errors';
import { GatewayContext } from './context';

/**
 * type-graphql `@Authorized(...permissions)` check (CONTRACT §2): the client must be
 * authenticated and hold every listed permission.
 * @throws UnauthenticatedError without credentials; ForbiddenError naming the missing grants.
 */
export const authChecker: AuthChecker<GatewayContext, Permission> = ({ context }, permissions) => {
  assertPermissions(context, permissions);
  return true;
};

/**
 * What `@Authorized(...permissions)` checks, for code that answers a field without GraphQL
 * execution (a REST row's `resolve`): the client must be authenticated and hold every permission.
 * @throws UnauthenticatedError without credentials; ForbiddenError naming the missing grants.
 */
export function assertPermissions(context: GatewayContext, permissions: readonly Permission[]): void {
  if (!context.client) throw new UnauthenticatedError('authentication required');
  const missing = permissions.filter((p) => !context.client!.permissions.has(p));
  if (missing.length) throw new ForbiddenError(`client lacks permission ${missing.join(', ')}`);
}
