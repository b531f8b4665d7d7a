import { TestApp, startTestApp } from '../helpers/app';
import { basic } from '../helpers/fixtures';
import { groupCommitCounts, itOnSqlite } from '../helpers/group-commit';
import { TokenTx } from '../../src/modules/cdrs/cdr.layouts';
import { hashToken } from '../../src/modules/tokens/token.service';

describe('POST /token and /token/introspect (CONTRACT §3) over HTTP', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(() => app.close());

  const issue = (
    body: unknown,
    opts: { as?: string; json?: boolean; headers?: Record<string, string> } = {},
  ) => app.request('POST', '/token', { as: 'portal', json: true, body, ...opts });
  const introspect = (token: unknown, opts: { as?: string; json?: boolean } = {}) =>
    app.request('POST', '/token/introspect', { as: 'portal', json: true, body: { token }, ...opts });
  const newToken = async (as = 'portal') =>
    (await issue({ grant_type: 'client_credentials', client_id: '+353871234567' }, { as })).json()
      .access_token as string;

  it('issues 201 with the published body in JSON, no-store headers and a request id', async () => {
    const res = await issue({ grant_type: 'client_credentials', client_id: '+353871234567' });
    expect(res.status).toBe(201);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('pragma')).toBe('no-cache');
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const body = res.json();
    expect(Object.keys(body)).toEqual(['access_token', 'token_type', 'expires_in']);
    expect(body.access_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(body.token_type).toBe('bearer');
    expect(body.expires_in).toBe(3600);
  });

  it('answers XML without accept (and with application/xml, text/xml, */*)', async () => {
    for (const accept of [undefined, 'application/xml', 'text/xml', '*/*', 'text/html']) {
      const res = await app.request('POST', '/token', {
        as: 'portal',
        headers: accept ? { accept } : {},
        body: { grant_type: 'client_credentials', client_id: '353871234567' },
      });
      expect(res.status).toBe(201);
      expect(res.headers.get('content-type')).toBe('application/xml; charset=utf-8');
      const x = res.xml();
      expect(x.token_type).toBe('bearer');
      expect(x.expires_in).toBe('3600');
      expect(String(x.access_token)).toMatch(/^[A-Za-z0-9_-]{43}$/);
    }
  });

  it('accepts application/JSON in any case on both content-type and accept', async () => {
    const res = await app.request('POST', '/token', {
      as: 'portal',
      headers: { 'content-type': 'Application/JSON; charset=UTF-8', accept: 'application/JSON' },
      raw: JSON.stringify({ grant_type: 'client_credentials', client_id: '353871234567' }),
    });
    expect(res.status).toBe(201);
    expect(res.json().token_type).toBe('bearer');
  });

  it('reads a body without content-type as JSON', async () => {
    const res = await app.request('POST', '/token', {
      as: 'portal',
      json: true,
      raw: Buffer.from(JSON.stringify({ grant_type: 'client_credentials', client_id: '353871234567' })),
    });
    expect(res.status).toBe(201);
  });

  it.each([
    [{}, '[client_id cannot be null, grant_type cannot be null]'],
    [{ grant_type: null, client_id: null }, '[client_id cannot be null, grant_type cannot be null]'],
    [{ grant_type: '', client_id: '' }, '[client_id cannot be null, grant_type cannot be null]'],
    [{ grant_type: 'client_credentials' }, '[client_id cannot be null]'],
    [{ grant_type: 'client_credentials', client_id: '' }, '[client_id cannot be null]'],
    [{ client_id: '353871234567' }, '[grant_type cannot be null]'],
    [{ client_id: '353871234567', grant_type: null }, '[grant_type cannot be null]'],
  ])('400 invalid_request for %j with the published description', async (body, description) => {
    for (const json of [true, false]) {
      const res = await issue(body, { json });
      expect(res.status).toBe(400);
      const b = json ? res.json() : res.xml();
      expect(b).toEqual({ error: 'invalid_request', error_description: description });
    }
  });

  it('400 unsupported_grant_type for another grant type', async () => {
    for (const grant of ['password', 'authorization_code', 'CLIENT_CREDENTIALS']) {
      const res = await issue({ grant_type: grant, client_id: '353871234567' });
      expect(res.status).toBe(400);
      expect(res.json().error).toBe('unsupported_grant_type');
    }
  });

  it('400 invalid_request for a client_id that is not an MSISDN', async () => {
    for (const clientId of ['1234', 'abc12345', '+35387123456789012', '353 871234567']) {
      const res = await issue({ grant_type: 'client_credentials', client_id: clientId });
      expect(res.status).toBe(400);
      expect(res.json().error).toBe('invalid_request');
    }
  });

  it('reports a valid token active with the MSISDN and epoch-second expiry, in JSON and XML', async () => {
    const token = await newToken();
    const expiry = Math.floor(app.clock.ms / 1000) + 3600;
    const res = await introspect(token);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.json()).toEqual({ active: true, client_id: '353871234567', expiry });
    expect(Object.keys(res.json())).toEqual(['active', 'client_id', 'expiry']);
    const xml = await introspect(token, { json: false });
    expect(xml.xml()).toEqual({ active: 'true', client_id: '353871234567', expiry: String(expiry) });
  });

  it('reports unknown tokens inactive with nothing else, in JSON and XML', async () => {
    const res = await introspect('not-a-token');
    expect(res.status).toBe(200);
    expect(res.json()).toEqual({ active: false });
    expect((await introspect('not-a-token', { json: false })).text).toBe(
      '<?xml version="1.0" encoding="UTF-8"?><response><active>false</active></response>',
    );
  });

  it('honours expiry with a controlled clock', async () => {
    const token = await newToken();
    app.clock.advanceSeconds(3599);
    expect((await introspect(token)).json().active).toBe(true);
    app.clock.advanceSeconds(1);
    expect((await introspect(token)).json()).toEqual({ active: false });
  });

  it("reports another tenant's token inactive", async () => {
    const rivalToken = await newToken('rival');
    expect((await introspect(rivalToken, { as: 'rival' })).json().active).toBe(true);
    expect((await introspect(rivalToken)).json()).toEqual({ active: false });
  });

  it('400 [token cannot be null] for a missing, null or empty token', async () => {
    for (const body of [{}, { token: null }, { token: '' }]) {
      const res = await app.request('POST', '/token/introspect', { as: 'portal', json: true, body });
      expect(res.status).toBe(400);
      expect(res.json()).toEqual({ error: 'invalid_request', error_description: '[token cannot be null]' });
    }
  });

  it('401 with www-authenticate and the published body without or with wrong credentials', async () => {
    const cases = [
      undefined,
      basic('portal', 'wrong'),
      basic('ghost', 'portal-password'),
      basic('disabled'),
      'Bearer abc',
      'Basic %%%',
    ];
    for (const path of ['/token', '/token/introspect']) {
      for (const auth of cases) {
        for (const json of [true, false]) {
          const res = await app.request('POST', path, {
            auth,
            json,
            body: { grant_type: 'client_credentials', client_id: '353871234567', token: 'x' },
          });
          expect(res.status).toBe(401);
          expect(res.headers.get('www-authenticate')).toBe('Basic realm="subscriber-gateway"');
          expect(json ? res.json() : res.xml()).toEqual({
            error: 'unauthorized',
            error_description: 'authorization failed',
          });
        }
      }
    }
  });

  it('accepts credentials in the published authorisation header', async () => {
    const res = await app.request('POST', '/token', {
      headers: { authorisation: basic('portal') },
      json: true,
      body: { grant_type: 'client_credentials', client_id: '353871234567' },
    });
    expect(res.status).toBe(201);
  });

  it('403 without the grant, and nothing is issued', async () => {
    const before = await app.tdb.db('tokens').count({ n: '*' }).first();
    const res = await issue(
      { grant_type: 'client_credentials', client_id: '353871234567' },
      { as: 'nogrant' },
    );
    expect(res.status).toBe(403);
    expect(res.json()).toEqual({ errorCode: 1, message: 'client lacks permission TOKEN_ISSUE' });
    expect(await app.tdb.db('tokens').count({ n: '*' }).first()).toEqual(before);
    const intro = await introspect('x', { as: 'issuer' });
    expect(intro.status).toBe(403);
    expect(intro.json()).toEqual({ errorCode: 1, message: 'client lacks permission TOKEN_INTROSPECT' });
  });

  it("403 when the tenant header names another tenant; fine when it names the client's own", async () => {
    const body = { grant_type: 'client_credentials', client_id: '353871234567' };
    expect((await issue(body, { headers: { tenant: 'rival' } })).status).toBe(403);
    expect((await issue(body, { headers: { tenant: 'acme' } })).status).toBe(201);
  });

  it('413 for a body over 1 MiB, 415 for a non-JSON content-type, 400 for malformed JSON', async () => {
    const big = await app.request('POST', '/token', {
      as: 'portal',
      json: true,
      raw: JSON.stringify({ grant_type: 'x'.repeat(1024 * 1024) }),
      headers: { 'content-type': 'application/json' },
    });
    expect(big.status).toBe(413);
    expect(big.json().error).toBe('invalid_request');
    for (const ct of [
      'application/x-www-form-urlencoded',
      'text/plain',
      'application/xml',
      'multipart/form-data; boundary=x',
    ]) {
      const res = await app.request('POST', '/token', {
        as: 'portal',
        json: true,
        raw: 'grant_type=client_credentials',
        headers: { 'content-type': ct },
      });
      expect(res.status).toBe(415);
      expect(res.json()).toEqual({
        error: 'invalid_request',
        error_description: 'content-type must be application/json',
      });
    }
    for (const raw of [
      '{',
      '{"grant_type":}',
      'null',
      '"str"',
      '[]',
      '[{"grant_type":"client_credentials"}]',
      '42',
      'true',
    ]) {
      const res = await app.request('POST', '/token', {
        as: 'portal',
        json: true,
        raw,
        headers: { 'content-type': 'application/json' },
      });
      expect(res.status).toBe(400);
      expect(res.json().error).toBe('invalid_request');
    }
  });

  it('reads gzip, deflate and br bodies, any +json type and no content-type; 415 for an unknown encoding', async () => {
    const zlib = await import('node:zlib');
    const json = JSON.stringify({ grant_type: 'client_credentials', client_id: '353871234567' });
    for (const [encoding, raw] of [
      ['gzip', zlib.gzipSync(json)],
      ['deflate', zlib.deflateSync(json)],
      ['br', zlib.brotliCompressSync(json)],
      ['identity', Buffer.from(json)],
    ] as const) {
      const res = await app.request('POST', '/token', {
        as: 'portal',
        json: true,
        raw,
        headers: { 'content-type': 'application/json', 'content-encoding': encoding },
      });
      expect([encoding, res.status]).toEqual([encoding, 201]);
    }
    for (const ct of ['application/vnd.acme+json', 'Application/JSON; charset=utf-8', undefined]) {
      const res = await app.request('POST', '/token', {
        as: 'portal',
        json: true,
        // A Buffer: fetch adds no content-type of its own.
        raw: Buffer.from(json),
        headers: ct ? { 'content-type': ct } : {},
      });
      expect([ct, res.status]).toEqual([ct, 201]);
    }
    const unknown = await app.request('POST', '/token', {
      as: 'portal',
      json: true,
      raw: json,
      headers: { 'content-type': 'application/json', 'content-encoding': 'compress' },
    });
    expect(unknown.status).toBe(415);
    expect(unknown.json().error).toBe('invalid_request');
    // An empty body reads as {}: the grant type is then missing.
    const empty = await app.request('POST', '/token', {
      as: 'portal',
      json: true,
      raw: '',
      headers: { 'content-type': 'application/json' },
    });
    expect(empty.status).toBe(400);
    expect(empty.json().error).toBe('invalid_request');
  });

  it('400 for fields of the wrong JSON type', async () => {
    for (const body of [
      { grant_type: 1, client_id: '353871234567' },
      { grant_type: 'client_credentials', client_id: 353871234567 },
      { grant_type: ['client_credentials'], client_id: '353871234567' },
      { grant_type: 'client_credentials', client_id: { n: 1 } },
    ]) {
      const res = await issue(body);
      expect(res.status).toBe(400);
      expect(res.json().error).toBe('invalid_request');
    }
    const res = await introspect(12345);
    expect(res.status).toBe(400);
    expect(res.json()).toEqual({ error: 'invalid_request', error_description: 'token must be a string' });
  });

  it('ignores unknown fields', async () => {
    const res = await issue({
      grant_type: 'client_credentials',
      client_id: '353871234567',
      scope: 'x',
      extra: { a: 1 },
    });
    expect(res.status).toBe(201);
  });

  it('echoes a valid x-request-id and replaces an invalid one', async () => {
    const body = { grant_type: 'client_credentials', client_id: '353871234567' };
    const ok = await issue(body, { headers: { 'x-request-id': 'abc-123.X:1' } });
    expect(ok.headers.get('x-request-id')).toBe('abc-123.X:1');
    const bad = await issue(body, { headers: { 'x-request-id': 'bad id <script>' } });
    expect(bad.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });
  itOnSqlite(
    'on SQLite, tokens issued or revoked together share COMMITs and every one is stored (group commit)',
    async () => {
      const { id: clientId, tenant_id: tenantId } = await app.tdb
        .db('api_clients')
        .where({ username: 'portal' })
        .first();
      const caller = { clientId, tenantId };
      const tokens = app.app.services.tokens;
      const before = await groupCommitCounts();
      // Asked for in one turn of the event loop, as the requests a busy server reads together.
      const issued = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          tokens.issue(caller, 'client_credentials', `35387100${1000 + i}`),
        ),
      );
      const afterIssue = await groupCommitCounts();
      expect(afterIssue.transactions - before.transactions).toBe(30);
      expect(afterIssue.commits - before.commits).toBeLessThanOrEqual(2);
      // Each answer names a stored token: its own subscriber, active.
      const seen = await Promise.all(issued.map((t) => tokens.introspect(caller, t.accessToken)));
      expect(seen.map((t) => (t.active ? t.clientId : null))).toEqual(
        issued.map((_, i) => `35387100${1000 + i}`),
      );
      expect(seen.every((t) => t.active)).toBe(true);
      // The 30 introspections' token CDRs "validate" are buffered and written in batches; on a
      // SQLite file from the CDR writer's own thread and connection (src/modules/cdrs/cdr.sqlite-worker.ts),
      // so none of the gateway connection's group-commit transactions.
      await tokens.flushCdrs();
      const afterValidate = await groupCommitCounts();
      expect(afterValidate.transactions - afterIssue.transactions).toBe(0);
      const written = await app.tdb
        .db('cdrs')
        .where({ type: 'token', transaction_type: TokenTx.VALIDATE })
        .whereIn(
          'record_id',
          issued.map((t) => hashToken(t.accessToken).slice(0, 16)),
        )
        .count({ n: '*' });
      expect(Number(written[0].n)).toBe(30);

      expect(await Promise.all(issued.map((t) => tokens.revoke(caller, t.accessToken)))).toEqual(
        Array(30).fill(true),
      );
      const afterRevoke = await groupCommitCounts();
      expect(afterRevoke.transactions - afterValidate.transactions).toBe(30);
      expect(afterRevoke.commits - afterValidate.commits).toBeLessThanOrEqual(2);
      const revoked = await Promise.all(issued.map((t) => tokens.introspect(caller, t.accessToken)));
      expect(revoked).toEqual(Array(30).fill({ active: false }));
    },
  );
});
