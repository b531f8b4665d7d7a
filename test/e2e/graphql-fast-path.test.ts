import { getIntrospectionQuery } from 'graphql';
import knexFactory from 'knex';
import { FastPathOutcome, fastPathCounts } from '../../src/graphql/fast-path';
import { TestApp, TestResponse, startTestApp } from '../helpers/app';
import { withFailingWrites } from '../helpers/faults';
import { basic } from '../helpers/fixtures';

/**
 * The `/graphql` fast path (src/graphql/fast-path.ts, docs/graphql.md "Fast path") answers
 * exactly what Apollo answers: two gateways over identically seeded databases, one with the fast
 * path (the default) and one with GRAPHQL_FAST_PATH=false, get the same requests in the same
 * order; status, the headers a client reads and the body bytes must be equal (access tokens,
 * random, are masked). Each step also says whether the fast path must have answered it or left
 * it to Apollo.
 */

interface Step {
  name: string;
  /** The fast path answers it (else it declines and Apollo answers, on the fast app too). */
  fast: boolean;
  method?: string;
  as?: string;
  auth?: string;
  headers?: Record<string, string>;
  /** The JSON body, or the body built from the app's own generated values. */
  body?: unknown | ((generated: Generated) => unknown);
  raw?: string;
  /** Query string of a GET. */
  search?: string;
}

const HEADERS = ['content-type', 'cache-control', 'retry-after', 'www-authenticate', 'allow'];

const INTROSPECT = 'query Introspect($t: String!) { introspectToken(token: $t) { active clientId expiry } }';
const ISSUE =
  'mutation { issueToken(grantType: CLIENT_CREDENTIALS, clientId: "+353871234567") { token { accessToken tokenType expiresIn } userErrors { code } } }';
const ERRORS = 'userErrors { __typename code field message }';
const CREATE_GROUP = `mutation Create($n: String!, $k: String) { createGroup(idempotencyKey: $k, input: { ownerId: "+353871234567", name: $n }) { group { id name } ${ERRORS} } }`;
const GROUPS =
  'query Groups($first: Int) { groups(first: $first) { edges { cursor node { id name } } pageInfo { hasNextPage endCursor } } }';
const TWO_OPS = `${INTROSPECT}\nquery Typename { __typename }`;

/**
 * Generated values of one app (node ids, cursors, access tokens) by placeholder, in order of
 * appearance: both apps create the same things in the same order, so the same placeholder names
 * the same thing on both.
 */
class Generated {
  private readonly byValue = new Map<string, string>();
  readonly byPlaceholder = new Map<string, string>();

  /** The body with every generated value replaced by its placeholder. */
  mask(text: string): string {
    for (const m of text.matchAll(/"(id|cursor|endCursor|startCursor|accessToken)":"([^"]+)"/g)) {
      if (this.byValue.has(m[2])) continue;
      const placeholder = m[1] === 'accessToken' ? '<token>' : `<id ${this.byValue.size + 1}>`;
      this.byValue.set(m[2], placeholder);
      this.byPlaceholder.set(placeholder, m[2]);
    }
    let out = text;
    for (const [value, placeholder] of this.byValue) out = out.split(`"${value}"`).join(`"${placeholder}"`);
    return out;
  }

  /** The app's own value of a placeholder. */
  value(placeholder: string): string {
    const v = this.byPlaceholder.get(placeholder);
    if (!v) throw new Error(`no generated value ${placeholder}`);
    return v;
  }
}

