import type { Middleware } from 'koa';
import { AuthResult } from '../auth/authenticate';
import { parseBasic } from '../auth/basic';
import { OAuthRequestError } from '../errors';
import { RestFailure } from './failure';
import { sendBody } from './respond';
import { RestOutput, optionalString } from './route';

/** The standard endpoints (RFC 6749 §4.4, RFC 7662, RFC 7009, RFC 8414), beside the legacy ones. */
export const OAUTH2_PATHS = {
  token: '/oauth2/token',
  introspection: '/oauth2/introspect',
  revocation: '/oauth2/revoke',
  metadata: '/.well-known/oauth-authorization-server',
} as const;

/** Client authentication methods the `/oauth2/*` rows accept (RFC 8414 names). */
export const OAUTH2_AUTH_METHODS = ['client_secret_basic', 'client_secret_post'] as const;

/** `www-authenticate` of the `invalid_client` 401 (RFC 6749 §5.2: the scheme the client may use). */
export const OAUTH2_CHALLENGE = 'Basic realm="subscriber-gateway"';

/**
 * Reads an OAuth 2.0 request parameter from a form or JSON body: absent, null or empty gives
 * null (RFC 6749 §3.1: "parameters sent without a value MUST be treated as if they were omitted").
 * @throws BadUserInputError when a JSON body gives it another type than string.
 */
export function oauth2Param(body: Record<string, unknown>, name: string): string | null {
  const v = optionalString(body, name);
  return v === '' ? null : v;
}

/** `application/x-www-form-urlencoded` decoding of one Basic credential part (RFC 6749 §2.3.1). */
function formDecode(part: string): string | null {
  try {
    return decodeURIComponent(part.replace(/\+/g, ' '));
  } catch {
    return null;
  }
}

const basicHeader = (username: string, password: string): string =>
  `Basic ${Buffer.from(`${username}:${password}`, 'utf8').toString('base64')}`;

/**
 * Authenticates the API client of an `/oauth2/*` request (RFC 6749 §2.3.1): either HTTP Basic
 * (`client_secret_basic`, username and password each form-urlencoded before base64, as standard
 * clients send them) in `authorization` or the published `authorisation`, or `client_id` and
 * `client_secret` body parameters (`client_secret_post`). The credentials are then checked by
 * `authenticate` exactly as a Basic header on every other path (same constant-time check, same
 * place for brute-force throttling). A `client_id` beside a Basic header must name the same
 * client. No credentials gives `missing`, bad ones `invalid` (both `invalid_client`).
 * @throws OAuthRequestError `invalid_request` when the request uses two methods at once
 *   (RFC 6749 §2.3: "MUST NOT use more than one authentication method").
 */
export async function authenticateOAuth2Client(
  headers: Record<string, string | string[] | undefined>,
  body: Record<string, unknown>,
  authenticate: (headers: Record<string, string>) => AuthResult | Promise<AuthResult>,
): Promise<AuthResult> {
  const raw = headers['authorization'] ?? headers['authorisation'];
  const header = Array.isArray(raw) ? raw[0] : raw;
  const clientId = oauth2Param(body, 'client_id');
  const clientSecret = oauth2Param(body, 'client_secret');
  if (header) {
    if (clientSecret !== null) {
      throw new OAuthRequestError(
        'invalid_request',
        'use one client authentication method: the authorization header or client_secret',
        ['client_secret'],
      );
    }
    const creds = parseBasic(header);
    if (creds === null || creds === 'invalid') return { status: 'invalid' };
    const username = formDecode(creds.username);
    const password = formDecode(creds.password);
    if (username === null || password === null || username.includes(':')) return { status: 'invalid' };
    if (clientId !== null && clientId !== username) {
      throw new OAuthRequestError('invalid_request', 'client_id does not match the authorization header', [
        'client_id',
      ]);
    }
    return authenticate({ authorization: basicHeader(username, password) });
  }
  if (clientId === null) return { status: 'missing' };
  if (clientSecret === null || clientId.includes(':')) return { status: 'invalid' };
  return authenticate({ authorization: basicHeader(clientId, clientSecret) });
}

/** An RFC 6749 §5.2 error body. */
export interface OAuth2ErrorBody extends Record<string, unknown> {
  error: string;
  error_description: string;
}

function rename(description: string, names: Readonly<Record<string, string>>): string {
  return Object.entries(names).reduce(
    (d, [from, to]) => d.replace(new RegExp(`\\b${from}\\b`, 'g'), to),
    description,
  );
}

/**
 * Status and RFC 6749 §5.2 body of a failed `/oauth2/*` request: 401 `invalid_client` (bad, missing
 * or disabled client credentials); 429 `invalid_client` (too many failed logins: the credentials were
 * not checked); 400 `unauthorized_client` (authenticated, but without the
 * permission the endpoint needs, or a `tenant` header naming another tenant); 400 with the
 * operation's own `error` (`invalid_request`, `unsupported_grant_type`, `invalid_scope`), its
 * description naming parameters as the row does (`parameterNames`); other 4xx keep their status
 * (413, 415) with `invalid_request`; 5xx keep theirs with `server_error` (503:
 * `temporarily_unavailable`).
 */
export function oauth2Failure(
  f: RestFailure,
  parameterNames: Readonly<Record<string, string>> = {},
): RestOutput & { body: OAuth2ErrorBody } {
  const out = (status: number, error: string, description: string) => ({
    status,
    body: { error, error_description: rename(description, parameterNames) },
  });
  if (f.status === 401) return out(401, 'invalid_client', 'client authentication failed');
  if (f.status === 429) return out(429, 'invalid_client', f.message);
  if (f.status === 403) return out(400, 'unauthorized_client', f.message);
  if (f.domain instanceof OAuthRequestError) return out(400, f.domain.error, f.domain.errorDescription);
  if (f.status === 503) return out(503, 'temporarily_unavailable', f.message);
  if (f.status >= 500) return out(f.status, 'server_error', f.message);
  return out(f.status, 'invalid_request', f.message);
}

/**
 * The RFC 8414 authorization server metadata of the standard endpoints. `baseUrl` is the issuer
 * identifier and the prefix of every endpoint URL (PUBLIC_BASE_URL, else the request's origin,
 * as every link the service emits). No authorization endpoint exists: the only grant is
 * `client_credentials`, so `response_types_supported` is empty.
 */
export function authorizationServerMetadata(baseUrl: string): Record<string, unknown> {
  const methods = [...OAUTH2_AUTH_METHODS];
  return {
    issuer: baseUrl,
    token_endpoint: baseUrl + OAUTH2_PATHS.token,
    introspection_endpoint: baseUrl + OAUTH2_PATHS.introspection,
    revocation_endpoint: baseUrl + OAUTH2_PATHS.revocation,
    grant_types_supported: ['client_credentials'],
    response_types_supported: [],
    token_endpoint_auth_methods_supported: methods,
    introspection_endpoint_auth_methods_supported: methods,
    revocation_endpoint_auth_methods_supported: methods,
  };
}

/**
 * `GET /.well-known/oauth-authorization-server` (RFC 8414 §3): public, JSON. `publicBaseUrl` is
 * PUBLIC_BASE_URL (without trailing slash) or null for the request's own origin.
 */
export function authorizationServerMetadataHandler(publicBaseUrl: string | null): Middleware {
  return (ctx) => {
    sendBody(ctx, 200, authorizationServerMetadata(publicBaseUrl ?? `${ctx.protocol}://${ctx.host}`), 'json');
  };
}
