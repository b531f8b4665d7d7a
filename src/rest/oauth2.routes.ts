import { OAuthRequestError } from '../errors';
import { OAUTH2_PATHS, oauth2Param } from './oauth2';
import { RestRoute, defineRoute } from './route';

/**
 * POST /oauth2/token (RFC 6749 §4.4 client credentials grant). The API client authenticates by
 * `client_secret_basic` or `client_secret_post`; the subscriber is the `msisdn` parameter (an
 * MSISDN, optional `+`). Runs the same `issueToken` operation as the legacy `POST /token`, so the
 * token is the same kind of token. 200 `{"access_token","token_type":"Bearer","expires_in"}`.
 * No scopes are defined: a non-empty `scope` is `invalid_scope` (RFC 6749 §5.2).
 */
const oauth2Token = defineRoute<{ issueToken: { accessToken: string; expiresIn: number } }>({
  method: 'POST',
  path: OAUTH2_PATHS.token,
  style: 'oauth2',
  tenantHeader: 'optional',
  noStore: true,
  parameterNames: { client_id: 'msisdn' },
  document: `mutation OAuth2Token($grantType: String, $msisdn: String) {
    issueToken(grantType: $grantType, clientId: $msisdn) { accessToken expiresIn }
  }`,
  variables: ({ body }) => {
    const grantType = oauth2Param(body, 'grant_type');
    const msisdn = oauth2Param(body, 'msisdn');
    if (oauth2Param(body, 'scope') !== null) {
      throw new OAuthRequestError('invalid_scope', 'no scopes are defined: omit scope', ['scope']);
    }
    return { grantType, msisdn };
  },
  result: ({ issueToken: t }) => ({
    status: 200,
    body: { access_token: t.accessToken, token_type: 'Bearer', expires_in: t.expiresIn },
  }),
});

/**
 * POST /oauth2/introspect (RFC 7662). Needs TOKEN_INTROSPECT. Runs the legacy
 * `/token/introspect` operation: `{"active":false}` alone for an unknown, expired, revoked or
 * other tenant's token; otherwise `sub` (the MSISDN), `client_id` (the issuing API client's
 * username), `exp` and `iat` (epoch seconds) and `token_type`. `token_type_hint` is ignored
 * (there is one kind of token).
 */
const oauth2Introspect = defineRoute<{
  introspectToken: {
    active: boolean;
    clientId: string | null;
    expiry: number | null;
    issuedAt: number | null;
    issuedBy: string | null;
  };
}>({
  method: 'POST',
  path: OAUTH2_PATHS.introspection,
  style: 'oauth2',
  tenantHeader: 'optional',
  noStore: true,
  document: `query OAuth2Introspect($token: String) {
    introspectToken(token: $token) { active clientId expiry issuedAt issuedBy }
  }`,
  variables: ({ body }) => ({ token: oauth2Param(body, 'token') }),
  result: ({ introspectToken: r }) => ({
    status: 200,
    body: r.active
      ? {
          active: true,
          sub: r.clientId,
          client_id: r.issuedBy,
          exp: r.expiry,
          iat: r.issuedAt,
          token_type: 'Bearer',
        }
      : { active: false },
  }),
});

/**
 * POST /oauth2/revoke (RFC 7009). Needs TOKEN_ISSUE, as the GraphQL `revokeToken` it runs: the
 * clients that issue tokens are the ones that end them. Any token of the client's tenant can be
 * revoked, whichever client issued it; another tenant's token is left alone. 200 `{}` whether
 * the token was live, already revoked, expired or unknown (RFC 7009 §2.2). `token_type_hint` is
 * ignored.
 */
const oauth2Revoke = defineRoute<{ revokeToken: boolean }>({
  method: 'POST',
  path: OAUTH2_PATHS.revocation,
  style: 'oauth2',
  tenantHeader: 'optional',
  noStore: true,
  document: `mutation OAuth2Revoke($token: String) { revokeToken(token: $token) }`,
  variables: ({ body }) => ({ token: oauth2Param(body, 'token') }),
  result: () => ({ status: 200, body: {} }),
});

/** The standard OAuth 2.0 rows (not legacy: RFC error bodies, form bodies, JSON only). */
export const OAUTH2_ROUTES = [oauth2Token, oauth2Introspect, oauth2Revoke] as ReadonlyArray<RestRoute<never>>;