describe('/graphql fast path = Apollo (differential)', () => {
  let fast: TestApp;
  let slow: TestApp;
  const env = { SQLITE_BUSY_TIMEOUT_MS: '20', DB_STATEMENT_TIMEOUT_MS: '2000' };
  beforeAll(async () => {
    fast = await startTestApp({
      env: { ...env, GRAPHQL_FAST_PATH: 'true' },
      sandboxAuthorization: basic('admin'),
    });
    slow = await startTestApp({
      env: { ...env, GRAPHQL_FAST_PATH: 'false' },
      sandboxAuthorization: basic('admin'),
    });
  });
  afterAll(async () => {
    await fast?.close();
    await slow?.close();
  });

  const generated = new Map<TestApp, Generated>();
  const generatedOf = (app: TestApp) => {
    let g = generated.get(app);
    if (!g) generated.set(app, (g = new Generated()));
    return g;
  };

  const send = (app: TestApp, s: Step): Promise<TestResponse> =>
    app.request(s.method ?? 'POST', `/graphql${s.search ?? ''}`, {
      as: s.as,
      auth: s.auth,
      headers: s.headers,
      body: typeof s.body === 'function' ? (s.body as (g: Generated) => unknown)(generatedOf(app)) : s.body,
      raw: s.raw,
    });

  const answered = () => fastPathCounts().answered;

  /** Sends `s` to both apps; asserts equal answers and which path the fast app took. */
  async function same(s: Step): Promise<TestResponse> {
    const before = fastPathCounts();
    const a = await send(fast, s);
    const after = fastPathCounts();
    const b = await send(slow, s);
    const tookFast = after.answered - before.answered;
    expect({ step: s.name, fast: tookFast === 1 }).toEqual({ step: s.name, fast: s.fast });
    const view = (app: TestApp, r: TestResponse) => ({
      step: s.name,
      status: r.status,
      headers: Object.fromEntries(HEADERS.map((h) => [h, r.headers.get(h)])),
      body: generatedOf(app).mask(r.text),
    });
    expect(view(fast, a)).toEqual(view(slow, b));
    // The slow app never reaches the fast path.
    expect(answered()).toBe(after.answered);
    return a;
  }

  const gql = (
    name: string,
    fastPath: boolean,
    query: string,
    opts: Partial<Step> & { variables?: unknown; operationName?: string } = {},
  ) => {
    const { variables, operationName, ...rest } = opts;
    const body =
      typeof variables === 'function'
        ? (g: Generated) => ({ query, variables: (variables as (g: Generated) => unknown)(g), operationName })
        : { query, variables, operationName };
    return same({ name, fast: fastPath, as: 'admin', body, ...rest });
  };

  it('answers queries, mutations, connections and node lookups as Apollo does', async () => {
    const issued = await gql('issue a token', true, ISSUE, { as: 'portal' });
    expect(issued.status).toBe(200);
    // The same token on both sides is not possible (random); each app introspects a fixed string.
    await gql('introspect unknown token', true, INTROSPECT, { as: 'portal', variables: { t: 'nope' } });
    await gql('introspect again (cached document)', true, INTROSPECT, {
      as: 'portal',
      variables: { t: 'x' },
    });
    await gql('operationName picks one of two', true, TWO_OPS, { operationName: 'Typename' });
    await gql('the other operation of the same text', true, TWO_OPS, {
      as: 'portal',
      operationName: 'Introspect',
      variables: { t: 'y' },
    });
    const created = await gql('create group with idempotency key', true, CREATE_GROUP, {
      variables: { n: 'family', k: 'key-1' },
    });
    const groupId = generatedOf(fast)
      .mask(created.text)
      .match(/"id":"(<id \d+>)"/)![1];
    await gql('replay of the idempotency key', true, CREATE_GROUP, {
      variables: { n: 'family', k: 'key-1' },
    });
    await gql('key reused with other arguments', true, CREATE_GROUP, {
      variables: { n: 'other', k: 'key-1' },
    });
    await gql('second group', true, CREATE_GROUP, { variables: { n: 'friends' } });
    await gql('connection first: 1', true, GROUPS, { variables: { first: 1 } });
    await gql('connection without first', true, GROUPS);
    await gql(
      'node lookup',
      true,
      'query($id: ID!) { node(id: $id) { __typename id ... on Group { name } } }',
      {
        variables: (g: Generated) => ({ id: g.value(groupId) }),
      },
    );
    await gql('nodes lookup with an unknown id', true, 'query($ids: [ID!]!) { nodes(ids: $ids) { id } }', {
      variables: (g: Generated) => ({ ids: [g.value(groupId), 'R3JvdXA6OTk5OTk='] }),
    });
    await gql('introspection without credentials (sandbox)', true, '{ __schema { queryType { name } } }', {
      as: undefined,
    });
    await gql('full introspection query', true, getIntrospectionQuery(), { as: undefined });
    await gql(
      'a fragment and aliases',
      true,
      'query { a: __typename ...F } fragment F on Query { b: __typename }',
    );
    await gql('accept: graphql-response+json', true, '{ __typename }', {
      headers: { accept: 'application/graphql-response+json, application/json;q=0.9' },
    });
    await gql('accept: */*', true, '{ __typename }', { headers: { accept: '*/*' } });
    await gql('extensions without a persisted query', true, '{ __typename }', {
      body: { query: '{ __typename }', extensions: { clientLibrary: { name: 'x' } } },
    });
  });

  it('answers errors raised while executing as Apollo does', async () => {
    await gql('a refused permission (FORBIDDEN in a resolver)', true, INTROSPECT, {
      as: 'issuer',
      variables: { t: 'x' },
    });
    await gql(
      'a domain error (unknown subscriber)',
      true,
      '{ subscriber(msisdn: "+353870000000") { msisdn } }',
    );
    await gql('a malformed idempotency key (userErrors)', true, CREATE_GROUP, {
      variables: { n: 'x', k: 'bad key\u0001' },
    });
    await withFailingWrites(fast.tdb.db, fast.tdb.dialect, 'tokens', () =>
      withFailingWrites(slow.tdb.db, slow.tdb.dialect, 'tokens', async () => {
        // An unexpected database error inside a resolver: masked as `internal error`.
        await gql(
          'an unexpected error in a resolver',
          true,
          'mutation($t: String!) { revokeToken(token: $t) { revoked } }',
          {
            as: 'portal',
            variables: { t: 'whatever' },
          },
        );
      }),
    );
  });

  it('leaves every refusal before execution to Apollo, with the same answer', async () => {
    await gql('missing credentials', false, INTROSPECT, { as: undefined, variables: { t: 'x' } });
    await gql('wrong password', false, INTROSPECT, {
      as: undefined,
      auth: basic('portal', 'nope'),
      variables: { t: 'x' },
    });
    await gql('tenant header of another tenant', false, INTROSPECT, {
      as: 'portal',
      headers: { tenant: 'rival' },
      variables: { t: 'x' },
    });
    await gql('bearer token unknown', false, '{ me { msisdn } }', { as: undefined, auth: 'Bearer nope' });
    await gql('page size over the bound', false, GROUPS, { variables: { first: 100000 } });
    await gql('page size zero', false, GROUPS, { variables: { first: 0 } });
    await gql(
      'cost over GRAPHQL_MAX_COST',
      false,
      '{ locations(first: 500) { edges { node { name infos(first: 500) { edges { node { name value } } } } } } }',
    );
    await gql('variable of the wrong type', false, GROUPS, { variables: { first: 'ten' } });
    await gql('missing required variable', false, INTROSPECT, { as: 'portal' });
    await gql(
      'malformed scalar in a variable',
      false,
      'query($m: MSISDN!) { subscriber(msisdn: $m) { msisdn } }',
      {
        variables: { m: 'not-a-number' },
      },
    );
    await gql('unknown operationName', false, TWO_OPS, { operationName: 'Nope' });
    await gql('several operations without operationName', false, TWO_OPS);
    await gql(
      'subscription over HTTP',
      false,
      'subscription { balanceChanged(msisdn: "+353871234567") { msisdn } }',
    );
    await gql('parse error', false, '{ nope(');
    await gql('validation error', false, '{ nope }');
    await gql(
      'too deep',
      false,
      `{ ${'node(id: "x") { ... on Group { owner { '.repeat(8)}id${' } } }'.repeat(8)} }`,
    );
    await same({ name: 'empty query', fast: false, as: 'admin', body: { query: '' } });
    await same({ name: 'query not a string', fast: false, as: 'admin', body: { query: 5 } });
    await same({
      name: 'variables as a string',
      fast: false,
      as: 'admin',
      body: { query: '{ __typename }', variables: '{}' },
    });
    await same({ name: 'batched array', fast: false, as: 'admin', body: [{ query: '{ __typename }' }] });
    await same({
      name: 'APQ registration',
      fast: false,
      as: 'admin',
      body: {
        query: '{ __typename }',
        extensions: {
          persistedQuery: {
            version: 1,
            sha256Hash: 'ecf4edb46db40b5132295c0291d62fb65d6759a9eedfa4d5d612dd5ec54a6b38',
          },
        },
      },
    });
    await same({
      name: 'APQ hash only',
      fast: false,
      as: 'admin',
      body: { extensions: { persistedQuery: { version: 1, sha256Hash: 'ab'.repeat(32) } } },
    });
    await same({ name: 'GET', fast: false, method: 'GET', as: 'admin', search: '?query=%7B__typename%7D' });
    await same({
      name: 'text/plain (CSRF)',
      fast: false,
      as: 'admin',
      raw: '{"query":"{ __typename }"}',
      headers: { 'content-type': 'text/plain' },
    });
    await same({
      name: 'accept without JSON',
      fast: false,
      as: 'admin',
      body: { query: '{ __typename }' },
      headers: { accept: 'text/csv' },
    });
  });

  const sqliteOnly = process.env.TEST_DATABASE_URL?.startsWith('mysql://') ? it.skip : it;
  sqliteOnly('answers a database outage during execution as Apollo does (503, retry-after)', async () => {
    // Warm the client cache so that authentication does not touch the database.
    await gql('warm-up', true, '{ __typename }');
    // Another connection holds the write lock (SQLITE_BUSY_TIMEOUT_MS is 20 ms): a real outage.
    const lock = async (app: TestApp) => {
      const other = knexFactory({
        client: 'better-sqlite3',
        connection: { filename: app.tdb.url.replace(/^sqlite:/, '') },
        useNullAsDefault: true,
      });
      const trx = await other.transaction();
      await trx.raw('CREATE TABLE fault_lock (x INTEGER)');
      return async () => {
        await trx.rollback();
        await other.destroy();
      };
    };
    const unlock = [await lock(fast), await lock(slow)];
    try {
      const r = await gql('a write while the database is locked', true, CREATE_GROUP, {
        variables: { n: 'locked' },
      });
      expect(r.status).toBe(503);
      expect(r.headers.get('retry-after')).toBe('1');
    } finally {
      for (const u of unlock) await u();
    }
  });

  it('answers a deadline passed during execution as Apollo does (504 TIMEOUT)', async () => {
    const env1 = { GRAPHQL_TIMEOUT_MS: '1' };
    const a = await startTestApp({ env: { ...env1, GRAPHQL_FAST_PATH: 'true' } });
    const b = await startTestApp({ env: { ...env1, GRAPHQL_FAST_PATH: 'false' } });
    try {
      const query = getIntrospectionQuery();
      for (let i = 0; i < 3; i++) {
        const ra = await a.request('POST', '/graphql', { as: 'admin', body: { query } });
        const rb = await b.request('POST', '/graphql', { as: 'admin', body: { query } });
        for (const r of [ra, rb]) {
          expect(r.status).toBe(504);
          expect(r.headers.get('content-type')).toBe('application/json; charset=utf-8');
        }
        // `data: null` or none: the deadline passed while executing or already while authenticating.
        const body = (r: TestResponse) => {
          const { data: _data, ...rest } = r.json();
          return rest;
        };
        expect(body(ra)).toEqual(body(rb));
      }
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('counts every outcome', () => {
    const counts = fastPathCounts();
    const outcomes: FastPathOutcome[] = [
      'answered',
      'fallback_body',
      'fallback_document',
      'fallback_refused',
      'fallback_subscription',
      'fallback_accept',
    ];
    for (const o of outcomes) expect(counts[o]).toBeGreaterThan(0);
  });

  it('exposes the outcomes at /metrics as graphql_fast_path_total', async () => {
    const text = (await fast.request('GET', '/metrics')).text;
    const counts = fastPathCounts();
    for (const [outcome, n] of Object.entries(counts))
      expect(text).toContain(`graphql_fast_path_total{outcome="${outcome}"} ${n}\n`);
  });
});
