import { AuthChecker } from 'type-graphql';
import { Permission } from '../auth/permissions';
import { SUBSCRIBER } from '../auth/subscriber';
import { ForbiddenError, UnauthenticatedError } from '../errors';
import { GatewayContext, subscriberForbidden, subscriberOf } from './context';

/**
 * type-graphql `@Authorized(...roles)` check (CONTRACT §2): `@Authorized(SUBSCRIBER)` (the
 * captive portal's fields) needs a subscriber principal; any other needs an authenticated API
 * client holding every listed permission. A subscriber principal holds no permission, so it passes
 * nothing but the portal's fields (the one rule: see also {@link assertPermissions}).
 * @throws UnauthenticatedError without credentials; ForbiddenError naming the missing grants, or
 *   for the wrong kind of principal.
 */
export const authChecker: AuthChecker<GatewayContext, Permission | typeof SUBSCRIBER> = (
  { context },
  roles,
) => {
  if (roles.includes(SUBSCRIBER)) subscriberOf(context);
  else assertPermissions(context, roles as Permission[]);
  return true;
};

/**
 * What `@Authorized(...permissions)` checks, for code that answers a field without GraphQL
 * execution (a REST row's `resolve`): the client must be authenticated and hold every permission.
 * A subscriber principal is refused whatever the permissions (even none).
 * @throws UnauthenticatedError without credentials; ForbiddenError naming the missing grants, or
 *   for a subscriber principal.
 */
export function assertPermissions(context: GatewayContext, permissions: readonly Permission[]): void {
  if (context.subscriber) throw subscriberForbidden();
  if (!context.client) throw new UnauthenticatedError('authentication required');
  const missing = permissions.filter((p) => !context.client!.permissions.has(p));
  if (missing.length) throw new ForbiddenError(`client lacks permission ${missing.join(', ')}`);
}
