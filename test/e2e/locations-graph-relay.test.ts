import { TestApp, startTestApp } from '../helpers/app';
import { baseDataset } from '../helpers/fixtures';

/**
 * The locations graph: Relay connections (`locations`, a location's rates, infos and
 * profiles), validated cursors, `node(id:)` for every location type (another tenant's id → null),
 * payloads with typed `userErrors`, and the legacy numeric ids beside the global ones.
 */

type Gql = {
  data?: Record<string, unknown> | null;
  errors?: { message: string; extensions: Record<string, unknown> }[];
};
interface Page<T = { name: string }> {
  totalCount: number;
  edges: { cursor: string; node: T }[];
  pageInfo: {
    hasNextPage: boolean;
    hasPreviousPage: boolean;
    startCursor: string | null;
    endCursor: string | null;
  };
}

const PAGE =
  'totalCount edges { cursor node { name } } pageInfo { hasNextPage hasPreviousPage startCursor endCursor }';
const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64url');

describe('locations graph: connections, Node ids, payloads', () => {
  let app: TestApp;
  const gql = async (as: string, query: string, variables?: Record<string, unknown>): Promise<Gql> =>
    (await app.request('POST', '/graphql', { as, body: { query, variables } })).json() as Gql;
  const locations = async (args: Record<string, unknown>, as = 'pcrf') => {
    const res = await gql(
      as,
      `query($first: Int, $after: String, $last: Int, $before: String, $name: String) {
        locations(first: $first, after: $after, last: $last, before: $before, name: $name) { ${PAGE} } }`,
      args,
    );
    return { ...res, page: res.data?.locations as Page | undefined };
  };
  const names = (p: Page | undefined) => p!.edges.map((e) => e.node.name);

  beforeAll(async () => {
    const ds = baseDataset();
    ds.locationInfoTypes = [
      { tenant: 'acme', id: 5, name: 'PLMNID', value: 4 },
      { tenant: 'rival', id: 6, name: 'PLMNID', value: 4 },
    ];
    ds.locations = [
      {
        tenant: 'acme',
        name: 'Z0',
        rates: [0, 1, 2].map((i) => ({ name: `rate-${i}`, locationRate: i })),
        infos: [0, 1, 2, 3, 4].map((i) => ({ name: `info-${i}`, type: 'PLMNID', value: `2080${i}` })),
        profiles: [{ name: 'profile-0' }, { name: 'profile-1' }],
      },
      ...Array.from({ length: 6 }, (_, i) => ({ tenant: 'acme', name: `Z${i + 1}` })),
      {
        tenant: 'rival',
        name: 'RIVAL-ZONE',
        rates: [{ name: 'rival-rate', locationRate: 1 }],
        infos: [{ name: 'RIVAL-INFO', type: 'PLMNID', value: '23415' }],
        profiles: [{ name: 'rival-profile' }],
      },
    ];
    app = await startTestApp({ dataset: ds });
  });
  afterAll(() => app.close());

  describe('Query.locations', () => {
    it('pages forward with first/after and backward with last/before, with pageInfo both ways', async () => {
      const p1 = (await locations({ first: 3 })).page!;
      expect(names(p1)).toEqual(['Z0', 'Z1', 'Z2']);
      expect(p1.totalCount).toBe(7);
      expect(p1.pageInfo).toEqual({
        hasNextPage: true,
        hasPreviousPage: false,
        startCursor: p1.edges[0].cursor,
        endCursor: p1.edges[2].cursor,
      });
      const p2 = (await locations({ first: 3, after: p1.pageInfo.endCursor })).page!;
      expect(names(p2)).toEqual(['Z3', 'Z4', 'Z5']);
      expect(p2.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: true });
      const p3 = (await locations({ first: 3, after: p2.pageInfo.endCursor })).page!;
      expect(names(p3)).toEqual(['Z6']);
      expect(p3.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: true });
      expect(p3.pageInfo.endCursor).toBe(p3.edges[0].cursor);

      // Backward from the end, then from a page's startCursor.
      const last = (await locations({ last: 2 })).page!;
      expect(names(last)).toEqual(['Z5', 'Z6']);
      expect(last.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: true });
      const before = (await locations({ last: 3, before: last.pageInfo.startCursor })).page!;
      expect(names(before)).toEqual(['Z2', 'Z3', 'Z4']);
      expect(before.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: true });
      const start = (await locations({ last: 5, before: before.pageInfo.startCursor })).page!;
      expect(names(start)).toEqual(['Z0', 'Z1']);
      expect(start.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: false });
      // Between two cursors.
      const between = (await locations({ first: 10, after: p1.edges[0].cursor, before: p2.edges[1].cursor }))
        .page!;
      expect(names(between)).toEqual(['Z1', 'Z2', 'Z3']);
    });

    it('defaults to 20 items, keeps the name filter, and answers an empty page without cursors', async () => {
      expect(names((await locations({})).page)).toEqual(['Z0', 'Z1', 'Z2', 'Z3', 'Z4', 'Z5', 'Z6']);
      const one = (await locations({ name: 'Z4' })).page!;
      expect(names(one)).toEqual(['Z4']);
      expect(one.totalCount).toBe(1);
      const none = (await locations({ name: 'nope' })).page!;
      expect(none).toEqual({
        totalCount: 0,
        edges: [],
        pageInfo: { hasNextPage: false, hasPreviousPage: false, startCursor: null, endCursor: null },
      });
      // Another tenant's locations are not in yours.
      expect(names((await locations({}, 'rival-admin')).page)).toEqual(['RIVAL-ZONE']);
    });

    it('accepts the cursors of release 0.1.0, before the Relay connections (`location:<id>`)', async () => {
      const { locationId } = (await gql('pcrf', '{ location(name: "Z1") { locationId } }')).data!
        .location as {
        locationId: number;
      };
      const page = (await locations({ first: 2, after: b64(`location:${locationId}`) })).page!;
      expect(names(page)).toEqual(['Z2', 'Z3']);
      expect(page.edges[0].cursor).toBe(b64(`location:${locationId + 1}`));
    });

    it('refuses forged cursors, another list’s cursors and bad page sizes as BAD_USER_INPUT', async () => {
      const { data } = await gql(
        'pcrf',
        '{ location(name: "Z0") { infos(first: 1) { pageInfo { endCursor } } } }',
      );
      const infoCursor = (data!.location as { infos: Page }).infos.pageInfo.endCursor;
      for (const args of [
        { first: 2, after: 'garbage' },
        { first: 2, after: b64('location:abc') },
        { first: 2, after: b64('location:0') },
        { first: 2, after: infoCursor },
        { first: 2, after: b64('charge:1') },
        { last: 2, before: 'not a cursor!' },
        { first: 0 },
        { last: 501 },
        { first: 1, last: 1 },
      ]) {
        const res = await locations(args);
        expect({ args, code: res.errors?.[0].extensions.code }).toEqual({ args, code: 'BAD_USER_INPUT' });
        expect(res.data ?? null).toBeNull();
      }
    });
  });

  describe("a location's rates, infos and profiles", () => {
    it('are connections with totalCount, paged both ways, cursors checked per list', async () => {
      const q = `query($a: String, $b: String, $f: Int, $l: Int) { location(name: "Z0") {
        infos(first: $f, after: $a, last: $l, before: $b) { ${PAGE} }
        rates { totalCount edges { node { name locationRate } } }
        profiles(last: 1) { totalCount edges { node { name } } pageInfo { hasPreviousPage } } } }`;
      const first = (await gql('pcrf', q, { f: 2 })).data!.location as {
        infos: Page;
        rates: Page<{ name: string; locationRate: number }>;
        profiles: Page & { pageInfo: { hasPreviousPage: boolean } };
      };
      expect(names(first.infos)).toEqual(['info-0', 'info-1']);
      expect(first.infos.totalCount).toBe(5);
      expect(first.infos.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: false });
      expect(first.rates.totalCount).toBe(3);
      expect(first.rates.edges.map((e) => e.node)).toEqual(
        [0, 1, 2].map((i) => ({ name: `rate-${i}`, locationRate: i })),
      );
      expect(first.profiles).toEqual({
        totalCount: 2,
        edges: [{ node: { name: 'profile-1' } }],
        pageInfo: { hasPreviousPage: true },
      });
      const next = (await gql('pcrf', q, { f: 2, a: first.infos.pageInfo.endCursor })).data!.location as {
        infos: Page;
      };
      expect(names(next.infos)).toEqual(['info-2', 'info-3']);
      const back = (await gql('pcrf', q, { l: 3, b: next.infos.pageInfo.endCursor })).data!.location as {
        infos: Page;
      };
      expect(names(back.infos)).toEqual(['info-0', 'info-1', 'info-2']);
      expect(back.infos.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: false });

      // An infos cursor is not a rates cursor, nor a locations cursor an infos one.
      const locCursor = (await locations({ first: 1 })).page!.pageInfo.endCursor;
      for (const [field, cursor] of [
        ['rates', first.infos.pageInfo.endCursor],
        ['infos', locCursor],
        ['profiles', 'Zm9yZ2Vk'],
      ]) {
        const res = await gql(
          'pcrf',
          `query($c: String) { location(name: "Z0") { ${field}(after: $c) { totalCount } } }`,
          {
            c: cursor,
          },
        );
        expect({ field, code: res.errors?.[0].extensions.code }).toEqual({ field, code: 'BAD_USER_INPUT' });
      }
    });

    it('keep one query per child kind for a whole page of locations', async () => {
      let n = 0;
      const onQuery = () => n++;
      app.tdb.db.on('query', onQuery);
      try {
        const res = await gql(
          'pcrf',
          '{ locations(first: 7) { edges { node { name rates { totalCount } infos(first: 1) { edges { node { name type { name } } } } profiles { totalCount } } } } }',
        );
        expect(res.errors).toBeUndefined();
      } finally {
        app.tdb.db.off('query', onQuery);
      }
      // credentials (cached or not), locations, count, rates, infos, profiles, info types
      expect(n).toBeLessThanOrEqual(8);
    });
  });

  describe('node(id:)', () => {
    const ALL = `{ location(name: "Z0") { id locationId
      rates(first: 1) { edges { node { id locationRateId name } } }
      infos(first: 1) { edges { node { id locationInfoId name type { id locationInfoTypeId name } } } }
      profiles(first: 1) { edges { node { id locationProfileId name } } } } }`;
    type Ids = {
      id: string;
      locationId: number;
      rates: { edges: { node: { id: string; locationRateId: number; name: string } }[] };
      infos: {
        edges: {
          node: {
            id: string;
            locationInfoId: number;
            name: string;
            type: { id: string; locationInfoTypeId: number; name: string };
          };
        }[];
      };
      profiles: { edges: { node: { id: string; locationProfileId: number; name: string } }[] };
    };
    const NODE = `query($id: ID!) { node(id: $id) { __typename id
      ... on Location { name locationId }
      ... on LocationRate { name locationRateId locationRate }
      ... on LocationInfo { name locationInfoId infoValue: value location { name } }
      ... on LocationProfile { name locationProfileId }
      ... on LocationInfoType { name locationInfoTypeId typeValue: value } } }`;

    it('refetches every location type by its global id, with the same id and legacy numeric id', async () => {
      const z0 = (await gql('pcrf', ALL)).data!.location as Ids;
      const rate = z0.rates.edges[0].node;
      const info = z0.infos.edges[0].node;
      const profile = z0.profiles.edges[0].node;
      const cases: [string, Record<string, unknown>][] = [
        [z0.id, { __typename: 'Location', id: z0.id, name: 'Z0', locationId: z0.locationId }],
        [
          rate.id,
          {
            __typename: 'LocationRate',
            id: rate.id,
            name: 'rate-0',
            locationRateId: rate.locationRateId,
            locationRate: 0,
          },
        ],
        [
          info.id,
          {
            __typename: 'LocationInfo',
            id: info.id,
            name: 'info-0',
            locationInfoId: info.locationInfoId,
            infoValue: '20800',
            location: { name: 'Z0' },
          },
        ],
        [
          profile.id,
          {
            __typename: 'LocationProfile',
            id: profile.id,
            name: 'profile-0',
            locationProfileId: profile.locationProfileId,
          },
        ],
        [
          info.type.id,
          {
            __typename: 'LocationInfoType',
            id: info.type.id,
            name: 'PLMNID',
            locationInfoTypeId: 5,
            typeValue: 4,
          },
        ],
      ];
      for (const [id, expected] of cases) {
        expect((await gql('pcrf', NODE, { id })).data).toEqual({ node: expected });
      }
      // Ids are distinct across types although row ids may coincide.
      expect(new Set(cases.map(([id]) => id)).size).toBe(cases.length);
      // nodes(ids:) in order, null for an id naming nothing.
      const many = await gql('pcrf', 'query($ids: [ID!]!) { nodes(ids: $ids) { id } }', {
        ids: [info.id, b64('Location:999999'), z0.id],
      });
      expect(many.data).toEqual({ nodes: [{ id: info.id }, null, { id: z0.id }] });
      // The legacy numeric ids are the REST ones.
      const rest = await app.request('GET', '/pcc/pcrf/locations/Z0', {
        as: 'pcrf',
        json: true,
        headers: { permissions: 'PCRF_LOCATION_READ_PERMISSION' },
      });
      const element = (
        rest.json() as { locationList: { location: { id: number; locationRates: { id: number }[] } }[] }
      ).locationList[0];
      expect(element.location.id).toBe(z0.locationId);
      expect(element.location.locationRates[0].id).toBe(rate.locationRateId);
    });

    it("resolves another tenant's ids, unknown and malformed keys to null", async () => {
      const z0 = (await gql('pcrf', ALL)).data!.location as Ids;
      const acmeIds = [
        z0.id,
        z0.rates.edges[0].node.id,
        z0.infos.edges[0].node.id,
        z0.profiles.edges[0].node.id,
        z0.infos.edges[0].node.type.id,
      ];
      for (const id of acmeIds) {
        const res = await gql('rival-admin', NODE, { id });
        expect({ id, res }).toEqual({ id, res: { data: { node: null } } });
      }
      // And the other way round: rival's rows are null for acme, though they exist.
      const rivalQuery = `{ location(name: "RIVAL-ZONE") { id rates { edges { node { id } } } infos { edges { node { id type { id } } } } profiles { edges { node { id } } } } }`;
      const rival = JSON.stringify((await gql('rival-admin', rivalQuery)).data);
      const rivalIds = [...rival.matchAll(/"id":"([^"]+)"/g)].map((m) => m[1]);
      expect(rivalIds).toHaveLength(5);
      for (const id of rivalIds) {
        expect({ id, node: (await gql('rival-admin', NODE, { id })).data!.node }).toMatchObject({
          id,
          node: { id },
        });
        expect({ id, data: (await gql('pcrf', NODE, { id })).data }).toEqual({ id, data: { node: null } });
      }
      for (const key of ['0', '-1', 'abc', '1.5', '9999999999999999']) {
        expect((await gql('pcrf', NODE, { id: b64(`Location:${key}`) })).data).toEqual({ node: null });
      }
    });

    it('needs the read grant, as the location queries do', async () => {
      const z0 = (await gql('pcrf', '{ location(name: "Z0") { id } }')).data!.location as { id: string };
      const res = await gql('portal', NODE, { id: z0.id });
      expect(res.errors?.[0].extensions.code).toBe('FORBIDDEN');
    });
  });

  describe('mutation payloads', () => {
    const UPSERT_TYPE = `mutation($i: LocationInfoTypeInput!) { upsertLocationInfoType(input: $i) {
      locationInfoType { id locationInfoTypeId name value } userErrors { __typename code field message } } }`;

    it('upsertLocationInfoType: the type on success, typed userErrors on refusal', async () => {
      const created = (
        await gql('admin', UPSERT_TYPE, { i: { name: 'CGI', value: 7, locationInfoTypeId: 70 } })
      ).data!.upsertLocationInfoType as { locationInfoType: { id: string; locationInfoTypeId: number } };
      expect(created).toEqual({
        locationInfoType: { id: expect.any(String), locationInfoTypeId: 70, name: 'CGI', value: 7 },
        userErrors: [],
      });
      const node = await gql('admin', 'query($id: ID!) { node(id: $id) { id } }', {
        id: created.locationInfoType.id,
      });
      expect(node.data).toEqual({ node: { id: created.locationInfoType.id } });
      // The deprecated `id` input still works.
      expect(
        (await gql('admin', UPSERT_TYPE, { i: { name: 'CGI', value: 8, id: 70 } })).data!
          .upsertLocationInfoType,
      ).toMatchObject({ locationInfoType: { locationInfoTypeId: 70, value: 8 }, userErrors: [] });

      for (const [input, code, field] of [
        [
          { name: 'CGI', value: 7, locationInfoTypeId: 71 },
          'LOCATION_INFO_TYPE_ID_MISMATCH',
          ['input', 'locationInfoTypeId'],
        ],
        [{ name: 'CGI', value: 7, id: 71 }, 'LOCATION_INFO_TYPE_ID_MISMATCH', ['input', 'id']],
        [
          { name: 'NEW', value: 7, locationInfoTypeId: 6 },
          'LOCATION_INFO_TYPE_ID_TAKEN',
          ['input', 'locationInfoTypeId'],
        ],
        [{ name: '', value: 7 }, 'INVALID_VALUE', ['input', 'name']],
        [{ name: 'x'.repeat(65), value: 7 }, 'INVALID_VALUE', ['input', 'name']],
        [
          { name: 'NEW', value: 7, id: 72, locationInfoTypeId: 73 },
          'INVALID_VALUE',
          ['input', 'locationInfoTypeId'],
        ],
      ] as const) {
        const res = await gql('admin', UPSERT_TYPE, { i: input });
        expect({ input, payload: res.data?.upsertLocationInfoType }).toEqual({
          input,
          payload: {
            locationInfoType: null,
            userErrors: [{ __typename: 'LocationUserError', code, field, message: expect.any(String) }],
          },
        });
      }
      expect(await app.tdb.db('location_info_types').where({ name: 'NEW' }).first()).toBeUndefined();
    });

    it('upsertLocation lists one userError per offending field, each with its code', async () => {
      const res = await gql(
        'admin',
        'mutation($i: LocationInput!) { upsertLocation(input: $i) { location { id } userErrors { code field } } }',
        {
          i: {
            name: 'MULTI',
            description: 'x'.repeat(1025),
            rates: [
              { name: 'r', locationRate: 1 },
              { name: 'r', locationRate: 2 },
            ],
            infos: [{ name: 'i', type: 'PLMNID', value: '' }],
          },
        },
      );
      expect(res.data).toEqual({
        upsertLocation: {
          location: null,
          userErrors: [
            { code: 'INVALID_VALUE', field: ['input', 'description'] },
            { code: 'INVALID_VALUE', field: ['input', 'infos', '0', 'value'] },
            { code: 'DUPLICATE_NAME', field: ['input', 'rates', '1', 'name'] },
          ],
        },
      });
      expect(await app.tdb.db('locations').where({ name: 'MULTI' }).first()).toBeUndefined();
    });

    it('refuses a rate outside Int before any resolver runs, and writes nothing', async () => {
      const res = await gql(
        'admin',
        'mutation($i: LocationInput!) { upsertLocation(input: $i) { location { id } userErrors { code } } }',
        { i: { name: 'BIG', rates: [{ name: 'r', locationRate: 2 ** 31 }] } },
      );
      expect(res.errors?.[0].extensions.code).toBe('BAD_USER_INPUT');
      expect(res.data).toBeUndefined();
      expect(await app.tdb.db('locations').where({ name: 'BIG' }).first()).toBeUndefined();
    });

    it('deleteLocation answers the deleted id, then LOCATION_NOT_FOUND; another tenant cannot delete yours', async () => {
      const del =
        'mutation($n: String!) { deleteLocation(name: $n) { deletedLocationId userErrors { code field } } }';
      await gql('admin', 'mutation { upsertLocation(input: { name: "GONE" }) { location { id } } }');
      const { id } = (await gql('admin', '{ location(name: "GONE") { id } }')).data!.location as {
        id: string;
      };
      expect((await gql('rival-admin', del, { n: 'GONE' })).data).toEqual({
        deleteLocation: {
          deletedLocationId: null,
          userErrors: [{ code: 'LOCATION_NOT_FOUND', field: ['name'] }],
        },
      });
      expect((await gql('admin', del, { n: 'GONE' })).data).toEqual({
        deleteLocation: { deletedLocationId: id, userErrors: [] },
      });
      expect((await gql('admin', 'query($id: ID!) { node(id: $id) { id } }', { id })).data).toEqual({
        node: null,
      });
    });
  });
});
