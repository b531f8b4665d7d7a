import { OAuthRequestError } from '../errors';
import { normalizeMsisdn } from '../lib/msisdn';

/*
 * The legacy token bodies' checks (CONTRACT §3), made by the token rows at the edge
 * before their operation runs: the operations take non-null, typed arguments (`clientId: MSISDN!`,
 * `grantType: GrantType!`, `token: String!`), and these answer what the legacy service answered
 * for a body that cannot become them, with the published messages, byte for byte. The names are
 * the legacy parameter names (`/oauth2/token` renames `client_id` to `msisdn` in its answers, see
 * RestRoute.parameterNames).
 */

const blank = (v: string | null): v is null | '' => v === null || v === '';

/** The grant type the token endpoints accept (CONTRACT §3). */
const CLIENT_CREDENTIALS = 'client_credentials';

/**
 * The `issueToken` variables of a token request's `grant_type` and `client_id` (absent or null
 * as null): `{grantType: 'CLIENT_CREDENTIALS', clientId: <canonical MSISDN>}`.
 * Checks in the legacy order: null or empty fields (listed `client_id` then `grant_type`,
 * published format), then the grant type, then the MSISDN syntax.
 * @throws OAuthRequestError `invalid_request` `[client_id cannot be null, grant_type cannot be
 *   null]` (naming only the null ones); `unsupported_grant_type` `grant_type must be
 *   client_credentials`; `invalid_request` `client_id must be an MSISDN: optional + then 5-15
 *   digits`.
 */
export function issueTokenVariables(
  grantType: string | null,
  clientId: string | null,
): { grantType: 'CLIENT_CREDENTIALS'; clientId: string } {
  const nulls = [blank(clientId) && 'client_id', blank(grantType) && 'grant_type'].filter(
    (f): f is string => !!f,
  );
  if (nulls.length)
    throw new OAuthRequestError(
      'invalid_request',
      `[${nulls.map((f) => `${f} cannot be null`).join(', ')}]`,
      nulls,
    );
  if (grantType !== CLIENT_CREDENTIALS)
    throw new OAuthRequestError('unsupported_grant_type', `grant_type must be ${CLIENT_CREDENTIALS}`, [
      'grant_type',
    ]);
  const msisdn = normalizeMsisdn(clientId);
  if (!msisdn)
    throw new OAuthRequestError(
      'invalid_request',
      'client_id must be an MSISDN: optional + then 5-15 digits',
      ['client_id'],
    );
  return { grantType: 'CLIENT_CREDENTIALS', clientId: msisdn };
}

/**
 * The `token` variable of an introspection or revocation request (absent or null as null).
 * @throws OAuthRequestError `invalid_request` `[token cannot be null]` for a null or empty token.
 */
export function tokenVariable(token: string | null): string {
  if (blank(token)) throw new OAuthRequestError('invalid_request', '[token cannot be null]', ['token']);
  return token;
}
