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
      loginThrottle: { maxFailuresPerUsername: 10, maxFailuresPerAddress: 50, windowSeconds: 300 },
      clientCacheMs: 1000,
      heapMode: 'balanced',
      db: { sqliteWalAutocheckpointPages: 100, sqliteSynchronous: 'full', sqliteGroupCommit: true },
    });
    expect(loadConfig({ SQLITE_GROUP_COMMIT: 'off' }).db.sqliteGroupCommit).toBe(false);
    expect(loadConfig({ SQLITE_GROUP_COMMIT: 'true' }).db.sqliteGroupCommit).toBe(true);
    expect(loadConfig({ SQLITE_SYNCHRONOUS: 'normal' }).db.sqliteSynchronous).toBe('normal');
    expect(() => loadConfig({ SQLITE_SYNCHRONOUS: 'off' })).toThrow(
      /SQLITE_SYNCHRONOUS.*must be one of full, normal/,
    );
    expect(loadConfig({ SQLITE_WAL_AUTOCHECKPOINT_PAGES: '1000' }).db.sqliteWalAutocheckpointPages).toBe(
      1000,
    );
    expect(loadConfig({ HEAP_MODE: 'compact' }).heapMode).toBe('compact');
    expect(loadConfig({ HEAP_MODE: 'v8' }).heapMode).toBe('v8');
    expect(() => loadConfig({ HEAP_MODE: 'small' })).toThrow(
      /HEAP_MODE.*must be one of balanced, compact, v8/,
    );
    expect(loadConfig({ AUTH_CLIENT_CACHE_MS: '0' }).clientCacheMs).toBe(0);
    expect(() => loadConfig({ AUTH_CLIENT_CACHE_MS: '-1' })).toThrow(ConfigError);
    expect(
      loadConfig({ AUTH_MAX_FAILURES: '0', AUTH_MAX_FAILURES_PER_ADDRESS: '7', AUTH_WINDOW_SECONDS: '30' })
        .loginThrottle,
    ).toEqual({ maxFailuresPerUsername: 0, maxFailuresPerAddress: 7, windowSeconds: 30 });
  });

  it('reads the event relay settings: no relay without AMQP_URL', () => {
    expect(loadConfig({}).events).toEqual({
      amqpUrl: null,
      exchange: 'subscriber-gateway',
      timeoutMs: 5000,
      pollIntervalMs: 200,
    });
    expect(
      loadConfig({
        AMQP_URL: 'amqp://guest:guest@127.0.0.1:5672',
        AMQP_EXCHANGE: 'events.acme',
        AMQP_TIMEOUT_MS: '1500',
        OUTBOX_POLL_INTERVAL_MS: '50',
      }).events,
    ).toEqual({
      amqpUrl: 'amqp://guest:guest@127.0.0.1:5672',
      exchange: 'events.acme',
      timeoutMs: 1500,
      pollIntervalMs: 50,
    });
    expect(() => loadConfig({ AMQP_URL: 'http://127.0.0.1:5672' })).toThrow(/AMQP_URL/);
    expect(() => loadConfig({ AMQP_EXCHANGE: 'has space' })).toThrow(/AMQP_EXCHANGE/);
    expect(() => loadConfig({ AMQP_TIMEOUT_MS: '0' })).toThrow(/AMQP_TIMEOUT_MS/);
  });

  it('reads the renewal consumer and subscription settings, refusing bad values by name', () => {
    expect(loadConfig({})).toMatchObject({
      renewals: { queue: 'subscriber-gateway.plan-renewals', prefetch: 8, testAckDelayMs: 0 },
      subscriptionPollMs: 200,
    });
    expect(
      loadConfig({
        AMQP_URL: 'amqp://u:p@broker:5672/vh',
        AMQP_EXCHANGE: 'events',
        AMQP_RENEWAL_QUEUE: 'gw.renewals',
        AMQP_RENEWAL_PREFETCH: '2',
        SUBSCRIPTION_POLL_MS: '50',
      }),
    ).toMatchObject({
      events: { amqpUrl: 'amqp://u:p@broker:5672/vh', exchange: 'events' },
      renewals: { queue: 'gw.renewals', prefetch: 2 },
      subscriptionPollMs: 50,
    });
    for (const [name, value] of [
      ['AMQP_URL', 'http://broker'],
      ['AMQP_RENEWAL_QUEUE', 'amq.renewals'],
      ['AMQP_RENEWAL_QUEUE', 'has space'],
      ['AMQP_RENEWAL_PREFETCH', '0'],
      ['SUBSCRIPTION_POLL_MS', '1'],
    ])
      expect(() => loadConfig({ [name]: value })).toThrow(
        new RegExp(`^invalid configuration:\\n  ${name}: `),
      );
  });

  it('turns the sandbox off by default in production', () => {
    expect(loadConfig({ NODE_ENV: 'production' }).graphqlSandbox).toBe(false);
    expect(loadConfig({ NODE_ENV: 'production', GRAPHQL_SANDBOX: 'true' }).graphqlSandbox).toBe(true);
  });

  it('chooses the explorer: auto by default, off in production or with GRAPHQL_SANDBOX=false', () => {
    expect(loadConfig({}).graphqlExplorer).toBe('auto');
    expect(loadConfig({ NODE_ENV: 'production' }).graphqlExplorer).toBe('off');
    expect(loadConfig({ NODE_ENV: 'production', GRAPHQL_SANDBOX: 'true' }).graphqlExplorer).toBe('auto');
    expect(loadConfig({ GRAPHQL_SANDBOX: 'false' })).toMatchObject({
      graphqlExplorer: 'off',
      graphqlSandbox: false,
    });
    for (const mode of ['auto', 'sandbox', 'graphiql'] as const) {
      expect(loadConfig({ GRAPHQL_EXPLORER: mode })).toMatchObject({
        graphqlExplorer: mode,
        graphqlSandbox: true,
      });
      expect(loadConfig({ NODE_ENV: 'production', GRAPHQL_EXPLORER: mode }).graphqlExplorer).toBe(mode);
    }
    expect(loadConfig({ GRAPHQL_EXPLORER: 'off' })).toMatchObject({
      graphqlExplorer: 'off',
      graphqlSandbox: false,
    });
    expect(loadConfig({ GRAPHQL_EXPLORER: 'off', GRAPHQL_SANDBOX: 'false' }).graphqlExplorer).toBe('off');
  });

  it('rejects an explorer that GRAPHQL_SANDBOX=false contradicts', () => {
    expect(() => loadConfig({ GRAPHQL_EXPLORER: 'graphiql', GRAPHQL_SANDBOX: 'false' })).toThrow(
      /^invalid configuration:[\s\S]*GRAPHQL_EXPLORER: graphiql contradicts GRAPHQL_SANDBOX=false/,
    );
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
    ['GRAPHQL_EXPLORER', 'apollo'],
    ['GRAPHQL_EXPLORER', 'GraphiQL'],
    ['LOG_LEVEL', 'loud'],
    ['MAX_INFLIGHT', '-1'],
    ['AUTH_MAX_FAILURES', '-1'],
    ['AUTH_MAX_FAILURES_PER_ADDRESS', 'many'],
    ['AUTH_WINDOW_SECONDS', '0'],
    ['SQLITE_WAL_AUTOCHECKPOINT_PAGES', '0'],
    ['SQLITE_SYNCHRONOUS', 'NORMAL'],
    ['SQLITE_GROUP_COMMIT', 'sometimes'],
  ])('rejects %s=%s naming the variable', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(
      new RegExp(`^invalid configuration:[\\s\\S]*${name}:`),
    );
  });
});
