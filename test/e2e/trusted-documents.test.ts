import { createHash } from 'node:crypto';
import { ApolloClient, HttpLink, InMemoryCache, ServerError, gql } from '@apollo/client';
import { PersistedQueryLink } from '@apollo/client/link/persisted-queries';
import { addTypenameToDocument } from '@apollo/client/utilities';
import { OperationDefinitionNode, print } from 'graphql';
import { Permission } from '../../src/auth/permissions';
import { Dataset } from '../../src/dataset/dataset.schema';
import { DatasetError, importDataset } from '../../src/dataset/import';
import { PersistedQueryManifest } from '../../src/dataset/trusted-documents';
import { TestApp, TestResponse, startTestApp } from '../helpers/app';
import { baseDataset, basic } from '../helpers/fixtures';
import { wsClient } from '../helpers/graphql-ws';
import { waitFor } from '../helpers/wait';

// Trusted documents (docs/graphql.md "Trusted documents"): per-client manifests loaded by the
// dataset import, Apollo's APQ wire, and the refusal for clients flagged trustedDocumentsOnly.

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

const INTROSPECT = 'query Introspect($token: String!) { introspectToken(token: $token) { active } }';
const ISSUE =
  'mutation Issue($msisdn: MSISDN!) { issueToken(clientId: $msisdn, grantType: CLIENT_CREDENTIALS) { token { accessToken } userErrors { code } } }';
const PORTAL_CHECK =
  'query PortalCheck($token: String!) { introspectToken(token: $token) { active clientId } }';
const UNLISTED_ISSUE =
  'mutation Sneaky { issueToken(clientId: "353871234567", grantType: CLIENT_CREDENTIALS) { token { accessToken } } }';
const REPLACEMENT = 'query Replacement { introspectToken(token: "x") { active } }';
const BALANCE_WATCH =
  'subscription BalanceWatch($msisdn: MSISDN!) { balanceChanged(msisdn: $msisdn) { balance } }';

/** The Apollo Client document of the last test, and its manifest body (with `__typename`, as the client sends it). */
const CLIENT_QUERY = gql`
  query ClientIntrospect($token: String!) {
    introspectToken(token: $token) {
      active
    }
  }
`;
const CLIENT_BODY = print(addTypenameToDocument(CLIENT_QUERY));

function manifest(
  ...ops: Array<[name: string, type: 'query' | 'mutation' | 'subscription', body: string]>
): PersistedQueryManifest {
  return {
    format: 'apollo-persisted-query-manifest',
    version: 1,
    operations: ops.map(([name, type, body]) => ({ id: sha256(body), name, type, body })),
  };
}

const STRICT_PASSWORD = 'strict-password';
const STRICT_MANIFEST = manifest(
  ['Introspect', 'query', INTROSPECT],
  ['Issue', 'mutation', ISSUE],
  ['ClientIntrospect', 'query', CLIENT_BODY],
  ['BalanceWatch', 'subscription', BALANCE_WATCH],
);

function dataset(): Dataset {
  const ds = baseDataset();
  ds.clients!.push({
    tenant: 'acme',
    username: 'strict',
    password: STRICT_PASSWORD,
    permissions: [Permission.TOKEN_ISSUE, Permission.TOKEN_INTROSPECT],
    trustedDocuments: STRICT_MANIFEST,
    trustedDocumentsOnly: true,
  });
  const portal = ds.clients!.find((c) => c.username === 'portal')!;
  portal.trustedDocuments = manifest(['PortalCheck', 'query', PORTAL_CHECK]);
  return ds;
}

const STRICT = basic('strict', STRICT_PASSWORD);
/** The parts of a GraphQL response body these tests read. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a response body, read by path
type Json = { data: any; errors?: Array<{ message: string; extensions: { code: string } }> };
/** The code of a response's first error. */
const codeOf = (res: TestResponse) => (res.json() as Json).errors?.[0].extensions.code;
const byHash = (body: string, variables?: Record<string, unknown>) => ({
  variables,
  extensions: { persistedQuery: { version: 1, sha256Hash: sha256(body) } },
});

