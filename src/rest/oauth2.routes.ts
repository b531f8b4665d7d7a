import { Permission } from '../auth/permissions';
import { OAuthRequestError } from '../errors';
import { OAUTH2_PATHS, oauth2Param } from './oauth2';
import { RestRoute, RouteDoc, defineRoute } from './route';
import { issueTokenVariables, tokenVariable } from './token-input';
import { MSISDN, MSISDN_IN, integer, named, object, text } from './schemas';

const TOKEN_PARAM = text('a token issued by this service');
const CLIENT_SECRET_POST = {
  client_id: text('API client username (client_secret_post; or use Basic)'),
  client_secret: text('API client password (client_secret_post)'),
};
const TOKEN_EXAMPLE = 'Jq3V0y0dUQ2l1bXpRk0ZlVh4W1hZ3lqXz8n0bGkQm4';
/** The body of introspection and revocation: the token (RFC 7662 §2.1, RFC 7009 §2.1). */
const TOKEN_REQUEST = {
  schema: object({ token: TOKEN_PARAM, token_type_hint: text('ignored'), ...CLIENT_SECRET_POST }, [
    'token_type_hint',
    'client_id',
    'client_secret',
  ]),
  example: { token: TOKEN_EXAMPLE },
};

/** An OAuth 2.0 row's doc; the body may be form-encoded or JSON, the client authenticated in it. */
const oauth2Doc = (doc: Omit<RouteDoc, 'tag'>): RouteDoc => ({
  tag: 'OAuth 2.0',
  ...doc,
  description:
    `${doc.description ?? ''} The client authenticates by HTTP Basic (client_secret_basic) or \`client_id\`/\`client_secret\` in the body (client_secret_post), not both. JSON only.`.trim(),
});

/**
 * POST /oauth2/token (RFC 6749 §4.4 client credentials grant). The API client authenticates by
 * `client_secret_basic` or `client_secret_post`; the subscriber is the `msisdn` parameter (an
 * MSISDN, optional `+`). Runs the same `issueToken` operation as the legacy `POST /token`, so the
 * token is the same kind of token. 200 `{"access_token","token_type":"Bearer","expires_in"}`.
 * No scopes are defined: a non-empty `scope` is `invalid_scope` (RFC 6749 §5.2).
 */
