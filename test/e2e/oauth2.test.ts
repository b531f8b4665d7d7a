import { TestApp, TestResponse, startTestApp } from '../helpers/app';
import { basic } from '../helpers/fixtures';
import { EDGE_SECRET, oauth2Dataset } from '../helpers/oauth2';

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const form = (params: Record<string, string>) => new URLSearchParams(params).toString();
/** RFC 6749 §2.3.1 Basic: each part form-urlencoded, then base64. */
const rfcBasic = (id: string, secret: string) =>
  `Basic ${Buffer.from(`${form({ a: id }).slice(2)}:${form({ a: secret }).slice(2)}`).toString('base64')}`;
const GATEWAY = basic('gateway', 'gateway-password');
const GRANT = { grant_type: 'client_credentials', msisdn: '+353871234567' };

describe('Standard OAuth 2.0 endpoints (RFC 6749 §4.4, 7662, 7009, 8414) over HTTP', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ dataset: oauth2Dataset() });
  });
  afterAll(() => app.close());

  const post = (path: string, params: Record<string, string>, opts: { as?: string; auth?: string } = {}) =>
    app.request('POST', path, { ...opts, headers: FORM, raw: form(params) });
  const token = async (as = 'portal') => {
    const res = await post('/oauth2/token', GRANT, { as });
    expect(res.status).toBe(200);
    return res.json().access_token as string;
  };
  const legacyToken = async () =>
    (
      await app.request('POST', '/token', {
        as: 'portal',
        json: true,
        body: { grant_type: 'client_credentials', client_id: '353871234567' },
      })
    ).json().access_token as string;
  const introspect = async (t: string, as = 'portal') =>
    (await post('/oauth2/introspect', { token: t }, { as })).json();
  const legacyIntrospect = async (t: string) =>
    (await app.request('POST', '/token/introspect', { as: 'portal', json: true, body: { token: t } })).json();
  const countTokens = async () => Number((await app.tdb.db('tokens').count({ n: '*' }).first())!.n);
  const expectError = (res: TestResponse, status: number, error: string) => {
    expect(res.status).toBe(status);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const body = res.json();
    expect(Object.keys(body)).toEqual(['error', 'error_description']);
    expect(body.error).toBe(error);
    expect(typeof body.error_description).toBe('string');
    return body;
  };

  describe('GET /.well-known/oauth-authorization-server (RFC 8414)', () => {
    it('is public JSON naming the three endpoints, the grant and the auth methods, absolute from the request origin', async () => {
      const res = await app.request('GET', '/.well-known/oauth-authorization-server');
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      const methods = ['client_secret_basic', 'client_secret_post'];
      expect(res.json()).toEqual({
        issuer: app.url,
        token_endpoint: `${app.url}/oauth2/token`,
        introspection_endpoint: `${app.url}/oauth2/introspect`,
        revocation_endpoint: `${app.url}/oauth2/revoke`,
        grant_types_supported: ['client_credentials'],
        response_types_supported: [],
        token_endpoint_auth_methods_supported: methods,
        introspection_endpoint_auth_methods_supported: methods,
        revocation_endpoint_auth_methods_supported: methods,
      });
    });
  });

  describe('POST /oauth2/token (RFC 6749 §4.4, §5.1)', () => {
    it('issues 200 Bearer JSON with no-store for a form body and client_secret_basic, even when XML is asked for', async () => {
      const before = await countTokens();
      const res = await app.request('POST', '/oauth2/token', {
        as: 'portal',
        headers: { ...FORM, accept: 'application/xml' },
        raw: form(GRANT),
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(res.headers.get('pragma')).toBe('no-cache');
      const body = res.json();
      expect(Object.keys(body)).toEqual(['access_token', 'token_type', 'expires_in']);
      expect(body.access_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(body.token_type).toBe('Bearer');
      expect(body.expires_in).toBe(3600);
      expect(await countTokens()).toBe(before + 1);
    });

    it('accepts client_secret_post, a JSON body, and form-encoded Basic credentials', async () => {
      const post1 = await post('/oauth2/token', {
        ...GRANT,
        client_id: 'portal',
        client_secret: 'portal-password',
      });
      expect(post1.status).toBe(200);
      const json = await app.request('POST', '/oauth2/token', {
        body: { ...GRANT, client_id: 'portal', client_secret: 'portal-password' },
      });
      expect(json.status).toBe(200);
      expect(json.json().token_type).toBe('Bearer');
      const encoded = await post('/oauth2/token', GRANT, { auth: rfcBasic('edge@acme', EDGE_SECRET) });
      expect(encoded.status).toBe(200);
      const postSpecial = await post('/oauth2/token', {
        ...GRANT,
        client_id: 'edge@acme',
        client_secret: EDGE_SECRET,
      });
      expect(postSpecial.status).toBe(200);
      // A client_id beside Basic credentials is fine when it names the same client.
      expect((await post('/oauth2/token', { ...GRANT, client_id: 'portal' }, { as: 'portal' })).status).toBe(
        200,
      );
    });

    it('401 invalid_client with www-authenticate for missing, wrong, unknown, disabled or unusable credentials; nothing issued', async () => {
      const before = await countTokens();
      const cases: Array<[Record<string, string>, string | undefined]> = [
        [GRANT, undefined],
        [GRANT, basic('portal', 'wrong')],
        [GRANT, basic('ghost', 'portal-password')],
        [GRANT, basic('disabled')],
        [GRANT, 'Bearer abc'],
        [GRANT, 'Basic %%%'],
        [GRANT, basic('portal', 'bad%zz')],
        [{ ...GRANT, client_id: 'portal', client_secret: 'wrong' }, undefined],
        [{ ...GRANT, client_id: 'portal' }, undefined],
        [{ ...GRANT, client_id: 'ghost', client_secret: 'x' }, undefined],
        [{ ...GRANT, client_id: 'disabled', client_secret: 'disabled-password' }, undefined],
      ];
      for (const [params, auth] of cases) {
        const res = await post('/oauth2/token', params, { auth });
        expect(res.headers.get('www-authenticate')).toBe('Basic realm="subscriber-gateway"');
        expect(expectError(res, 401, 'invalid_client')).toEqual({
          error: 'invalid_client',
          error_description: 'client authentication failed',
        });
      }
      expect(await countTokens()).toBe(before);
    });

    it('400 invalid_request when two authentication methods are used or client_id contradicts the header', async () => {
      expectError(
        await post(
          '/oauth2/token',
          { ...GRANT, client_id: 'portal', client_secret: 'portal-password' },
          { as: 'portal' },
        ),
        400,
        'invalid_request',
      );
      expectError(
        await post('/oauth2/token', { ...GRANT, client_id: 'issuer' }, { as: 'portal' }),
        400,
        'invalid_request',
      );
    });

    it('400 unauthorized_client for a client without TOKEN_ISSUE or a tenant header naming another tenant; nothing issued', async () => {
      const before = await countTokens();
      const res = await post('/oauth2/token', GRANT, { auth: GATEWAY });
      expect(expectError(res, 400, 'unauthorized_client').error_description).toBe(
        'client lacks permission TOKEN_ISSUE',
      );
      const tenant = await app.request('POST', '/oauth2/token', {
        as: 'portal',
        headers: { ...FORM, tenant: 'rival' },
        raw: form(GRANT),
      });
      expectError(tenant, 400, 'unauthorized_client');
      expect(await countTokens()).toBe(before);
    });

    it('400 unsupported_grant_type for another grant type', async () => {
      for (const grant of ['password', 'authorization_code', 'refresh_token', 'CLIENT_CREDENTIALS']) {
        expectError(
          await post('/oauth2/token', { ...GRANT, grant_type: grant }, { as: 'portal' }),
          400,
          'unsupported_grant_type',
        );
      }
    });

    it('400 invalid_request for a missing (or empty) grant_type or msisdn, a malformed msisdn, a repeated parameter', async () => {
      const missing = await post('/oauth2/token', { grant_type: 'client_credentials' }, { as: 'portal' });
      expect(expectError(missing, 400, 'invalid_request').error_description).toBe('[msisdn cannot be null]');
      const empty = await post('/oauth2/token', { grant_type: '', msisdn: '353871234567' }, { as: 'portal' });
      expect(expectError(empty, 400, 'invalid_request').error_description).toBe(
        '[grant_type cannot be null]',
      );
      const bad = await post('/oauth2/token', { ...GRANT, msisdn: '12ab' }, { as: 'portal' });
      expect(expectError(bad, 400, 'invalid_request').error_description).toBe(
        'msisdn must be an MSISDN: optional + then 5-15 digits',
      );
      const repeated = await app.request('POST', '/oauth2/token', {
        as: 'portal',
        headers: FORM,
        raw: `${form(GRANT)}&msisdn=353871234568`,
      });
      expect(expectError(repeated, 400, 'invalid_request').error_description).toBe(
        'msisdn must be given once',
      );
      const wrongType = await app.request('POST', '/oauth2/token', {
        as: 'portal',
        body: { grant_type: 'client_credentials', msisdn: 353871234567 },
      });
      expectError(wrongType, 400, 'invalid_request');
    });

    it('400 invalid_scope for any scope (none is defined)', async () => {
      expectError(
        await post('/oauth2/token', { ...GRANT, scope: 'read' }, { as: 'portal' }),
        400,
        'invalid_scope',
      );
      expect((await post('/oauth2/token', { ...GRANT, scope: '' }, { as: 'portal' })).status).toBe(200);
    });

    it('415 invalid_request for another content-type, 413 for a body over 1 MiB, 400 for malformed JSON', async () => {
      for (const ct of ['text/plain', 'application/xml', 'multipart/form-data; boundary=x']) {
        const res = await app.request('POST', '/oauth2/token', {
          as: 'portal',
          headers: { 'content-type': ct },
          raw: form(GRANT),
        });
        expectError(res, 415, 'invalid_request');
      }
      const big = await app.request('POST', '/oauth2/token', {
        as: 'portal',
        headers: FORM,
        raw: form({ ...GRANT, pad: 'x'.repeat(1024 * 1024) }),
      });
      expectError(big, 413, 'invalid_request');
      const bad = await app.request('POST', '/oauth2/token', {
        as: 'portal',
        headers: { 'content-type': 'application/json' },
        raw: '{',
      });
      expectError(bad, 400, 'invalid_request');
    });
  });

  describe('POST /oauth2/introspect (RFC 7662)', () => {
    it('reports an active token with sub, client_id, exp, iat and token_type, JSON and no-store', async () => {
      const issuedAt = Math.floor(app.clock.ms / 1000);
      const t = await token('portal');
      const res = await post(
        '/oauth2/introspect',
        { token: t, token_type_hint: 'access_token' },
        { auth: GATEWAY },
      );
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(res.text).toBe(
        JSON.stringify({
          active: true,
          sub: '353871234567',
          client_id: 'portal',
          exp: issuedAt + 3600,
          iat: issuedAt,
          token_type: 'Bearer',
        }),
      );
    });

    it('accepts client_secret_post and a JSON body', async () => {
      const t = await token();
      const res = await post('/oauth2/introspect', {
        token: t,
        client_id: 'gateway',
        client_secret: 'gateway-password',
      });
      expect(res.json().active).toBe(true);
      const json = await app.request('POST', '/oauth2/introspect', { auth: GATEWAY, body: { token: t } });
      expect(json.json().active).toBe(true);
    });

    it('answers {"active":false} alone for unknown, expired and other tenants\' tokens', async () => {
      expect((await post('/oauth2/introspect', { token: 'not-a-token' }, { as: 'portal' })).text).toBe(
        '{"active":false}',
      );
      const rival = await token('rival');
      expect(await introspect(rival, 'rival')).toMatchObject({ active: true, client_id: 'rival' });
      expect(await introspect(rival)).toEqual({ active: false });
      const t = await token();
      app.clock.advanceSeconds(3599);
      expect((await introspect(t)).active).toBe(true);
      app.clock.advanceSeconds(1);
      expect(await introspect(t)).toEqual({ active: false });
    });

    it('sees tokens of the legacy /token, and the legacy /token/introspect sees its tokens, byte for byte', async () => {
      const legacy = await legacyToken();
      const issuedAt = Math.floor(app.clock.ms / 1000);
      expect(await introspect(legacy)).toEqual({
        active: true,
        sub: '353871234567',
        client_id: 'portal',
        exp: issuedAt + 3600,
        iat: issuedAt,
        token_type: 'Bearer',
      });
      const standard = await token();
      const res = await app.request('POST', '/token/introspect', {
        as: 'portal',
        json: true,
        body: { token: standard },
      });
      expect(res.text).toBe(
        JSON.stringify({ active: true, client_id: '353871234567', expiry: issuedAt + 3600 }),
      );
    });

    it('400 invalid_request without a token, 400 unauthorized_client without TOKEN_INTROSPECT, 401 invalid_client without credentials', async () => {
      for (const params of [{}, { token: '' }] as Record<string, string>[]) {
        expectError(await post('/oauth2/introspect', params, { as: 'portal' }), 400, 'invalid_request');
      }
      const t = await token();
      const denied = await post('/oauth2/introspect', { token: t }, { as: 'issuer' });
      expect(expectError(denied, 400, 'unauthorized_client').error_description).toBe(
        'client lacks permission TOKEN_INTROSPECT',
      );
      const anon = await post('/oauth2/introspect', { token: t });
      expectError(anon, 401, 'invalid_client');
      expect(anon.headers.get('www-authenticate')).toBe('Basic realm="subscriber-gateway"');
      expectError(
        await post('/oauth2/introspect', { token: t }, { auth: basic('gateway', 'x') }),
        401,
        'invalid_client',
      );
    });
  });

  describe('POST /oauth2/revoke (RFC 7009)', () => {
    it('revokes a standard token: 200, then inactive on both introspection endpoints', async () => {
      const t = await token();
      const res = await post(
        '/oauth2/revoke',
        { token: t, token_type_hint: 'access_token' },
        { as: 'portal' },
      );
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(res.json()).toEqual({});
      expect(await introspect(t)).toEqual({ active: false });
      expect(await legacyIntrospect(t)).toEqual({ active: false });
      // Revoking again, or revoking an unknown token, also succeeds.
      expect((await post('/oauth2/revoke', { token: t }, { as: 'portal' })).status).toBe(200);
      expect((await post('/oauth2/revoke', { token: 'unknown' }, { as: 'portal' })).status).toBe(200);
    });

    it('revokes a legacy token with client_secret_post, by another client of the same tenant', async () => {
      const t = await legacyToken();
      const res = await post('/oauth2/revoke', {
        token: t,
        client_id: 'issuer',
        client_secret: 'issuer-password',
      });
      expect(res.status).toBe(200);
      expect(await legacyIntrospect(t)).toEqual({ active: false });
      expect(await introspect(t)).toEqual({ active: false });
    });

    it('sees a revocation made through GraphQL revokeToken', async () => {
      const t = await token();
      const gql = await app.request('POST', '/graphql', {
        as: 'portal',
        body: { query: 'mutation($t: String!) { revokeToken(token: $t) { revoked } }', variables: { t } },
      });
      expect(gql.json()).toEqual({ data: { revokeToken: { revoked: true } } });
      expect(await introspect(t)).toEqual({ active: false });
    });

    it("leaves another tenant's token alone (200 all the same)", async () => {
      const rival = await token('rival');
      expect((await post('/oauth2/revoke', { token: rival }, { as: 'portal' })).status).toBe(200);
      expect((await introspect(rival, 'rival')).active).toBe(true);
    });

    it('400 unauthorized_client without TOKEN_ISSUE (the token stays active), 400 invalid_request without a token, 401 invalid_client', async () => {
      const t = await token();
      const denied = await post('/oauth2/revoke', { token: t }, { auth: GATEWAY });
      expect(expectError(denied, 400, 'unauthorized_client').error_description).toBe(
        'client lacks permission TOKEN_ISSUE',
      );
      expect((await introspect(t)).active).toBe(true);
      expectError(await post('/oauth2/revoke', {}, { as: 'portal' }), 400, 'invalid_request');
      expectError(
        await post('/oauth2/revoke', { token: t }, { auth: basic('portal', 'wrong') }),
        401,
        'invalid_client',
      );
      expect((await introspect(t)).active).toBe(true);
    });
  });
});

describe('OAuth 2.0 metadata with PUBLIC_BASE_URL', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ env: { PUBLIC_BASE_URL: 'https://gw.example.net/' } });
  });
  afterAll(() => app.close());

  it('builds the issuer and every endpoint from PUBLIC_BASE_URL', async () => {
    const body = (await app.request('GET', '/.well-known/oauth-authorization-server')).json();
    expect(body).toMatchObject({
      issuer: 'https://gw.example.net',
      token_endpoint: 'https://gw.example.net/oauth2/token',
      introspection_endpoint: 'https://gw.example.net/oauth2/introspect',
      revocation_endpoint: 'https://gw.example.net/oauth2/revoke',
    });
  });
});
