import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { ClientCredentials } from 'simple-oauth2';
import { TestApp, startTestApp } from '../helpers/app';
import { EDGE_SECRET, oauth2Dataset } from '../helpers/oauth2';

const run = promisify(execFile);
const SCRIPT = path.join(__dirname, 'oauth2-clients', 'openid-client.mjs');

/**
 * Runs openid-client v6 in a child node process (it is ESM-only; Jest runs CommonJS here) and
 * returns what the script printed.
 */
async function openidClient(issuer: string, method: string, clientId: string, secret: string) {
  const { stdout } = await run(
    process.execPath,
    [SCRIPT, issuer, method, clientId, secret, '+353871234567'],
    {
      timeout: 20_000,
    },
  );
  return JSON.parse(stdout.trim().split('\n').pop()!) as Record<string, unknown> & {
    active: Record<string, unknown>;
    revoked: Record<string, unknown>;
    tokens: Record<string, unknown>;
  };
}

describe('Real OAuth 2.0 client libraries against the standard endpoints', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ dataset: oauth2Dataset() });
  });
  afterAll(() => app.close());

  const legacyIntrospect = async (token: unknown) =>
    (await app.request('POST', '/token/introspect', { as: 'portal', json: true, body: { token } })).json();

  it.each(['client_secret_basic', 'client_secret_post'])(
    'openid-client discovers from RFC 8414 metadata, gets a token (%s), introspects and revokes it',
    async (method) => {
      const iat = Math.floor(app.clock.ms / 1000);
      const r = await openidClient(app.url, method, 'edge@acme', EDGE_SECRET);
      expect(r).toMatchObject({ ok: true });
      expect(r.tokens).toMatchObject({ token_type: 'bearer', expires_in: 3600 });
      expect(r.active).toEqual({
        active: true,
        sub: '353871234567',
        client_id: 'edge@acme',
        exp: iat + 3600,
        iat,
        token_type: 'Bearer',
      });
      expect(r.revoked).toEqual({ active: false });
      // The legacy endpoint sees the revocation too.
      expect(await legacyIntrospect(r.tokens.access_token)).toEqual({ active: false });
    },
  );

  it('openid-client gets the 401 Basic challenge and invalid_client for a wrong secret', async () => {
    const r = await openidClient(app.url, 'client_secret_basic', 'portal', 'wrong');
    expect(r).toEqual({
      ok: false,
      name: 'WWWAuthenticateChallengeError',
      status: 401,
      error: 'invalid_client',
      challenge: 'Basic realm="subscriber-gateway"',
    });
  });

  it('simple-oauth2 with its defaults (Basic header, form body) gets a token the legacy introspection accepts, and revokes it', async () => {
    const client = new ClientCredentials({
      client: { id: 'edge@acme', secret: EDGE_SECRET },
      auth: { tokenHost: app.url, tokenPath: '/oauth2/token', revokePath: '/oauth2/revoke' },
    });
    const accessToken = await client.getToken({ msisdn: '353871234567' });
    expect(accessToken.token).toMatchObject({ token_type: 'Bearer', expires_in: 3600 });
    expect(accessToken.expired()).toBe(false);
    expect(await legacyIntrospect(accessToken.token.access_token)).toMatchObject({
      active: true,
      client_id: '353871234567',
    });
    await accessToken.revoke('access_token');
    expect(await legacyIntrospect(accessToken.token.access_token)).toEqual({ active: false });
  });

  it('simple-oauth2 with client_secret_post (authorizationMethod body) also works', async () => {
    const client = new ClientCredentials({
      client: { id: 'portal', secret: 'portal-password' },
      auth: { tokenHost: app.url, tokenPath: '/oauth2/token' },
      options: { authorizationMethod: 'body' },
    });
    const accessToken = await client.getToken({ msisdn: '353871234567' });
    expect((await legacyIntrospect(accessToken.token.access_token)).active).toBe(true);
    await expect(
      new ClientCredentials({
        client: { id: 'portal', secret: 'wrong' },
        auth: { tokenHost: app.url, tokenPath: '/oauth2/token' },
      }).getToken({ msisdn: '353871234567' }),
    ).rejects.toMatchObject({ output: { statusCode: 401 }, data: { payload: { error: 'invalid_client' } } });
  });
});
