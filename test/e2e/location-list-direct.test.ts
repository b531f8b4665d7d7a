import { Permission } from '../../src/auth/permissions';
import { loadConfig } from '../../src/config';
import { Dataset } from '../../src/dataset/dataset.schema';
import { LOCATION_ROUTES } from '../../src/rest/location.routes';
import { LOCATIONS_PER_CHUNK } from '../../src/rest/location-list';
import { RestInput } from '../../src/rest/route';
import { TestApp, startTestApp } from '../helpers/app';
import { basic } from '../helpers/fixtures';
import { genericAnswer } from '../helpers/rest-generic';
import { TcpProxy, startTcpProxy } from '../helpers/tcp-proxy';
import { waitFor } from '../helpers/wait';

/**
 * `GET /pcc/pcrf/locations` (and `/locations/<name>`, `?name=`) answers from a
 * direct path (src/rest/location-list.ts). Its bytes must be the generic path's: the row's
 * GraphQL operation executed against the schema, the row's `result`, then `JSON.stringify` or
 * `toXml`. Compared here byte for byte on awkward data, both formats, on the database the suite
 * runs on (SQLite, or MariaDB with TEST_DATABASE_URL).
 */

const PERM = { permissions: 'PCRF_LOCATION_READ_PERMISSION' };

/** Strings that XML, JSON and percent-encoding each treat specially. */
const AWKWARD = [
  'Zone &amp; <Friends>',
  `it's "quoted" ]]> & <![CDATA[x]]>`,
  'Ωμέγα 東京 مرحبا עברית',
  'emoji 🛰️📶 and 𝔘𝔫𝔦𝔠𝔬𝔡𝔢',
  'e\u0301 combining, zero\u200bwidth, nbsp\u00a0, bom\ufeff',
  "50% / ?#[]@!$&'()*+,;=",
  '   leading and trailing spaces   ',
  '-0',
  '&#x26; &lt; not-an-entity &',
  'x'.repeat(240),
];

