/**
 * The subscriber principal: who calls /graphql with a captive-portal access token
 * (`authorization: Bearer <token>`, docs/portal.md) instead of API-client credentials. It holds
 * no permission: it may run only the portal's fields, which require it (see
 * src/graphql/auth-checker.ts), and only on its own subscriber.
 */
export interface SubscriberPrincipal {
  /** The tenant that issued the token. */
  tenantId: number;
  /** The token's subscriber, canonical digits. */
  msisdn: string;
  /** SHA-256 hex of the token (never the token). */
  tokenHash: string;
}

/**
 * The role of the portal's fields (`@Authorized(SUBSCRIBER)`): only a subscriber principal
 * passes it; an API client gets FORBIDDEN, whatever its permissions.
 */
export const SUBSCRIBER = 'SUBSCRIBER' as const;

/** The root fields a subscriber principal may select (every other one is FORBIDDEN to it). */
export const PORTAL_ROOT_FIELDS: ReadonlySet<string> = new Set(['me', 'purchasePlan', '__typename']);