describe('trusted documents on /graphql', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ dataset: dataset(), env: { AUTH_CLIENT_CACHE_MS: '200' } });
  });
  afterAll(() => app?.close());

  const post = (auth: string | undefined, body: unknown): Promise<TestResponse> =>
    app.request('POST', '/graphql', { auth, body });
  const tokens = async () => Number((await app.tdb.db('tokens').count({ n: '*' }).first())!.n);
  const refusedWith = (res: TestResponse, code: string) => {
    expect(res.status).toBe(400);
    const errors = res.json().errors as Array<{ message: string; extensions: { code: string } }>;
    expect(errors).toHaveLength(1);
    expect(errors[0].extensions).toEqual({ code });
    expect(errors[0].message).toMatch(/trusted documents/);
    expect(res.json().data).toBeUndefined();
  };

  it("runs a document sent by its id from the client's own manifest (flagged or not)", async () => {
    const strict = await post(STRICT, byHash(INTROSPECT, { token: 'no-such-token' }));
    expect(strict.status).toBe(200);
    expect(strict.json()).toEqual({ data: { introspectToken: { active: false } } });
    const portal = await post(basic('portal'), byHash(PORTAL_CHECK, { token: 'no-such-token' }));
    expect(portal.status).toBe(200);
    expect(portal.json()).toEqual({ data: { introspectToken: { active: false, clientId: null } } });
  });

  it('runs a listed mutation by id, and the same document sent in full', async () => {
    const before = await tokens();
    const byId = await post(STRICT, byHash(ISSUE, { msisdn: '353871234567' }));
    expect(byId.status).toBe(200);
    expect((byId.json() as Json).data.issueToken.userErrors).toEqual([]);
    const inFull = await post(STRICT, { query: ISSUE, variables: { msisdn: '353871234567' } });
    expect(inFull.status).toBe(200);
    expect((inFull.json() as Json).data.issueToken.token.accessToken).toEqual(expect.any(String));
    expect(await tokens()).toBe(before + 2);
  });

  it('refuses a flagged client every document not in its list, before anything runs', async () => {
    const before = await tokens();
    refusedWith(await post(STRICT, { query: UNLISTED_ISSUE }), 'QUERY_NOT_IN_SAFELIST');
    expect(await tokens()).toBe(before);
    // The listed text with one more space is another document.
    refusedWith(
      await post(STRICT, { query: `${INTROSPECT} `, variables: { token: 'x' } }),
      'QUERY_NOT_IN_SAFELIST',
    );
    // Introspection is no exception.
    refusedWith(
      await post(STRICT, { query: '{ __schema { queryType { name } } }' }),
      'QUERY_NOT_IN_SAFELIST',
    );
    // An unlisted document with its own (correct) APQ hash: not registered, refused.
    refusedWith(
      await post(STRICT, { query: UNLISTED_ISSUE, ...byHash(UNLISTED_ISSUE) }),
      'QUERY_NOT_IN_SAFELIST',
    );
    expect(await tokens()).toBe(before);
    // An id that is not in its list (here another client's).
    refusedWith(await post(STRICT, byHash(PORTAL_CHECK, { token: 'x' })), 'PERSISTED_QUERY_NOT_IN_LIST');
    refusedWith(await post(STRICT, byHash('{ __typename }')), 'PERSISTED_QUERY_NOT_IN_LIST');
  });

  it("leaves to Apollo's own refusals what Apollo refuses anyway, and nothing runs", async () => {
    const before = await tokens();
    const batch = await post(STRICT, [{ query: UNLISTED_ISSUE }]);
    expect(batch.status).toBe(400);
    const notAString = await post(STRICT, { query: 42, ...byHash(ISSUE, { msisdn: '353871234567' }) });
    expect(notAString.status).toBe(400);
    const version = await post(STRICT, {
      variables: { msisdn: '353871234567' },
      extensions: { persistedQuery: { version: 2, sha256Hash: sha256(ISSUE) } },
    });
    expect(version.status).toBe(400);
    expect(codeOf(version)).toBe('BAD_REQUEST');
    expect(await tokens()).toBe(before);
  });

  it('applies the list to GET requests too', async () => {
    const get = (params: Record<string, string>) =>
      app.request('GET', `/graphql?${new URLSearchParams(params).toString()}`, {
        auth: STRICT,
        headers: { 'apollo-require-preflight': 'true' },
      });
    const listed = await get({
      variables: JSON.stringify({ token: 'x' }),
      extensions: JSON.stringify(byHash(INTROSPECT).extensions),
    });
    expect(listed.status).toBe(200);
    expect(listed.json()).toEqual({ data: { introspectToken: { active: false } } });
    refusedWith(await get({ query: '{ __typename }' }), 'QUERY_NOT_IN_SAFELIST');
    refusedWith(
      await get({ extensions: JSON.stringify(byHash('{ __typename }').extensions) }),
      'PERSISTED_QUERY_NOT_IN_LIST',
    );
  });

  it("keeps Apollo's automatic persisted queries for clients not flagged", async () => {
    const doc = 'query Apq { introspectToken(token: "apq") { active } }';
    const unknown = await post(basic('portal'), byHash(doc));
    expect(unknown.status).toBe(200);
    expect(codeOf(unknown)).toBe('PERSISTED_QUERY_NOT_FOUND');
    const registered = await post(basic('portal'), { query: doc, ...byHash(doc) });
    expect(registered.json()).toEqual({ data: { introspectToken: { active: false } } });
    const again = await post(basic('portal'), byHash(doc));
    expect(again.json()).toEqual({ data: { introspectToken: { active: false } } });
    // Documents sent in full run as ever, listed or not.
    const full = await post(basic('portal'), { query: '{ __typename }' });
    expect(full.json()).toEqual({ data: { __typename: 'Query' } });
  });

  it("does not let a client use another client's manifest id", async () => {
    // strict's Introspect ran by id above; it was not registered for everyone.
    for (const username of ['portal', 'admin']) {
      const res = await post(basic(username), byHash(INTROSPECT, { token: 'x' }));
      expect(res.status).toBe(200);
      expect(codeOf(res)).toBe('PERSISTED_QUERY_NOT_FOUND');
      expect(res.json().data).toBeUndefined();
    }
  });

  it('leaves requests without an API client to the credentials check', async () => {
    const none = await post(undefined, { query: INTROSPECT, variables: { token: 'x' } });
    expect(none.status).toBe(401);
    const bad = await post(basic('strict', 'wrong-password'), { query: UNLISTED_ISSUE });
    expect(bad.status).toBe(401);
    // An id without credentials is not looked up in any manifest: Apollo's APQ answers it.
    const id = await post(undefined, byHash(INTROSPECT, { token: 'x' }));
    expect(codeOf(id)).toBe('PERSISTED_QUERY_NOT_FOUND');
  });

  it('applies the list to subscriptions over WebSocket (graphql-ws)', async () => {
    const ws = wsClient(app, STRICT);
    /** The first errors a subscribe message gets (or 'completed' when it ended without any). */
    const firstError = (payload: { query: string; extensions?: Record<string, unknown> }) =>
      new Promise<string>((resolve) => {
        ws.subscribe(
          { ...payload, variables: { msisdn: '353871234567' } },
          {
            // A refusal by a resolver (the permission check) arrives as a result with errors.
            next: (r) => {
              if (r.errors) resolve(JSON.stringify(r.errors));
            },
            error: (e) => resolve(JSON.stringify(e)),
            complete: () => resolve('completed'),
          },
        );
      });
    try {
      const unlisted = await firstError({
        query: 'subscription { balanceChanged(msisdn: "353871234567") { balance } }',
      });
      expect(unlisted).toContain('QUERY_NOT_IN_SAFELIST');
      const unknownId = await firstError({
        query: '',
        extensions: { persistedQuery: { version: 1, sha256Hash: sha256('subscription { x }') } },
      });
      expect(unknownId).toContain('PERSISTED_QUERY_NOT_IN_LIST');
      // The listed subscription by its id runs: it meets the permission check of its field (the
      // strict client has no balance permission), not the list's refusal.
      const listed = await firstError({
        query: '',
        extensions: { persistedQuery: { version: 1, sha256Hash: sha256(BALANCE_WATCH) } },
      });
      expect(listed).not.toContain('NOT_IN');
      expect(listed).toContain('FORBIDDEN');
    } finally {
      await ws.dispose();
    }
  });

  it('works with Apollo Client and its persisted-queries link (ids from the manifest)', async () => {
    const ids = new Map(STRICT_MANIFEST.operations.map((o) => [o.name, o.id]));
    const client = new ApolloClient({
      cache: new InMemoryCache(),
      link: new PersistedQueryLink({
        generateHash: (document) => {
          const op = document.definitions.find(
            (d) => d.kind === 'OperationDefinition',
          ) as OperationDefinitionNode;
          return ids.get(op.name!.value) ?? sha256(print(document));
        },
      }).concat(new HttpLink({ uri: `${app.url}/graphql`, headers: { authorization: STRICT } })),
    });
    const { data } = await client.query({ query: CLIENT_QUERY, variables: { token: 'x' } });
    expect(data).toEqual({ introspectToken: { __typename: 'TokenIntrospection', active: false } });
    // A document outside the manifest: refused by id (HTTP 400, which Apollo Client reports as a
    // ServerError: the refusal is `application/json`), and the link does not resend it in full.
    const err = await client
      .query({ query: gql('query Other { __typename }'), fetchPolicy: 'network-only' })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(ServerError.is(err)).toBe(true);
    const refused = err as ServerError;
    expect(refused.statusCode).toBe(400);
    expect(JSON.parse(refused.bodyText).errors[0].extensions.code).toBe('PERSISTED_QUERY_NOT_IN_LIST');
    client.stop();
  });

  describe('import', () => {
    const listOf = async (username: string) =>
      (
        await app.tdb
          .db('trusted_documents as d')
          .join('api_clients as c', 'c.id', 'd.api_client_id')
          .where('c.username', username)
          .select('d.document_id', 'd.name', 'd.type', 'd.body')
          .orderBy('d.document_id')
      ).map((r: Record<string, unknown>) => ({ ...r }));

    it('refuses a manifest whose id is not the SHA-256 of its body, and writes nothing', async () => {
      const before = await listOf('strict');
      const bad = manifest(['Replacement', 'query', REPLACEMENT]);
      bad.operations[0].id = sha256('something else');
      const ds: Dataset = {
        tenants: [{ name: 'newcomer' }],
        clients: [
          {
            tenant: 'acme',
            username: 'strict',
            password: STRICT_PASSWORD,
            permissions: [Permission.TOKEN_INTROSPECT],
            trustedDocuments: bad,
            trustedDocumentsOnly: false,
          },
        ],
      };
      const err = await importDataset(app.tdb.db, ds, app.clock).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(DatasetError);
      expect((err as DatasetError).path).toBe('$.clients[0].trustedDocuments.operations[0].id');
      expect((err as DatasetError).message).toMatch(/SHA-256/);
      expect(await listOf('strict')).toEqual(before);
      expect(await app.tdb.db('tenants').where({ name: 'newcomer' }).first()).toBeUndefined();
      const row = await app.tdb.db('api_clients').where({ username: 'strict' }).first();
      expect(Boolean(row.trusted_documents_only)).toBe(true);
    });

    it('refuses a manifest naming one id twice', async () => {
      const twice = manifest(['Replacement', 'query', REPLACEMENT], ['Again', 'query', REPLACEMENT]);
      const ds: Dataset = { clients: [{ ...dataset().clients!.at(-1)!, trustedDocuments: twice }] };
      await expect(importDataset(app.tdb.db, ds, app.clock)).rejects.toThrow(
        '$.clients[0].trustedDocuments.operations[1].id: duplicates an earlier operation of the manifest',
      );
    });

    it('refuses a body that is not a GraphQL document', async () => {
      const ds: Dataset = {
        clients: [{ ...dataset().clients!.at(-1)!, trustedDocuments: manifest(['X', 'query', '{ x ']) }],
      };
      await expect(importDataset(app.tdb.db, ds, app.clock)).rejects.toThrow(
        '$.clients[0].trustedDocuments.operations[0].body: is not a GraphQL document',
      );
    });

    it("replaces a client's list on re-import, seen by the running gateway within the client cache bound", async () => {
      const strict = dataset().clients!.at(-1)!;
      const same = await importDataset(app.tdb.db, { clients: [strict] }, app.clock);
      expect(same.clients).toEqual({ created: 0, updated: 0, unchanged: 1 });

      const replaced = { ...strict, trustedDocuments: manifest(['Replacement', 'query', REPLACEMENT]) };
      const summary = await importDataset(app.tdb.db, { clients: [replaced] }, app.clock);
      expect(summary.clients).toEqual({ created: 0, updated: 1, unchanged: 0 });
      expect(await listOf('strict')).toEqual([
        { document_id: sha256(REPLACEMENT), name: 'Replacement', type: 'query', body: REPLACEMENT },
      ]);
      await waitFor(async () => (await post(STRICT, byHash(REPLACEMENT))).status === 200, {
        what: 'the new list within AUTH_CLIENT_CACHE_MS (200 ms)',
        timeoutMs: 1500,
        intervalMs: 25,
      });
      expect((await post(STRICT, byHash(REPLACEMENT))).json()).toEqual({
        data: { introspectToken: { active: false } },
      });
      refusedWith(await post(STRICT, byHash(INTROSPECT, { token: 'x' })), 'PERSISTED_QUERY_NOT_IN_LIST');

      // Unflagged and without a list: everything runs again, and the old ids are unknown.
      await importDataset(
        app.tdb.db,
        { clients: [{ ...strict, trustedDocuments: null, trustedDocumentsOnly: false }] },
        app.clock,
      );
      expect(await listOf('strict')).toEqual([]);
      await waitFor(async () => (await post(STRICT, { query: '{ __typename }' })).status === 200, {
        what: 'the flag cleared within AUTH_CLIENT_CACHE_MS (200 ms)',
        timeoutMs: 1500,
        intervalMs: 25,
      });
      const old = await post(STRICT, byHash(REPLACEMENT));
      expect(codeOf(old)).toBe('PERSISTED_QUERY_NOT_FOUND');

      // Back as it was, for the tests that may follow.
      await importDataset(app.tdb.db, { clients: [strict] }, app.clock);
    });
  });
});
