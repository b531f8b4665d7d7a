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
  if (!context.client) throw new UnauthenticatedError('authentication required');
  const missing = permissions.filter((p) => !context.client!.permissions.has(p));
  if (missing.length) throw new ForbiddenError(`client lacks permission ${missing.join(', ')}`);
  return true;
};
