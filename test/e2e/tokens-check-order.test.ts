import { TestApp, startTestApp } from '../helpers/app';

/**
 * The token rows answer the legacy value checks at the edge (docs/contract.md §3); the order of the
 * answers stays what it was when those checks ran inside the operation: a field of the wrong JSON
 * type is 400 first, then a missing grant 403 (OAuth 2.0 rows: `unauthorized_client`), then the
 * null, empty and value checks 400.
 */
describe('token rows: JSON type, then grant, then legacy value checks', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(() => app.close());

  const post = (path: string, as: string, body: unknown) =>
    app.request('POST', path, { as, json: true, body });

  it('a client without the grant gets 403 for a body with nulls or a bad grant type', async () => {
    for (const body of [{}, { grant_type: 'password', client_id: '353871234567' }, { client_id: 'x' }]) {
      const res = await post('/token', 'nogrant', body);
      expect(res.status).toBe(403);
      expect(res.json()).toEqual({ errorCode: 1, message: 'client lacks permission TOKEN_ISSUE' });
    }
    const intro = await post('/token/introspect', 'issuer', { token: '' });
    expect(intro.status).toBe(403);
    expect(intro.json()).toEqual({ errorCode: 1, message: 'client lacks permission TOKEN_INTROSPECT' });
  });

  it('a field of the wrong JSON type is 400 before the grant is looked at', async () => {
    const res = await post('/token', 'nogrant', { grant_type: 5, client_id: '353871234567' });
    expect(res.status).toBe(400);
    expect(res.json().error).toBe('invalid_request');
  });

  it('a client with the grant gets the published null message', async () => {
    const res = await post('/token', 'portal', { grant_type: '' });
    expect(res.status).toBe(400);
    expect(res.json()).toEqual({
      error: 'invalid_request',
      error_description: '[client_id cannot be null, grant_type cannot be null]',
    });
  });

  it('the OAuth 2.0 rows answer unauthorized_client before invalid_request', async () => {
    for (const path of ['/oauth2/introspect', '/oauth2/revoke']) {
      const res = await post(path, 'nogrant', {});
      expect(res.status).toBe(400);
      expect(res.json().error).toBe('unauthorized_client');
    }
    const token = await post('/oauth2/token', 'nogrant', {});
    expect(token.json().error).toBe('unauthorized_client');
  });
});