const oauth2Token = defineRoute<{ issueToken: { token: { accessToken: string; expiresIn: number } } }>({
  method: 'POST',
  path: OAUTH2_PATHS.token,
  doc: oauth2Doc({
    operationId: 'oauth2Token',
    summary: 'RFC 6749 §4.4 client credentials grant: a token for the subscriber `msisdn`',
    description: 'Needs the `TOKEN_ISSUE` grant.',
    request: {
      schema: object(
        {
          grant_type: { type: 'string', const: 'client_credentials' },
          msisdn: MSISDN_IN,
          scope: text('no scopes are defined: a non-empty scope is invalid_scope'),
          ...CLIENT_SECRET_POST,
        },
        ['scope', 'client_id', 'client_secret'],
      ),
      example: { grant_type: 'client_credentials', msisdn: '353871234567' },
    },
    responses: {
      200: {
        description: 'issued',
        schema: named(
          'OAuth2Token',
          object({
            access_token: text('opaque, URL-safe'),
            token_type: { type: 'string', const: 'Bearer' },
            expires_in: integer('seconds (TOKEN_TTL_SECONDS)'),
          }),
        ),
        example: { access_token: TOKEN_EXAMPLE, token_type: 'Bearer', expires_in: 3600 },
      },
      400: { description: '`invalid_request`, `unsupported_grant_type`, `invalid_scope`' },
      401: { description: '`invalid_client`' },
    },
  }),
  style: 'oauth2',
  tenantHeader: 'optional',
  noStore: true,
  parameterNames: { client_id: 'msisdn' },
  document: `mutation OAuth2Token($grantType: GrantType!, $msisdn: MSISDN!) {
    issueToken(grantType: $grantType, clientId: $msisdn) { token { accessToken expiresIn } }
  }`,
  // Wrong JSON types, then the scope, then the legacy token request checks (`client_id` is
  // named `msisdn` in the answers, see parameterNames).
  variables: (input) => {
    const { body } = input;
    const grantType = oauth2Param(body, 'grant_type');
    const msisdn = oauth2Param(body, 'msisdn');
    if (oauth2Param(body, 'scope') !== null) {
      throw new OAuthRequestError('invalid_scope', 'no scopes are defined: omit scope', ['scope']);
    }
    input.requireGrant(Permission.TOKEN_ISSUE);
    const v = issueTokenVariables(grantType, msisdn);
    return { grantType: v.grantType, msisdn: v.clientId };
  },
  result: ({ issueToken: { token: t } }) => ({
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
  doc: oauth2Doc({
    operationId: 'oauth2Introspect',
    summary: 'RFC 7662 token introspection',
    description: 'Needs the `TOKEN_INTROSPECT` grant.',
    request: TOKEN_REQUEST,
    responses: {
      200: {
        description:
          'the token\'s state; `{"active":false}` alone for an unknown, expired, revoked or other tenant\'s token',
        schema: named('OAuth2Introspection', {
          oneOf: [
            {
              ...object({
                active: { const: true },
                sub: MSISDN,
                client_id: text('username of the API client that issued it'),
                exp: integer('Unix epoch seconds'),
                iat: integer('Unix epoch seconds'),
                token_type: { const: 'Bearer' },
              }),
              additionalProperties: false,
            },
            { ...object({ active: { const: false } }), additionalProperties: false },
          ],
        }),
        example: {
          active: true,
          sub: '353871234567',
          client_id: 'portal',
          exp: 1767225600,
          iat: 1767222000,
          token_type: 'Bearer',
        },
      },
      400: { description: '`invalid_request`: token missing' },
      401: { description: '`invalid_client`' },
    },
  }),
  style: 'oauth2',
  tenantHeader: 'optional',
  noStore: true,
  document: `query OAuth2Introspect($token: String!) {
    introspectToken(token: $token) { active clientId expiry issuedAt issuedBy }
  }`,
  variables: (input) => {
    const { body } = input;
    const token = oauth2Param(body, 'token');
    input.requireGrant(Permission.TOKEN_INTROSPECT);
    return { token: tokenVariable(token) };
  },
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
const oauth2Revoke = defineRoute<{ revokeToken: { revoked: boolean } }>({
  method: 'POST',
  path: OAUTH2_PATHS.revocation,
  doc: oauth2Doc({
    operationId: 'oauth2Revoke',
    summary: 'RFC 7009 token revocation',
    description:
      'Needs the `TOKEN_ISSUE` grant. 200 `{}` whether the token was live, already revoked, expired or unknown.',
    request: TOKEN_REQUEST,
    responses: {
      200: {
        description: 'revoked (or nothing to revoke)',
        schema: { type: 'object', maxProperties: 0 },
        example: {},
      },
      400: { description: '`invalid_request`: token missing' },
      401: { description: '`invalid_client`' },
    },
  }),
  style: 'oauth2',
  tenantHeader: 'optional',
  noStore: true,
  document: `mutation OAuth2Revoke($token: String!) { revokeToken(token: $token) { revoked } }`,
  variables: (input) => {
    const { body } = input;
    const token = oauth2Param(body, 'token');
    input.requireGrant(Permission.TOKEN_ISSUE);
    return { token: tokenVariable(token) };
  },
  result: () => ({ status: 200, body: {} }),
});

/** The standard OAuth 2.0 rows (not legacy: RFC error bodies, form bodies, JSON only). */
export const OAUTH2_ROUTES = [oauth2Token, oauth2Introspect, oauth2Revoke] as ReadonlyArray<RestRoute<never>>;
