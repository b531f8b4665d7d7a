import { OAuthRequestError } from '../../src/errors';
import { issueTokenVariables, tokenVariable } from '../../src/rest/token-input';

/**
 * The legacy token bodies' checks, made by the token rows before their operation runs
 * (docs/contract.md §3): the published messages, in the legacy order.
 */
describe('legacy token request checks (src/rest/token-input.ts)', () => {
  it.each([
    [null, null, 'invalid_request', '[client_id cannot be null, grant_type cannot be null]'],
    ['', '', 'invalid_request', '[client_id cannot be null, grant_type cannot be null]'],
    ['client_credentials', null, 'invalid_request', '[client_id cannot be null]'],
    ['client_credentials', '', 'invalid_request', '[client_id cannot be null]'],
    [null, '353871234567', 'invalid_request', '[grant_type cannot be null]'],
    [null, '12ab', 'invalid_request', '[grant_type cannot be null]'],
    ['password', '353871234567', 'unsupported_grant_type', 'grant_type must be client_credentials'],
    ['password', '12ab', 'unsupported_grant_type', 'grant_type must be client_credentials'],
    [
      'client_credentials',
      '12ab',
      'invalid_request',
      'client_id must be an MSISDN: optional + then 5-15 digits',
    ],
  ])('issueTokenVariables(%j, %j) → %s %s', (grant, clientId, error, description) => {
    let err: unknown;
    try {
      issueTokenVariables(grant, clientId);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(OAuthRequestError);
    expect((err as OAuthRequestError).error).toBe(error);
    expect((err as OAuthRequestError).errorDescription).toBe(description);
  });

  it('gives the typed variables of a valid request: the enum name and the canonical MSISDN', () => {
    expect(issueTokenVariables('client_credentials', '+353871234567')).toEqual({
      grantType: 'CLIENT_CREDENTIALS',
      clientId: '353871234567',
    });
  });

  it('tokenVariable: [token cannot be null] for null or empty, else the token', () => {
    for (const t of [null, ''])
      expect(() => tokenVariable(t)).toThrow(
        new OAuthRequestError('invalid_request', '[token cannot be null]', ['token']),
      );
    expect(tokenVariable('abc')).toBe('abc');
  });
});
