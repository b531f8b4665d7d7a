import { TestApp, startTestApp } from '../helpers/app';

/**
 * The token operations take non-null, typed arguments (`clientId: MSISDN!`,
 * `grantType: GrantType!`, `token: String!`); `issueToken` and `revokeToken` return payloads
 * with typed `userErrors`; `introspectToken` checks its permission once.
 */
describe('GraphQL token operations: typed arguments and payloads', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(() => app.close());

  const gql = async (as: string, query: string, variables: Record<string, unknown> = {}) => {
    const res = await app.request('POST', '/graphql', { as, body: { query, variables } });
    return {
      status: res.status,
      ...(res.json() as {
        data?: Record<string, Record<string, unknown>> | null;
        errors?: { message: string; extensions: { code: string } }[];
      }),
    };
  };
  const tokenCount = async () => Number((await app.tdb.db('tokens').count({ n: '*' }).first())!.n);

  const ISSUE = `mutation($c: MSISDN!, $g: GrantType!) { issueToken(clientId: $c, grantType: $g) {
    token { accessToken tokenType expiresIn } userErrors { __typename code field message } } }`;
  const REVOKE = `mutation($t: String!) { revokeToken(token: $t) { revoked userErrors { __typename code field message } } }`;
  const INTROSPECT = `query($t: String!) { introspectToken(token: $t) { active clientId expiry } }`;

  it('issueToken: the payload carries the token; the MSISDN comes back canonical', async () => {
    const issued = await gql('portal', ISSUE, { c: '+353871234567', g: 'CLIENT_CREDENTIALS' });
    expect(issued.errors).toBeUndefined();
    const { token, userErrors } = issued.data!.issueToken as {
      token: { accessToken: string; tokenType: string; expiresIn: number };
      userErrors: unknown[];
    };
    expect(userErrors).toEqual([]);
    expect(token).toMatchObject({ tokenType: 'bearer', expiresIn: 3600 });
    const seen = await gql('portal', INTROSPECT, { t: token.accessToken });
    expect(seen.data!.introspectToken).toMatchObject({ active: true, clientId: '353871234567' });
  });

  it('a malformed MSISDN, an unknown grant type or a null argument is BAD_USER_INPUT before anything is written', async () => {
    const before = await tokenCount();
    for (const variables of [
      { c: '12ab', g: 'CLIENT_CREDENTIALS' },
      { c: '353871234567', g: 'client_credentials' },
      { c: '353871234567', g: 'PASSWORD' },
      { c: null, g: 'CLIENT_CREDENTIALS' },
    ]) {
      const res = await gql('portal', ISSUE, variables);
      expect(res.status).toBe(400);
      expect(res.errors?.[0].extensions.code).toBe('BAD_USER_INPUT');
    }
    for (const [q, variables] of [
      [REVOKE, { t: null }],
      [INTROSPECT, { t: null }],
    ] as const) {
      const res = await gql('portal', q, variables);
      expect(res.status).toBe(400);
      expect(res.errors?.[0].extensions.code).toBe('BAD_USER_INPUT');
    }
    expect(await tokenCount()).toBe(before);
  });

  it('revokeToken: revoked true (also for an unknown token); an empty token is a userError EMPTY_TOKEN', async () => {
    expect((await gql('portal', REVOKE, { t: 'never-issued' })).data!.revokeToken).toEqual({
      revoked: true,
      userErrors: [],
    });
    expect((await gql('portal', REVOKE, { t: '' })).data!.revokeToken).toEqual({
      revoked: null,
      userErrors: [
        {
          __typename: 'RevokeTokenUserError',
          code: 'EMPTY_TOKEN',
          field: ['token'],
          message: 'token must not be empty',
        },
      ],
    });
  });

  it('introspectToken: an empty token is BAD_USER_INPUT; without TOKEN_INTROSPECT one FORBIDDEN', async () => {
    const empty = await gql('portal', INTROSPECT, { t: '' });
    expect(empty.errors?.[0]).toMatchObject({
      message: 'token must not be empty',
      extensions: { code: 'BAD_USER_INPUT' },
    });
    const denied = await gql('issuer', INTROSPECT, { t: 'x' });
    expect(denied.errors).toHaveLength(1);
    expect(denied.errors![0]).toMatchObject({
      message: 'client lacks permission TOKEN_INTROSPECT',
      extensions: { code: 'FORBIDDEN' },
    });
  });

  it('issueToken and revokeToken need TOKEN_ISSUE: FORBIDDEN is an error, not a userError', async () => {
    const before = await tokenCount();
    const issue = await gql('nogrant', ISSUE, { c: '353871234567', g: 'CLIENT_CREDENTIALS' });
    expect(issue.errors?.[0].extensions.code).toBe('FORBIDDEN');
    const revoke = await gql('nogrant', REVOKE, { t: 'x' });
    expect(revoke.errors?.[0].extensions.code).toBe('FORBIDDEN');
    expect(await tokenCount()).toBe(before);
  });
});
