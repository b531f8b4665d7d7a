import { AuthResult } from '../auth/authenticate';
import { ApiClient } from '../auth/client.store';
import type { SubscriberPrincipal } from '../auth/subscriber';
import { ForbiddenError, UnauthenticatedError } from '../errors';
import { Logger } from '../logger';
import { Services } from '../services';
import type { ExecutionBudget } from './limits';

/**
 * Per-request context shared by GraphQL resolvers and the REST layer (which executes the same
 * operations): who is calling, which request this is, and the services.
 */
export interface GatewayContext {
  /** The request's `x-request-id`. */
  requestId: string;
  /** Outcome of reading the Basic credentials. */
  auth: AuthResult;
  /** The authenticated API client, or null. */
  client: ApiClient | null;
  /**
   * The subscriber a valid captive-portal token (`authorization: Bearer`) authenticated on
   * /graphql (set by src/graphql/credentials-plugin.ts); absent otherwise. Never with `client`.
   */
  subscriber?: SubscriberPrincipal;
  /** Value of the `tenant` header, when sent. */
  tenantHeader: string | undefined;
  /** Absolute base URL for emitted links: PUBLIC_BASE_URL, else the request's origin. */
  baseUrl: string;
  services: Services;
  logger: Logger;
  /** Objects that live for this request only (DataLoaders); use {@link perRequest}. */
  cache: Map<string, unknown>;
  /** The GraphQL deadline (set by the limits plugin on `/graphql`; absent for REST rows). */
  budget?: ExecutionBudget;
  /**
   * True while a legacy REST row runs its operation (src/rest/router.ts): mutation payloads then
   * rethrow domain refusals instead of listing them in `userErrors`, so the REST edge maps them to
   * the legacy status, body and codes in one place (src/graphql/payload.ts).
   */
  legacyRest?: boolean;
}

/** Returns the request's instance of `key`, creating it on first use. */
export function perRequest<T>(ctx: GatewayContext, key: string, create: () => T): T {
  let v = ctx.cache.get(key) as T | undefined;
  if (v === undefined) {
    v = create();
    ctx.cache.set(key, v);
  }
  return v;
}

/**
 * The authenticated caller as services want it (the username is the CDRs' actor).
 * @throws UnauthenticatedError when the request carries no valid credentials.
 */
export function callerOf(ctx: GatewayContext): {
  clientId: number;
  tenantId: number;
  tenantName: string;
  /** The client's username: the actor CDRs name (CONTRACT §8). */
  actor: string;
} {
  if (ctx.subscriber) throw subscriberForbidden();
  if (!ctx.client) throw new UnauthenticatedError('authentication required');
  return {
    clientId: ctx.client.id,
    tenantId: ctx.client.tenantId,
    tenantName: ctx.client.tenantName,
    actor: ctx.client.username,
  };
}

/** The refusal of every non-portal field to a subscriber principal. */
export function subscriberForbidden(): ForbiddenError {
  return new ForbiddenError('a subscriber token may run only the portal operations (me, purchasePlan)');
}

/**
 * The subscriber principal of a portal field (docs/portal.md).
 * @throws ForbiddenError for API-client credentials; UnauthenticatedError without credentials.
 */
export function subscriberOf(ctx: GatewayContext): SubscriberPrincipal {
  if (ctx.subscriber) return ctx.subscriber;
  if (ctx.client) throw new ForbiddenError('this field needs a subscriber token (authorization: Bearer)');
  throw new UnauthenticatedError('authentication required');
}
