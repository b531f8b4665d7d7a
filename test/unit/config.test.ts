import { ConfigError, loadConfig } from '../../src/config';

describe('loadConfig (CONTRACT §8)', () => {
  it('applies the documented defaults', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      databaseUrl: 'sqlite:var/gateway.sqlite3',
      port: 8080,
      tokenTtlSeconds: 3600,
      ratingTimeoutMs: 2000,
      maxGroupSize: 10,
      maxPlansPerSubscriber: 20,
      graphqlSandbox: true,
      trustProxy: false,
      publicBaseUrl: null,
    });
  });

  it('turns the sandbox off by default in production', () => {
    expect(loadConfig({ NODE_ENV: 'production' }).graphqlSandbox).toBe(false);
    expect(loadConfig({ NODE_ENV: 'production', GRAPHQL_SANDBOX: 'true' }).graphqlSandbox).toBe(true);
  });

  it('reads valid values', () => {
    const c = loadConfig({
      DATABASE_URL: 'mysql://u:p@db:3306/gw',
      PORT: '9000',
      PUBLIC_BASE_URL: 'https://api.example.com/',
      TOKEN_TTL_SECONDS: '60',
      TRUST_PROXY: 'yes',
    });
    expect(c).toMatchObject({
      databaseUrl: 'mysql://u:p@db:3306/gw',
      port: 9000,
      publicBaseUrl: 'https://api.example.com',
      tokenTtlSeconds: 60,
      trustProxy: true,
    });
  });

  it.each([
    ['PORT', 'eighty'],
    ['PORT', '70000'],
    ['TOKEN_TTL_SECONDS', '0'],
    ['TOKEN_TTL_SECONDS', '1.5'],
    ['DATABASE_URL', 'postgres://x/y'],
    ['DATABASE_URL', 'mysql://host-without-db'],
    ['PUBLIC_BASE_URL', 'not a url'],
    ['PUBLIC_BASE_URL', 'ftp://x'],
    ['GRAPHQL_SANDBOX', 'maybe'],
    ['LOG_LEVEL', 'loud'],
    ['MAX_INFLIGHT', '-1'],
  ])('rejects %s=%s naming the variable', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(
      new RegExp(`^invalid configuration:[\\s\\S]*${name}:`),
    );
  });
});
