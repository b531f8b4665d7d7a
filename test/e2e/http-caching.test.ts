import { buildOpenApi } from '../../src/rest/openapi';
import { TestApp, TestResponse, startTestApp } from '../helpers/app';
import { DONOR, R, sharingDataset, sqsClient } from '../helpers/sharing';

/**
 * HTTP caching of the REST GET rows (docs/platform.md "HTTP caching"): a strong `ETag`
 * per representation, `Cache-Control: private, no-cache`, `Vary: accept`, and 304 with no body
 * when `If-None-Match` names the current tag; a change of the data gives a new tag. Runs on the
 * database the suite runs on (SQLite, or MariaDB with TEST_DATABASE_URL): the location list's
 * tag comes from a per-tenant version counter in the database, bumped with every location write.
 */

const PERM = { permissions: 'PCRF_LOCATION_READ_PERMISSION' };
const FORMATS = ['json', 'xml'] as const;
type Format = (typeof FORMATS)[number];

const UPSERT =
  'mutation($i: LocationInput!) { upsertLocation(input: $i) { location { name } userErrors { code } } }';

function dataset() {
  const ds = sharingDataset();
  ds.locationInfoTypes = [{ tenant: 'acme', name: 'PLMNID', value: 4 }];
  ds.locations = [
    {
      tenant: 'acme',
      name: 'ZONE-1',
      rates: [{ name: 'ZONE-1_TimeBasedRate', locationRate: 0 }],
      infos: [{ name: 'FR-Orange', type: 'PLMNID', value: '20801' }],
    },
    { tenant: 'acme', name: 'ZONE-2', description: 'second' },
  ];
  return ds;
}