/** Deterministic pseudo-random strings over a pool of awkward characters. */
function strings(seed: number, n: number): string[] {
  const pool = [
    ...'aZ09 &<>\'"/%?#;=+',
    'é',
    'ß',
    'Ω',
    '東',
    '🛰',
    '𝔘',
    '\u0301',
    '\u00a0',
    '\u2028',
    ']]>',
    '&amp;',
  ];
  let x = seed;
  const rnd = () => (x = (x * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  return Array.from({ length: n }, (_, i) => {
    const len = 1 + Math.floor(rnd() * 24);
    let s = '';
    for (let k = 0; k < len; k++) s += pool[Math.floor(rnd() * pool.length)];
    return `${s}#${i}`;
  });
}

/** Awkward locations through the dataset import (so through the provisioning rules). */
function dataset(): Dataset {
  const names = [...AWKWARD, ...strings(7, 40)];
  return {
    tenants: [{ name: 'acme' }, { name: 'rival' }],
    clients: [
      {
        tenant: 'acme',
        username: 'pcrf',
        password: 'pcrf-password',
        permissions: [Permission.PCRF_LOCATION_READ_PERMISSION],
      },
      {
        tenant: 'rival',
        username: 'rpcrf',
        password: 'rpcrf-password',
        permissions: [Permission.PCRF_LOCATION_READ_PERMISSION],
      },
    ],
    locations: [
      ...names.map((name, i) => ({
        tenant: 'acme',
        name,
        description: i % 3 === 0 ? null : i % 3 === 1 ? '' : names[(i * 7) % names.length],
        rates: Array.from({ length: i % 4 === 0 ? 0 : i % 5 === 0 ? 60 : (i % 3) + 1 }, (_, k) => ({
          name: `${names[(i + k) % names.length]} rate ${k}`,
          description: k % 2 ? null : names[(i + k + 1) % names.length],
          locationRate: [0, -1, 7, 2147483647, -2147483647, 1000000][k % 6],
        })),
      })),
      { tenant: 'rival', name: 'RIVAL &amp; ZONE', rates: [{ name: 'r', locationRate: 1 }] },
    ],
  };
}

/** Adds `n` plain locations (batched inserts) so the list spans many chunks and the tenant-wide query. */
async function bulk(app: TestApp, n: number): Promise<void> {
  const db = app.tdb.db;
  const tenantId = (await db('tenants').where({ name: 'acme' }).first()).id as number;
  const names = Array.from({ length: n }, (_, i) => `BULK-${String(i).padStart(5, '0')} <&>`);
  await db.batchInsert(
    'locations',
    names.map((name, i) => ({ tenant_id: tenantId, name, description: i % 2 ? null : `bulk ${i}` })),
    100,
  );
  const rows = (await db('locations').whereIn('name', names).select('id', 'name')) as {
    id: number;
    name: string;
  }[];
  await db.batchInsert(
    'location_rates',
    rows.flatMap((l, i) =>
      Array.from({ length: i % 3 }, (_, k) => ({
        location_id: l.id,
        name: `${l.name}_rate${k}`,
        description: k ? 'per MB' : null,
        location_rate: i * 10 + k,
      })),
    ),
    100,
  );
}

describe('GET /pcc/pcrf/locations: the direct path answers the generic path byte for byte', () => {
  let app: TestApp;

  /** The generic path (test/helpers/rest-generic.ts) of the location row `rowPath`. */
  function generic(
    target: TestApp,
    baseUrl: string,
    rowPath: string,
    input: Pick<RestInput, 'params' | 'query'>,
    format: 'json' | 'xml',
    username = 'pcrf',
    password = 'pcrf-password',
  ): Promise<{ status: number; text: string }> {
    const row = LOCATION_ROUTES.find((r) => r.path === rowPath && r.method === 'GET')!;
    return genericAnswer(target, row, input, format, basic(username, password), baseUrl);
  }

  async function direct(
    target: TestApp,
    path: string,
    format: 'json' | 'xml',
    as = 'pcrf',
    password?: string,
  ) {
    const res = await fetch(target.url + path, {
      headers: {
        ...PERM,
        authorization: basic(as, password),
        ...(format === 'json' ? { accept: 'application/json' } : {}),
      },
    });
    const bytes = Buffer.from(await res.arrayBuffer());
    return { status: res.status, bytes, type: res.headers.get('content-type') };
  }

  beforeAll(async () => {
    app = await startTestApp({ dataset: dataset() });
    // Characters XML 1.0 cannot carry and the import refuses: written straight into the table.
    const db = app.tdb.db;
    const [first] = (await db('locations').orderBy('id').limit(2).select('id')) as { id: number }[];
    await db('locations').where({ id: first.id }).update({
      description: 'bell\u0007 vt\u000b ff\u000c esc\u001b nonchar\uffff\ufffe tab\t nl\n cr\r end',
    });
    await db('location_rates')
      .insert({ location_id: first.id, name: 'ctl\u0001rate', description: '\u0000nul', location_rate: 5 })
      .catch(() =>
        db('location_rates').insert({
          location_id: first.id,
          name: 'ctl\u0001rate',
          description: 'x\u0002',
          location_rate: 5,
        }),
      );
    await bulk(app, 3 * LOCATIONS_PER_CHUNK + 400);
  }, 120_000);
  afterAll(() => app.close());

  it.each(['json', 'xml'] as const)('full list, %s: same bytes, same headers as sendBody', async (format) => {
    const mine = await direct(app, '/pcc/pcrf/locations', format);
    const theirs = await generic(app, app.url, '/pcc/pcrf/locations', { params: {}, query: {} }, format);
    expect(mine.status).toBe(200);
    expect(theirs.status).toBe(200);
    expect(mine.type).toBe(`application/${format}; charset=utf-8`);
    // Compared as bytes; on a difference, show where.
    const expected = Buffer.from(theirs.text);
    if (!mine.bytes.equals(expected)) {
      let i = 0;
      while (i < expected.length && mine.bytes[i] === expected[i]) i++;
      expect(mine.bytes.subarray(Math.max(0, i - 80), i + 80).toString()).toBe(
        expected.subarray(Math.max(0, i - 80), i + 80).toString(),
      );
    }
    expect(mine.bytes.equals(expected)).toBe(true);
    // The data really is awkward and long: every awkward name, a 60-rate location, empty ones.
    const list = JSON.parse((await direct(app, '/pcc/pcrf/locations', 'json')).bytes.toString()) as {
      locationList: { location: { name: string; locationRates: unknown[] } }[];
    };
    expect(list.locationList.length).toBeGreaterThan(3 * LOCATIONS_PER_CHUNK + 400);
    for (const name of AWKWARD) expect(list.locationList.map((l) => l.location.name)).toContain(name);
    expect(list.locationList.some((l) => l.location.locationRates.length === 60)).toBe(true);
    expect(list.locationList.some((l) => l.location.locationRates.length === 0)).toBe(true);
  });

  it.each(['json', 'xml'] as const)(
    'one location by path and by ?name=, and 404, %s: same bytes',
    async (format) => {
      for (const name of [...AWKWARD, 'NO SUCH & <LOCATION>']) {
        const byPath = await direct(app, `/pcc/pcrf/locations/${encodeURIComponent(name)}`, format);
        const byQuery = await direct(app, `/pcc/pcrf/locations?name=${encodeURIComponent(name)}`, format);
        const g1 = await generic(
          app,
          app.url,
          '/pcc/pcrf/locations/:name',
          { params: { name }, query: {} },
          format,
        );
        const g2 = await generic(
          app,
          app.url,
          '/pcc/pcrf/locations',
          { params: {}, query: { name } },
          format,
        );
        expect({ name, status: byPath.status, body: byPath.bytes.toString() }).toEqual({
          name,
          status: g1.status,
          body: g1.text,
        });
        expect({ name, status: byQuery.status, body: byQuery.bytes.toString() }).toEqual({
          name,
          status: g2.status,
          body: g2.text,
        });
        expect(byPath.bytes.equals(Buffer.from(g1.text))).toBe(true);
      }
    },
  );

  it('another tenant, then an empty list, both formats: same bytes', async () => {
    const rivalBytes = async (format: 'json' | 'xml') => {
      const mine = await direct(app, '/pcc/pcrf/locations', format, 'rpcrf', 'rpcrf-password');
      const theirs = await generic(
        app,
        app.url,
        '/pcc/pcrf/locations',
        { params: {}, query: {} },
        format,
        'rpcrf',
        'rpcrf-password',
      );
      expect(mine.bytes.toString()).toBe(theirs.text);
      return mine.bytes.toString();
    };
    for (const format of ['json', 'xml'] as const) {
      const text = await rivalBytes(format);
      expect(text).toContain('RIVAL &amp;');
      expect(text).not.toContain('BULK');
    }
    const db = app.tdb.db;
    const rival = db('locations').select('id').where({ name: 'RIVAL &amp; ZONE' });
    await db('location_rates').whereIn('location_id', rival).delete();
    await db('locations').where({ name: 'RIVAL &amp; ZONE' }).delete();
    expect(await rivalBytes('json')).toBe('{"locationList":[]}');
    expect(await rivalBytes('xml')).toBe('<?xml version="1.0" encoding="UTF-8"?><response></response>');
  });

  it('PUBLIC_BASE_URL with characters XML escapes: same bytes', async () => {
    const env = { PUBLIC_BASE_URL: "https://gw.example.com/a&b'c/" };
    const other = await startTestApp({ sameDatabaseAs: app, env });
    try {
      const baseUrl = loadConfig(env).publicBaseUrl!;
      for (const format of ['json', 'xml'] as const) {
        const mine = await direct(other, '/pcc/pcrf/locations', format);
        const theirs = await generic(
          other,
          baseUrl,
          '/pcc/pcrf/locations',
          { params: {}, query: {} },
          format,
        );
        expect(mine.bytes.equals(Buffer.from(theirs.text))).toBe(true);
      }
    } finally {
      await other.close();
    }
  });
});

const mysql = (process.env.TEST_DATABASE_URL ?? '').startsWith('mysql://');
const onMysql = mysql ? describe : describe.skip;

onMysql('the direct path when the database fails (MariaDB behind a proxy)', () => {
  const REQUEST_TIMEOUT_MS = 1500;
  let proxy: TcpProxy;
  let app: TestApp;
  beforeAll(async () => {
    const target = new URL(process.env.TEST_DATABASE_URL!);
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 3306) });
    app = await startTestApp({
      dataset: dataset(),
      env: { REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS) },
      database: (url) => {
        const u = new URL(url);
        u.port = String(proxy.port);
        return u.toString();
      },
    });
  });
  afterAll(async () => {
    proxy.set('pass');
    await app.close();
    await proxy.close();
  });
  afterEach(() => proxy.set('pass'));

  it.each(['down', 'frozen'] as const)(
    'database %s: 503 with retry-after and the plain error body, within the deadline + 1 s; then recovers',
    async (mode) => {
      const ok = await app.request('GET', '/pcc/pcrf/locations', { as: 'pcrf', json: true, headers: PERM });
      expect(ok.status).toBe(200); // credentials cached, pool warm
      proxy.set(mode);
      for (const json of [true, false]) {
        const started = performance.now();
        const res = await app.request('GET', '/pcc/pcrf/locations', { as: 'pcrf', json, headers: PERM });
        expect(res.status).toBe(503);
        expect(performance.now() - started).toBeLessThan(REQUEST_TIMEOUT_MS + 1000);
        expect(res.headers.get('retry-after')).toBe('1');
        const body = json ? res.json() : res.xml();
        expect(body).toEqual({ errorCode: json ? 1 : '1', message: expect.stringMatching(/retry later$/) });
      }
      proxy.set('pass');
      let last = 0;
      await waitFor(
        async () => {
          last = (await app.request('GET', '/pcc/pcrf/locations', { as: 'pcrf', json: true, headers: PERM }))
            .status;
          return last === 200;
        },
        { what: 'the list to answer 200 once the database is back', timeoutMs: 5000, intervalMs: 250 },
      );
      expect(last).toBe(200);
    },
    30_000,
  );
});
