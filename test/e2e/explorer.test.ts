import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { NoDeprecatedCustomRule, parse, specifiedRules, validate } from 'graphql';
import { DEFAULT_QUERY, graphiqlPage } from '../../src/graphql/explorer';
import { gatewaySchema } from '../../src/graphql/schema';
import { TestApp, startTestApp } from '../helpers/app';
import { basic } from '../helpers/fixtures';

const HTML = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };
const ASSETS = [
  ['/graphql/explorer/assets/react/react.production.min.js', 'application/javascript'],
  ['/graphql/explorer/assets/react-dom/react-dom.production.min.js', 'application/javascript'],
  ['/graphql/explorer/assets/graphiql/index.umd.js', 'application/javascript'],
  ['/graphql/explorer/assets/graphiql/style.css', 'text/css'],
  ['/graphql/explorer/assets/explorer.js', 'application/javascript'],
  ['/graphql/explorer/assets/sandbox-fallback.js', 'application/javascript'],
] as const;

/** Every absolute URL (scheme://… or protocol-relative //host) an HTML page's attributes or text name. */
function externalUrls(html: string): string[] {
  return [...html.matchAll(/(?:[a-z][a-z0-9+.-]*:)?\/\/[^\s"'<>)]+/gi)].map((m) => m[0]);
}

/** A GET sent as is (fetch() would normalise `..` away), on a connection of its own. */
function rawGet(
  base: string,
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number | undefined; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(base, { path, headers, agent: false }, (r) => {
      let body = '';
      r.setEncoding('utf8');
      r.on('data', (c: string) => (body += c));
      r.on('end', () => resolve({ status: r.statusCode, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** The explorer-config JSON embedded in the GraphiQL page. */
function pageConfig(html: string): Record<string, unknown> {
  const m = /<script id="explorer-config" type="application\/json">([^<]*)<\/script>/.exec(html);
  if (!m) throw new Error('no explorer-config in the page');
  return JSON.parse(m[1]) as Record<string, unknown>;
}

describe('GRAPHQL_EXPLORER=graphiql (offline explorer)', () => {
  let app: TestApp;
  const authorization = basic('portal');
  beforeAll(async () => {
    app = await startTestApp({ env: { GRAPHQL_EXPLORER: 'graphiql' }, sandboxAuthorization: authorization });
  });
  afterAll(() => app.close());

  it('serves GraphiQL at GET /graphql to a browser, naming no other host', async () => {
    const res = await app.request('GET', '/graphql', { headers: HTML });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.text).toContain('/graphql/explorer/assets/graphiql/index.umd.js');
    expect(res.text).not.toMatch(/apollographql|embeddable-sandbox|unpkg|jsdelivr|googleapis/);
    expect(externalUrls(res.text)).toEqual([]);
    expect(res.text).toContain(`content="default-src 'none'; script-src 'self';`);
    expect(pageConfig(res.text)).toMatchObject({ endpoint: '/graphql', headers: { authorization } });
  });

  it('serves the same page at /graphql/explorer with a CSP header', async () => {
    const res = await app.request('GET', '/graphql/explorer');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toMatch(/^default-src 'none'; script-src 'self';/);
    expect(res.headers.get('content-security-policy')).toContain("connect-src 'self'");
    expect(externalUrls(res.text)).toEqual([]);
  });

  it.each(ASSETS)('serves %s from the package build (gzip, ETag)', async (path, type) => {
    const res = await fetch(app.url + path, { headers: { 'accept-encoding': 'gzip' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain(type);
    expect(res.headers.get('content-encoding')).toBe('gzip');
    const body = await res.text(); // fetch decodes gzip
    expect(body.length).toBeGreaterThan(300);
    const etag = res.headers.get('etag')!;
    expect(etag).toMatch(/^"/);
    // fetch() would add cache-control: no-cache to a conditional request (Fetch standard)
    const { status } = await rawGet(app.url, path, { 'if-none-match': etag });
    expect(status).toBe(304);
  });

  it('serves the packages’ own files byte for byte', async () => {
    const res = await fetch(`${app.url}/graphql/explorer/assets/graphiql/index.umd.js`, {
      headers: { 'accept-encoding': 'identity' },
    });
    expect(res.headers.get('content-encoding')).toBeNull();
    const served = Buffer.from(await res.arrayBuffer());
    const file = fs.readFileSync(
      path.join(path.dirname(require.resolve('graphiql/package.json')), 'dist/index.umd.js'),
    );
    // Buffer#equals, not toEqual: Jest compares a Buffer index by index, seconds for megabytes,
    // during which the event loop (and the in-process server) stands still.
    expect(served.length).toBe(file.length);
    expect(served.equals(file)).toBe(true);
  });

  it('answers any other asset path with the legacy 404', async () => {
    for (const path of [
      '/graphql/explorer/assets/graphiql/package.json',
      '/graphql/explorer/assets/../../package.json',
      '/graphql/explorer/assets/%2e%2e/%2e%2e/package.json',
    ]) {
      const res = await rawGet(app.url, path, { accept: 'application/json' });
      expect([res.status, res.body]).toEqual([404, '{"errorCode":1,"message":"no such path"}']);
    }
  });

  it('still lets introspection through without credentials and nothing else', async () => {
    const schema = await app.request('POST', '/graphql', {
      body: { query: '{ __schema { queryType { name } } }' },
    });
    expect(schema.status).toBe(200);
    const op = await app.request('POST', '/graphql', {
      body: { query: '{ introspectToken(token: "x") { active } }' },
    });
    expect(op.status).toBe(401);
  });
});

describe('graphiqlPage', () => {
  it('opens with a default query the schema accepts, using nothing deprecated (the first click answers data)', async () => {
    const rules = [...specifiedRules, NoDeprecatedCustomRule];
    expect(validate(await gatewaySchema(), parse(DEFAULT_QUERY), rules).map((e) => e.message)).toEqual([]);
    expect(pageConfig(graphiqlPage({}))).toMatchObject({ defaultQuery: DEFAULT_QUERY });
  });

  it('pre-fills no authorization when none is given', () => {
    const html = graphiqlPage({});
    expect(pageConfig(html)).not.toHaveProperty('headers');
    expect(html).not.toMatch(/"authorization"|Basic [A-Za-z0-9+/=]/);
  });

  it('escapes the header value so it cannot close the script element', () => {
    const html = graphiqlPage({ authorization: 'Basic </script><script>alert(1)</script>' });
    expect(html.match(/<\/script>/g)).toHaveLength(5);
    expect(pageConfig(html)).toMatchObject({
      headers: { authorization: 'Basic </script><script>alert(1)</script>' },
    });
  });
});

describe('GRAPHQL_EXPLORER=auto and sandbox', () => {
  let auto: TestApp;
  let sandbox: TestApp;
  beforeAll(async () => {
    auto = await startTestApp({ env: { GRAPHQL_EXPLORER: 'auto' } });
    sandbox = await startTestApp({
      env: { GRAPHQL_EXPLORER: 'sandbox' },
      sandboxAuthorization: basic('portal'),
    });
  });
  afterAll(async () => {
    await auto.close();
    await sandbox.close();
  });

  it('auto: Apollo Sandbox with telemetry off plus the GraphiQL fallback script', async () => {
    const res = await auto.request('GET', '/graphql', { headers: HTML });
    expect(res.text).toContain('embeddable-sandbox');
    expect(res.text).toContain('"runTelemetry":false');
    expect(res.text).toMatch(
      /<script src="\/graphql\/explorer\/assets\/sandbox-fallback\.js"><\/script>\s*<\/head>/,
    );
    expect(res.text).not.toMatch(/"authorization"/);
    const explorer = await auto.request('GET', '/graphql/explorer');
    expect(explorer.status).toBe(200);
    expect(pageConfig(explorer.text)).not.toHaveProperty('headers');
  });

  it('sandbox: Apollo Sandbox with telemetry off, the header pre-filled, no fallback', async () => {
    const res = await sandbox.request('GET', '/graphql', { headers: HTML });
    expect(res.text).toContain('embeddable-sandbox');
    expect(res.text).toContain('"runTelemetry":false');
    expect(res.text).toContain(`"authorization":"${basic('portal')}"`);
    expect(res.text).not.toContain('sandbox-fallback.js');
  });
});

describe('GRAPHQL_EXPLORER=off', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ env: { GRAPHQL_EXPLORER: 'off' }, sandboxAuthorization: basic('portal') });
  });
  afterAll(() => app.close());

  it('serves no explorer page or asset, and introspection needs credentials', async () => {
    const page = await app.request('GET', '/graphql', { headers: HTML });
    expect(page.text).not.toMatch(/graphiql|embeddable-sandbox/i);
    expect((await app.request('GET', '/graphql/explorer')).status).toBe(404);
    expect((await app.request('GET', '/graphql/explorer/assets/explorer.js')).status).toBe(404);
    const schema = await app.request('POST', '/graphql', {
      body: { query: '{ __schema { queryType { name } } }' },
    });
    expect(schema.status).toBe(401);
  });
});