describe('HTTP caching of the REST GET paths', () => {
  let app: TestApp;
  let other: TestApp;
  beforeAll(async () => {
    // One public base URL, so both instances render the same hrefs (else each its own origin).
    const env = { PUBLIC_BASE_URL: 'https://gateway.example.com' };
    app = await startTestApp({ dataset: dataset(), env });
    // A second gateway instance over the same database: the tag is the database's, not a process's.
    other = await startTestApp({ sameDatabaseAs: app, env });
  });
  afterAll(async () => {
    await other.close();
    await app.close();
  });

  const pcrf = (target: TestApp, path: string, format: Format, headers: Record<string, string> = {}) =>
    target.request('GET', path, { as: 'pcrf', json: format === 'json', headers: { ...PERM, ...headers } });

  const upsert = async (i: Record<string, unknown>) => {
    const res = await app.request('POST', '/graphql', {
      as: 'admin',
      body: { query: UPSERT, variables: { i } },
    });
    expect(res.json()).toEqual({
      data: { upsertLocation: { location: { name: i.name }, userErrors: [] } },
    });
  };

  /** A 200 with its caching headers; returns its tag. */
  function fresh(res: TestResponse): string {
    expect(res.status).toBe(200);
    const tag = res.headers.get('etag')!;
    expect(tag).toMatch(/^"[^"]+"$/); // strong: no W/ prefix
    expect(res.headers.get('cache-control')).toBe('private, no-cache');
    expect(res.headers.get('vary')).toMatch(/accept/i);
    return tag;
  }

  /** A 304: no body, the tag and the caching headers. */
  function notModified(res: TestResponse, tag: string): void {
    expect(res.status).toBe(304);
    expect(res.text).toBe('');
    expect(res.headers.get('etag')).toBe(tag);
    expect(res.headers.get('cache-control')).toBe('private, no-cache');
    expect(res.headers.get('vary')).toMatch(/accept/i);
    expect(res.headers.get('content-type')).toBeNull();
  }

  describe.each([
    ['the location list', '/pcc/pcrf/locations'],
    ['a single location', '/pcc/pcrf/locations/ZONE-1'],
    ['a location by ?name=', '/pcc/pcrf/locations?name=ZONE-1'],
    ['location infos (a small body, hashed)', '/pcc/pcrf/location/ZONE-1/locationInfo'],
  ])('%s', (_what, path) => {
    it.each(FORMATS)(
      '%s: 304 on a matching If-None-Match; 200 and a new tag after a change',
      async (format) => {
        const tag = fresh(await pcrf(app, path, format));
        notModified(await pcrf(app, path, format, { 'if-none-match': tag }), tag);
        notModified(await pcrf(other, path, format, { 'if-none-match': tag }), tag);
        // Lists, weak comparison and `*` (RFC 9110 §13.1.2).
        notModified(await pcrf(app, path, format, { 'if-none-match': `"nope", W/${tag}` }), tag);
        notModified(await pcrf(app, path, format, { 'if-none-match': '*' }), tag);
        expect(fresh(await pcrf(app, path, format, { 'if-none-match': '"nope"' }))).toBe(tag);
        // Same data, same tag.
        expect(fresh(await pcrf(app, path, format))).toBe(tag);

        await upsert({
          name: 'ZONE-1',
          description: `changed for ${format} ${path}`,
          rates: [{ name: 'ZONE-1_TimeBasedRate', locationRate: 0 }],
          infos: [{ name: 'FR-Orange', type: 'PLMNID', value: '20801', description: `${format} ${path}` }],
        });
        // Through the other instance too: the version lives in the database.
        const after = await pcrf(other, path, format, { 'if-none-match': tag });
        const next = fresh(after);
        expect(next).not.toBe(tag);
        notModified(await pcrf(app, path, format, { 'if-none-match': next }), next);
      },
    );

    it('tags differ between JSON and XML', async () => {
      const json = fresh(await pcrf(app, path, 'json'));
      const xml = fresh(await pcrf(app, path, 'xml'));
      expect(json).not.toBe(xml);
      expect(fresh(await pcrf(app, path, 'xml', { 'if-none-match': json }))).toBe(xml);
    });
  });

  it('a location write elsewhere in the tenant changes the list tag; a no-op write does not', async () => {
    const path = '/pcc/pcrf/locations';
    const tag = fresh(await pcrf(app, path, 'json'));
    await upsert({ name: 'ZONE-2', description: 'second' }); // what it already is
    notModified(await pcrf(app, path, 'json', { 'if-none-match': tag }), tag);
    await upsert({ name: 'ZONE-3', description: 'new' });
    const next = fresh(await pcrf(app, path, 'json', { 'if-none-match': tag }));
    expect(next).not.toBe(tag);
    const del = await app.request('POST', '/graphql', {
      as: 'admin',
      body: { query: 'mutation { deleteLocation(name: "ZONE-3") { userErrors { code } } }' },
    });
    expect(del.json()).toEqual({ data: { deleteLocation: { userErrors: [] } } });
    expect(fresh(await pcrf(app, path, 'json', { 'if-none-match': next }))).not.toBe(next);
  });

  it('no 304 for a location that does not exist, nor before the transport checks', async () => {
    const res = await pcrf(app, '/pcc/pcrf/locations?name=nope', 'json', { 'if-none-match': '*' });
    expect(res.status).toBe(404);
    expect(res.headers.get('etag')).toBeNull();
    const tag = fresh(await pcrf(app, '/pcc/pcrf/locations', 'json'));
    const denied = await app.request('GET', '/pcc/pcrf/locations', {
      as: 'pcrf',
      json: true,
      headers: { 'if-none-match': tag },
    });
    expect(denied.status).toBe(403);
    const rival = await app.request('GET', '/pcc/pcrf/locations', {
      as: 'rival-admin',
      json: true,
      headers: { ...PERM, 'if-none-match': tag },
    });
    expect(rival.status).toBe(200);
    expect(rival.headers.get('etag')).not.toBe(tag);
  });

  describe('an SQS GET (/sqs/api/groups/<id>)', () => {
    it.each(FORMATS)(
      '%s: 304 on a matching If-None-Match; 200 and a new tag after a change',
      async (format) => {
        const sqs = sqsClient(app, { json: format === 'json' });
        const created = await sqsClient(app).createGroup({ ownerId: DONOR, name: `Family ${format}` });
        expect(created.status).toBe(201);
        const path = `/sqs/api/groups/${created.json().id as string}`;
        const tag = fresh(await sqs.call('GET', path));
        notModified(await sqs.call('GET', path, undefined, { 'if-none-match': tag }), tag);
        const other = format === 'json' ? 'xml' : 'json';
        const otherTag = fresh(await sqsClient(app, { json: other === 'json' }).call('GET', path));
        expect(otherTag).not.toBe(tag);

        expect((await sqs.addMember(path.split('/').pop()!, { memberId: R(1), quota: 1000 })).status).toBe(
          201,
        );
        const next = fresh(await sqs.call('GET', path, undefined, { 'if-none-match': tag }));
        expect(next).not.toBe(tag);
        notModified(await sqs.call('GET', path, undefined, { 'if-none-match': next }), next);
      },
    );

    it('a list GET is tagged too (/sqs/api/groups?ownerId=)', async () => {
      const sqs = sqsClient(app);
      const path = `/sqs/api/groups?ownerId=${DONOR}`;
      const tag = fresh(await sqs.call('GET', path));
      notModified(await sqs.call('GET', path, undefined, { 'if-none-match': tag }), tag);
    });
  });

  it('the OpenAPI document gives every GET row 304, ETag and If-None-Match', () => {
    const doc = buildOpenApi() as unknown as {
      paths: Record<
        string,
        Record<string, { parameters: { name: string }[]; responses: Record<string, { headers?: object }> }>
      >;
    };
    const gets = Object.values(doc.paths).flatMap((p) => (p.get?.parameters ? [p.get] : []));
    expect(gets.length).toBeGreaterThan(8);
    for (const op of gets) {
      expect(op.responses['304']).toBeDefined();
      expect(Object.keys(op.responses['200'].headers!)).toEqual(
        expect.arrayContaining(['etag', 'cache-control']),
      );
      expect(op.parameters.map((p) => p.name)).toContain('If-None-Match');
    }
  });
});
