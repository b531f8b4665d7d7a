import { Permission } from '../auth/permissions';
import { introspectTokenField } from '../modules/tokens/token.resolver';
import { CHARGING_ROUTES } from './charging.routes';
import { LOCATION_ROUTES } from './location.routes';
import { OAUTH2_ROUTES } from './oauth2.routes';
import { RestRoute, defineRoute, optionalString } from './route';
import { MSISDN, MSISDN_IN, integer, named, object, text } from './schemas';
import { SQS_ROUTES } from './sqs.routes';
import { issueTokenVariables, tokenVariable } from './token-input';

const TOKEN = named(
  'Token',
  object({
    access_token: text('opaque, URL-safe, at least 256 bits of randomness'),
    token_type: { type: 'string', const: 'bearer' },
    expires_in: integer('seconds: TOKEN_TTL_SECONDS (default 3600, published)'),
  }),
);

const INTROSPECTION = named('TokenIntrospection', {
  oneOf: [
    {
      ...object({ active: { const: true }, client_id: MSISDN, expiry: integer('Unix epoch seconds') }),
      additionalProperties: false,
    },
    { ...object({ active: { const: false } }), additionalProperties: false },
  ],
});

/** POST /token (CONTRACT §3): 201 with the OAuth token body. */
const issueToken = defineRoute<{
  issueToken: { token: { accessToken: string; tokenType: string; expiresIn: number } };
}>({
  method: 'POST',
  path: '/token',
  doc: {
    operationId: 'issueToken',
    tag: 'tokens',
    summary: 'Issue a captive-portal token for a subscriber',
    description: "Needs the `TOKEN_ISSUE` grant. The token belongs to the client's tenant (CONTRACT §3).",
    request: {
      schema: object({
        grant_type: { type: 'string', const: 'client_credentials' },
        client_id: MSISDN_IN,
      }),
      example: { grant_type: 'client_credentials', client_id: '353871234567' },
    },
    responses: {
      201: {
        description: 'issued',
        schema: TOKEN,
        example: {
          access_token: 'Jq3V0y0dUQ2l1bXpRk0ZlVh4W1hZ3lqXz8n0bGkQm4',
          token_type: 'bearer',
          expires_in: 3600,
        },
      },
      400: {
        description:
          '`invalid_request`: `grant_type` or `client_id` missing, null or empty (published description `[client_id cannot be null, grant_type cannot be null]` naming only those), or `client_id` not an MSISDN; `unsupported_grant_type`: another grant',
        example: {
          error: 'invalid_request',
          error_description: '[client_id cannot be null, grant_type cannot be null]',
        },
      },
    },
  },
  style: 'oauth',
  tenantHeader: 'optional',
  noStore: true,
  document: `mutation IssueToken($grantType: GrantType!, $clientId: MSISDN!) {
    issueToken(grantType: $grantType, clientId: $clientId) { token { accessToken tokenType expiresIn } }
  }`,
  // Wrong JSON types first (400 naming the field), then the legacy null and value checks.
  variables: (input) => {
    const grantType = optionalString(input.body, 'grant_type');
    const clientId = optionalString(input.body, 'client_id');
    input.requireGrant(Permission.TOKEN_ISSUE);
    return issueTokenVariables(grantType, clientId);
  },
  result: ({ issueToken: { token: t } }) => ({
    status: 201,
    body: { access_token: t.accessToken, token_type: t.tokenType, expires_in: t.expiresIn },
  }),
});

/** POST /token/introspect (CONTRACT §3): 200 `{active}` or `{active, client_id, expiry}`. */
const introspectToken = defineRoute<{
  introspectToken: { active: boolean; clientId: string | null; expiry: number | null };
}>({
  method: 'POST',
  path: '/token/introspect',
  doc: {
    operationId: 'introspectToken',
    tag: 'tokens',
    summary: 'Introspect a token',
    description:
      'Needs the `TOKEN_INTROSPECT` grant. An unknown, expired, revoked or other tenant\'s token is `{"active":false}` and nothing else (CONTRACT §3).',
    request: {
      schema: object({ token: text('a token issued by POST /token') }),
      example: { token: 'Jq3V0y0dUQ2l1bXpRk0ZlVh4W1hZ3lqXz8n0bGkQm4' },
    },
    responses: {
      200: {
        description: "the token's state",
        schema: INTROSPECTION,
        example: { active: true, client_id: '353871234567', expiry: 1767225600 },
      },
      400: { description: '`invalid_request`: token missing, null or empty (`[token cannot be null]`)' },
    },
  },
  style: 'oauth',
  tenantHeader: 'optional',
  noStore: true,
  document: `query IntrospectToken($token: String!) {
    introspectToken(token: $token) { active clientId expiry }
  }`,
  variables: (input) => {
    const token = optionalString(input.body, 'token');
    input.requireGrant(Permission.TOKEN_INTROSPECT);
    return { token: tokenVariable(token) };
  },
  // The busiest row answers without GraphQL execution, through the resolver's own function.
  resolve: (gctx, { token }) =>
    introspectTokenField(gctx, token as string, (introspectToken) => ({ introspectToken })),
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
