import { TestApp, startTestApp } from '../helpers/app';
import { basic } from '../helpers/fixtures';

describe('/graphql (CONTRACT §2, §7)', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ sandboxAuthorization: basic('admin') });
  });
  afterAll(() => app.close());

  const gql = (
    query: string,
    opts: {
      as?: string;
      auth?: string;
      headers?: Record<string, string>;
      variables?: Record<string, unknown>;
    } = {},
  ) =>
    app.request('POST', '/graphql', {
      as: opts.as,
      auth: opts.auth,
      headers: opts.headers,
      body: { query, variables: opts.variables },
    });

  it('issues, introspects and revokes a token', async () => {
    const issued = await gql(
      'mutation { issueToken(grantType: CLIENT_CREDENTIALS, clientId: "+353871234567") { token { accessToken tokenType expiresIn } userErrors { code } } }',
      { as: 'portal' },
    );
    expect(issued.status).toBe(200);
    const payload = (
      issued.json().data as {
        issueToken: { token: { accessToken: string; tokenType: string; expiresIn: number }; userErrors: [] };
      }
    ).issueToken;
    expect(payload.userErrors).toEqual([]);
    const t = payload.token;
    expect(t.tokenType).toBe('bearer');
    expect(t.expiresIn).toBe(3600);
    const q = 'query($t: String!) { introspectToken(token: $t) { active clientId expiry } }';
    const active = await gql(q, { as: 'portal', variables: { t: t.accessToken } });
    expect(active.json().data).toEqual({
      introspectToken: {
        active: true,
        clientId: '353871234567',
        expiry: Math.floor(app.clock.ms / 1000) + 3600,
      },
    });
    const revoked = await gql(
      'mutation($t: String!) { revokeToken(token: $t) { revoked userErrors { code } } }',
      {
        as: 'portal',
        variables: { t: t.accessToken },
      },
    );
    expect(revoked.json().data).toEqual({ revokeToken: { revoked: true, userErrors: [] } });
    const after = await gql(q, { as: 'portal', variables: { t: t.accessToken } });
    expect(after.json().data).toEqual({ introspectToken: { active: false, clientId: null, expiry: null } });
  });

  it('token arguments are non-null and typed: a missing or malformed one is refused before any resolver', async () => {
    const before = await app.tdb.db('tokens').count({ n: '*' }).first();
    for (const query of [
      'mutation { issueToken(clientId: "353871234567") { token { accessToken } } }',
      'mutation { issueToken(grantType: CLIENT_CREDENTIALS, clientId: "12ab") { token { accessToken } } }',
      'mutation { issueToken(grantType: "client_credentials", clientId: "353871234567") { token { accessToken } } }',
      '{ introspectToken { active } }',
      'mutation { revokeToken { revoked } }',
    ]) {
      const res = await gql(query, { as: 'admin' });
      expect(res.status).toBe(400);
      expect((res.json().errors as { extensions: { code: string } }[])[0].extensions.code).toMatch(
        /^(GRAPHQL_VALIDATION_FAILED|BAD_USER_INPUT)$/,
      );
    }
    expect(await app.tdb.db('tokens').count({ n: '*' }).first()).toEqual(before);
  });

  it('401 UNAUTHENTICATED with www-authenticate without or with bad credentials', async () => {
    for (const auth of [undefined, basic('portal', 'wrong'), basic('ghost')]) {
      const res = await gql('{ introspectToken(token: "x") { active } }', { auth });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Basic realm="subscriber-gateway"');
      expect(res.json()).toEqual({
        errors: [{ message: 'authentication required', extensions: { code: 'UNAUTHENTICATED' } }],
      });
    }
  });

  it('allows schema introspection without credentials while the sandbox is on, but not data', async () => {
    const res = await gql('{ __schema { queryType { name } } }');
    expect(res.status).toBe(200);
    expect(res.json().data).toEqual({ __schema: { queryType: { name: 'Query' } } });
    const mixed = await gql('{ __schema { queryType { name } } introspectToken(token: "x") { active } }');
    expect(mixed.status).toBe(401);
    const badCreds = await gql('{ __schema { queryType { name } } }', { auth: basic('portal', 'wrong') });
    expect(badCreds.status).toBe(401);
  });

  it('FORBIDDEN without the grant', async () => {
    const res = await gql('{ introspectToken(token: "x") { active } }', { as: 'issuer' });
    expect(res.status).toBe(200);
    const body = res.json() as { data: unknown; errors: { message: string; extensions: { code: string } }[] };
    expect(body.data).toBeNull();
    expect(body.errors[0].extensions.code).toBe('FORBIDDEN');
    expect(body.errors[0].message).toBe('client lacks permission TOKEN_INTROSPECT');
  });

  it('403 when the tenant header names another tenant', async () => {
    const res = await gql('{ introspectToken(token: "x") { active } }', {
      as: 'portal',
      headers: { tenant: 'rival' },
    });
    expect(res.status).toBe(403);
    expect((res.json().errors as { extensions: { code: string } }[])[0].extensions.code).toBe('FORBIDDEN');
  });

  it('answers the full introspection query Apollo Sandbox sends, without credentials', async () => {
    const { getIntrospectionQuery } = await import('graphql');
    const res = await gql(getIntrospectionQuery());
    expect(res.status).toBe(200);
    const types = (res.json().data as { __schema: { types: { name: string }[] } }).__schema.types.map(
      (t) => t.name,
    );
    expect(types).toEqual(expect.arrayContaining(['Query', 'Mutation', 'IssuedToken', 'TokenIntrospection']));
  });

  it('never returns stack traces for malformed operations', async () => {
    for (const query of ['{ nope(', '{ nope }', 'mutation { issueToken(grantType: 5) { accessToken } }']) {
      const res = await gql(query, { as: 'portal' });
      expect(res.status).toBe(400);
      expect(res.text).not.toMatch(/stacktrace|\.ts:\d+|\.js:\d+/);
    }
  });

  it('400 for malformed JSON and 413 for an oversized body, as GraphQL-style errors', async () => {
    const bad = await app.request('POST', '/graphql', {
      as: 'portal',
      raw: '{"query":',
      headers: { 'content-type': 'application/json' },
    });
    expect(bad.status).toBe(400);
    expect(bad.json()).toEqual({
      errors: [{ message: 'request body is not valid JSON', extensions: { code: 'BAD_REQUEST' } }],
    });
    const big = await app.request('POST', '/graphql', {
      as: 'portal',
      body: { query: `{ __typename }${' '.repeat(1024 * 1024)}` },
    });
    expect(big.status).toBe(413);
  });

  it('serves Apollo Sandbox to a browser with the configured authorization pre-filled', async () => {
    const res = await app.request('GET', '/graphql', { headers: { accept: 'text/html' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/text\/html/);
    expect(res.text).toContain('embeddable-sandbox');
    expect(res.text).toContain(basic('admin'));
  });

  it('answers GET queries with the preflight header', async () => {
    const res = await app.request(
      'GET',
      `/graphql?query=${encodeURIComponent('{ introspectToken(token: "x") { active } }')}`,
      {
        as: 'portal',
        headers: { 'apollo-require-preflight': 'true' },
      },
    );
    expect(res.status).toBe(200);
    expect(res.json().data).toEqual({ introspectToken: { active: false } });
  });
});

describe('/graphql with the sandbox off', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ env: { GRAPHQL_SANDBOX: 'false' } });
  });
  afterAll(() => app.close());

  it('requires credentials for introspection and serves no landing page', async () => {
    const res = await app.request('POST', '/graphql', {
      body: { query: '{ __schema { queryType { name } } }' },
    });
    expect(res.status).toBe(401);
    const withCreds = await app.request('POST', '/graphql', {
      as: 'portal',
      body: { query: '{ __schema { queryType { name } } }' },
    });
    expect(withCreds.status).toBe(200);
    const page = await app.request('GET', '/graphql', { headers: { accept: 'text/html' } });
    expect(page.text).not.toContain('embeddable-sandbox');
  });
});
