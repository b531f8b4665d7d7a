import { Dataset } from '../../src/dataset/dataset.schema';
import { TestApp, startTestApp } from '../helpers/app';
import { baseDataset } from '../helpers/fixtures';

const PERM = { permissions: 'PCRF_LOCATION_READ_PERMISSION' };
const HOSTILE = 'Zone & <Friends> 50% / Ωμέγα 東京';

function dataset(): Dataset {
  const ds = baseDataset();
  ds.locationInfoTypes = [
    { tenant: 'acme', id: 5, name: 'PLMNID', value: 4 },
    { tenant: 'rival', name: 'PLMNID', value: 4 },
  ];
  ds.locations = [
    {
      tenant: 'acme',
      name: 'ZONE-1',
      description: null,
      rates: [
        { name: 'ZONE-1_TimeBasedRate', description: null, locationRate: 0 },
        { name: 'ZONE-1_VolumeRate', description: 'per MB', locationRate: 7 },
      ],
      infos: [
        { name: 'FR-Orange', description: 'Orange France', type: 'PLMNID', value: '20801' },
        { name: 'FR-SFR', description: null, type: 'PLMNID', value: '20810' },
      ],
      profiles: [{ name: 'ZONE-1-default', description: null }],
    },
    { tenant: 'acme', name: 'EMPTY', description: 'no children' },
    {
      tenant: 'acme',
      name: HOSTILE,
      description: 'a <b>bold</b> & "quoted" ]]> description',
      rates: [{ name: `${HOSTILE} rate`, locationRate: 1 }],
      infos: [{ name: `${HOSTILE} info ?#`, description: '&amp;', type: 'PLMNID', value: '44010' }],
      profiles: [{ name: `${HOSTILE} profile`, description: null }],
    },
    { tenant: 'rival', name: 'RIVAL-ZONE', infos: [{ name: 'RIVAL-INFO', type: 'PLMNID', value: '23415' }] },
  ];
  return ds;
}

