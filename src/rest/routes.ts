import { CHARGING_ROUTES } from './charging.routes';
import { LOCATION_ROUTES } from './location.routes';
import { OAUTH2_ROUTES } from './oauth2.routes';
import { RestRoute, defineRoute, optionalString } from './route';
import { SQS_ROUTES } from './sqs.routes';

/** POST /token (CONTRACT §3, spec 4.1): 201 with the OAuth token body. */
const issueToken = defineRoute<{ issueToken: { accessToken: string; tokenType: string; expiresIn: number } }>(
  {
    method: 'POST',
    path: '/token',
    style: 'oauth',
    tenantHeader: 'optional',
    noStore: true,
    document: `mutation IssueToken($grantType: String, $clientId: String) {
    issueToken(grantType: $grantType, clientId: $clientId) { accessToken tokenType expiresIn }
  }`,
    variables: ({ body }) => ({
      grantType: optionalString(body, 'grant_type'),
      clientId: optionalString(body, 'client_id'),
    }),
    result: ({ issueToken: t }) => ({
      status: 201,
      body: { access_token: t.accessToken, token_type: t.tokenType, expires_in: t.expiresIn },
    }),
  },
);

/** POST /token/introspect (CONTRACT §3, spec 4.2): 200 `{active}` or `{active, client_id, expiry}`. */
const introspectToken = defineRoute<{
  introspectToken: { active: boolean; clientId: string | null; expiry: number | null };
}>({
  method: 'POST',
  path: '/token/introspect',
  style: 'oauth',
  tenantHeader: 'optional',
  noStore: true,
  document: `query IntrospectToken($token: String) {
    introspectToken(token: $token) { active clientId expiry }
  }`,
  variables: ({ body }) => ({ token: optionalString(body, 'token') }),
  result: ({ introspectToken: r }) => ({
    status: 200,
    body: r.active ? { active: true, client_id: r.clientId, expiry: r.expiry } : { active: false },
  }),
});

/**
 * Every legacy REST path, once (ARCHITECTURE.md "The route table is data"). Adding a path is
 * adding a row; each module's rows live beside this file.
 */
export const ROUTES: ReadonlyArray<RestRoute<never>> = [
  ...([issueToken, introspectToken] as ReadonlyArray<RestRoute<never>>),
  ...LOCATION_ROUTES,
  ...CHARGING_ROUTES,
  ...SQS_ROUTES,
  ...OAUTH2_ROUTES,
];