describe('PCRF locations over REST (CONTRACT §6)', () => {
  let app: TestApp;
  const get = (path: string, opts: { as?: string; json?: boolean; headers?: Record<string, string> } = {}) =>
    app.request('GET', path, { as: 'pcrf', json: true, ...opts, headers: { ...PERM, ...opts.headers } });
  beforeAll(async () => {
    app = await startTestApp({ dataset: dataset() });
  });
  afterAll(() => app.close());

  it('lists every location of the tenant ordered by id, in the exact published shape', async () => {
    const res = await get('/pcc/pcrf/locations');
    expect(res.status).toBe(200);
    const body = res.json() as { locationList: Record<string, unknown>[] };
    expect(Object.keys(body)).toEqual(['locationList']);
    expect(body.locationList.map((e) => (e.location as { name: string }).name)).toEqual([
      'ZONE-1',
      'EMPTY',
      HOSTILE,
    ]);
    const zone = body.locationList[0];
    expect(zone).toEqual({
      location: {
        id: expect.any(Number),
        name: 'ZONE-1',
        description: null,
        locationRates: [
          { id: expect.any(Number), name: 'ZONE-1_TimeBasedRate', description: null, locationRate: 0 },
          { id: expect.any(Number), name: 'ZONE-1_VolumeRate', description: 'per MB', locationRate: 7 },
        ],
      },
      _links: {
        self: { href: `${app.url}/pcc/pcrf/locations/ZONE-1` },
        locationInfos: { href: `${app.url}/pcc/pcrf/location/ZONE-1/locationInfo` },
        locationProfiles: { href: `${app.url}/pcc/pcrf/locations/ZONE-1/locationProfiles` },
      },
    });
    expect(Object.keys(zone)).toEqual(['location', '_links']);
    expect(Object.keys(zone.location as object)).toEqual(['id', 'name', 'description', 'locationRates']);
    expect(Object.keys((zone.location as { locationRates: object[] }).locationRates[0])).toEqual([
      'id',
      'name',
      'description',
      'locationRate',
    ]);
    expect((body.locationList[1].location as { locationRates: unknown[] }).locationRates).toEqual([]);
  });

  it('writes the same list as XML: repeated elements, empty elements for null', async () => {
    const res = await get('/pcc/pcrf/locations?name=ZONE-1', { json: false });
    expect(res.headers.get('content-type')).toBe('application/xml; charset=utf-8');
    expect(res.text).toMatch(
      /^<\?xml version="1.0" encoding="UTF-8"\?><response><locationList><location><id>\d+<\/id><name>ZONE-1<\/name><description><\/description><locationRates><id>\d+<\/id><name>ZONE-1_TimeBasedRate<\/name><description><\/description><locationRate>0<\/locationRate><\/locationRates><locationRates><id>\d+<\/id><name>ZONE-1_VolumeRate<\/name><description>per MB<\/description><locationRate>7<\/locationRate><\/locationRates><\/location><_links><self><href>http:\/\/127\.0\.0\.1:\d+\/pcc\/pcrf\/locations\/ZONE-1<\/href><\/self><locationInfos><href>[^<]+<\/href><\/locationInfos><locationProfiles><href>[^<]+<\/href><\/locationProfiles><\/_links><\/locationList><\/response>$/,
    );
    res.xml();
  });

  it('returns one element for /locations/<name> and ?name=, 404 when absent', async () => {
    const byPath = await get('/pcc/pcrf/locations/ZONE-1');
    const byQuery = await get('/pcc/pcrf/locations?name=ZONE-1');
    expect(byPath.status).toBe(200);
    expect(byPath.json()).toEqual(byQuery.json());
    expect((byPath.json().locationList as unknown[]).length).toBe(1);
    for (const path of [
      '/pcc/pcrf/locations/NOPE',
      '/pcc/pcrf/locations?name=NOPE',
      '/pcc/pcrf/location/NOPE/locationInfo',
      '/pcc/pcrf/locationInfos/NOPE',
      '/pcc/pcrf/locations/NOPE/locationProfiles',
    ]) {
      const res = await get(path);
      expect(res.status).toBe(404);
      expect(res.json()).toEqual({ errorCode: 1, message: expect.stringMatching(/not found$/) });
      expect((await get(path, { json: false })).xml().errorCode).toBe('1');
    }
  });

  it('lists location infos in the exact published shape, [] for a location without infos', async () => {
    const res = await get('/pcc/pcrf/location/ZONE-1/locationInfo');
    expect(res.status).toBe(200);
    const body = res.json() as { locationInfoList: Record<string, unknown>[] };
    expect(body).toEqual({
      locationInfoList: [
        {
          locationInfo: {
            id: expect.any(Number),
            name: 'FR-Orange',
            description: 'Orange France',
            locationInfoType: { id: 5, name: 'PLMNID', value: 4 },
            locationInfo: '20801',
          },
          _links: {
            self: { href: `${app.url}/pcc/pcrf/locationInfos/FR-Orange` },
            location: { href: `${app.url}/pcc/pcrf/locations/ZONE-1` },
          },
        },
        {
          locationInfo: {
            id: expect.any(Number),
            name: 'FR-SFR',
            description: null,
            locationInfoType: { id: 5, name: 'PLMNID', value: 4 },
            locationInfo: '20810',
          },
          _links: {
            self: { href: `${app.url}/pcc/pcrf/locationInfos/FR-SFR` },
            location: { href: `${app.url}/pcc/pcrf/locations/ZONE-1` },
          },
        },
      ],
    });
    expect(Object.keys(body.locationInfoList[0].locationInfo as object)).toEqual([
      'id',
      'name',
      'description',
      'locationInfoType',
      'locationInfo',
    ]);
    expect((await get('/pcc/pcrf/location/EMPTY/locationInfo')).json()).toEqual({ locationInfoList: [] });
    expect((await get('/pcc/pcrf/location/EMPTY/locationInfo', { json: false })).text).toBe(
      '<?xml version="1.0" encoding="UTF-8"?><response></response>',
    );
    const xml = (await get('/pcc/pcrf/location/ZONE-1/locationInfo', { json: false })).xml() as {
      locationInfoList: { locationInfo: { locationInfo: string } }[];
    };
    expect(xml.locationInfoList[0].locationInfo.locationInfo).toBe('20801');
  });

  it('uses PUBLIC_BASE_URL for hrefs when set', async () => {
    const other = await startTestApp({
      dataset: dataset(),
      env: { PUBLIC_BASE_URL: 'https://gw.example.com/base/' },
    });
    try {
      const res = await other.request('GET', '/pcc/pcrf/locations/ZONE-1', {
        as: 'pcrf',
        json: true,
        headers: PERM,
      });
      const links = (res.json().locationList as { _links: { self: { href: string } } }[])[0]._links;
      expect(links.self.href).toBe('https://gw.example.com/base/pcc/pcrf/locations/ZONE-1');
    } finally {
      await other.close();
    }
  });

  it('every emitted href answers 200 (crawler), and none reveals anything to another tenant', async () => {
    const seen = new Set<string>();
    const hrefsOf = (v: unknown, out: string[] = []): string[] => {
      if (Array.isArray(v)) v.forEach((x) => hrefsOf(x, out));
      else if (v && typeof v === 'object') {
        for (const [k, x] of Object.entries(v)) {
          if (k === 'href' && typeof x === 'string') out.push(x);
          else hrefsOf(x, out);
        }
      }
      return out;
    };
    const queue = [`${app.url}/pcc/pcrf/locations`];
    while (queue.length) {
      const href = queue.shift()!;
      if (seen.has(href)) continue;
      seen.add(href);
      expect(href.startsWith(app.url)).toBe(true);
      const path = href.slice(app.url.length);
      const res = await get(path);
      expect({ href, status: res.status }).toEqual({ href, status: 200 });
      (await get(path, { json: false })).xml();
      queue.push(...hrefsOf(res.json()));
    }
    // Locations, their info lists and profile lists, each info: 3 locations, 2 + 1 infos.
    expect(seen.size).toBe(1 + 3 * 3 + 3);
    for (const href of seen) {
      if (href.endsWith('/pcc/pcrf/locations')) continue;
      const res = await get(href.slice(app.url.length), { as: 'rival-admin' });
      expect({ href, status: res.status }).toEqual({ href, status: 404 });
      // The 404 echoes only the name the request carried; none of the entity's data appears.
      expect(res.json()).toEqual({ errorCode: 1, message: expect.stringMatching(/not found$/) });
      expect(res.text).not.toMatch(/20801|Orange France|per MB|TimeBasedRate|bold|"id"/);
    }
    const rivalList = await get('/pcc/pcrf/locations', { as: 'rival-admin' });
    expect(
      (rivalList.json().locationList as { location: { name: string } }[]).map((l) => l.location.name),
    ).toEqual(['RIVAL-ZONE']);
  });

  it('round-trips names with spaces, &, /, %, <, ?, # and non-Latin letters through hrefs and XML', async () => {
    const list = (await get(`/pcc/pcrf/locations?name=${encodeURIComponent(HOSTILE)}`)).json() as {
      locationList: { location: { name: string }; _links: Record<string, { href: string }> }[];
    };
    const [el] = list.locationList;
    expect(el.location.name).toBe(HOSTILE);
    expect(el._links.self.href).toBe(`${app.url}/pcc/pcrf/locations/${encodeURIComponent(HOSTILE)}`);
    const self = await get(el._links.self.href.slice(app.url.length), { json: false });
    expect(self.status).toBe(200);
    const xml = self.xml() as { locationList: { location: { name: string; description: string } } };
    expect(xml.locationList.location.name).toBe(HOSTILE);
    expect(xml.locationList.location.description).toBe('a <b>bold</b> & "quoted" ]]> description');
    const infos = (await get(el._links.locationInfos.href.slice(app.url.length))).json() as {
      locationInfoList: {
        locationInfo: { name: string; description: string };
        _links: { self: { href: string } };
      }[];
    };
    expect(infos.locationInfoList[0].locationInfo.name).toBe(`${HOSTILE} info ?#`);
    expect(infos.locationInfoList[0].locationInfo.description).toBe('&amp;');
    const info = await get(infos.locationInfoList[0]._links.self.href.slice(app.url.length), { json: false });
    expect(info.status).toBe(200);
    expect(
      (info.xml() as { locationInfo: { name: string; description: string } }).locationInfo,
    ).toMatchObject({ name: `${HOSTILE} info ?#`, description: '&amp;' });
  });

  it('403 without the permissions header or the grant; 401 without credentials', async () => {
    const paths = [
      '/pcc/pcrf/locations',
      '/pcc/pcrf/locations/ZONE-1',
      '/pcc/pcrf/location/ZONE-1/locationInfo',
    ];
    for (const path of paths) {
      const noHeader = await app.request('GET', path, { as: 'pcrf', json: true });
      expect(noHeader.status).toBe(403);
      expect(noHeader.json()).toEqual({
        errorCode: 1,
        message: 'permissions header must name PCRF_LOCATION_READ_PERMISSION',
      });
      const wrongHeader = await app.request('GET', path, {
        as: 'pcrf',
        json: true,
        headers: { permissions: 'SQS_DONATION_PERMISSION' },
      });
      expect(wrongHeader.status).toBe(403);
      const listHeader = await app.request('GET', path, {
        as: 'pcrf',
        json: true,
        headers: { permissions: 'SQS_DONATION_PERMISSION, PCRF_LOCATION_READ_PERMISSION' },
      });
      expect(listHeader.status).toBe(200);
      const noGrant = await get(path, { as: 'portal' });
      expect(noGrant.status).toBe(403);
      expect(noGrant.json()).toEqual({
        errorCode: 1,
        message: 'client lacks permission PCRF_LOCATION_READ_PERMISSION',
      });
      const anonymous = await app.request('GET', path, { json: true, headers: PERM });
      expect(anonymous.status).toBe(401);
      expect(anonymous.headers.get('www-authenticate')).toBe('Basic realm="subscriber-gateway"');
      expect(anonymous.json()).toEqual({ errorCode: 1, message: 'authorization failed' });
      const wrongTenant = await get(path, { headers: { tenant: 'rival' } });
      expect(wrongTenant.status).toBe(403);
    }
  });

  it('400 for a repeated ?name=', async () => {
    const res = await get('/pcc/pcrf/locations?name=a&name=b');
    expect(res.status).toBe(400);
    expect(res.json()).toEqual({ errorCode: 1, message: 'name must be given once' });
  });

  it('runs a constant number of SQL queries whatever the number of locations', async () => {
    const countQueries = async (path: string) => {
      let n = 0;
      const onQuery = () => n++;
      app.tdb.db.on('query', onQuery);
      try {
        expect((await get(path)).status).toBe(200);
      } finally {
        app.tdb.db.off('query', onQuery);
      }
      return n;
    };
    const before = await countQueries('/pcc/pcrf/locations');
    for (let i = 0; i < 40; i++) {
      await app.request('POST', '/graphql', {
        as: 'admin',
        body: {
          query:
            'mutation($i: LocationInput!) { upsertLocation(input: $i) { location { id } userErrors { code } } }',
          variables: {
            i: { name: `BULK-${i}`, rates: [{ name: 'r', locationRate: i }], profiles: [{ name: 'p' }] },
          },
        },
      });
    }
    expect(((await get('/pcc/pcrf/locations')).json().locationList as unknown[]).length).toBe(43);
    expect(await countQueries('/pcc/pcrf/locations')).toBe(before);
    expect(await countQueries('/pcc/pcrf/location/ZONE-1/locationInfo')).toBeLessThanOrEqual(before + 2);
  });
});
