import { TestApp, startTestApp } from '../helpers/app';
import { baseDataset } from '../helpers/fixtures';

describe('locations over GraphQL (CONTRACT §6-7)', () => {
  let app: TestApp;
  const gql = async (as: string, query: string, variables?: Record<string, unknown>) => {
    const res = await app.request('POST', '/graphql', { as, body: { query, variables } });
    return res.json() as {
      data?: Record<string, never> | null;
      errors?: { message: string; extensions: Record<string, unknown> }[];
    };
  };
  beforeAll(async () => {
    const ds = baseDataset();
    ds.locationInfoTypes = [{ tenant: 'acme', name: 'PLMNID', value: 4 }];
    ds.locations = Array.from({ length: 7 }, (_, i) => ({
      tenant: 'acme',
      name: `Z${i}`,
      infos: [{ name: `info-${i}`, type: 'PLMNID', value: `2080${i}` }],
    }));
    app = await startTestApp({ dataset: ds });
  });
  afterAll(() => app.close());

  it('pages through locations with cursors', async () => {
    const q =
      'query($after: String) { locations(first: 3, after: $after) { totalCount edges { cursor node { name } } pageInfo { hasNextPage endCursor } } }';
    const names: string[] = [];
    let after: string | null = null;
    let pages = 0;
    for (;;) {
      const { data } = await gql('pcrf', q, { after });
      const page = data!.locations as {
        totalCount: number;
        edges: { node: { name: string } }[];
        pageInfo: { hasNextPage: boolean; endCursor: string };
      };
      expect(page.totalCount).toBe(7);
      names.push(...page.edges.map((e) => e.node.name));
      pages++;
      if (!page.pageInfo.hasNextPage) break;
      after = page.pageInfo.endCursor;
    }
    expect(pages).toBe(3);
    expect(names).toEqual(['Z0', 'Z1', 'Z2', 'Z3', 'Z4', 'Z5', 'Z6']);
  });

  it('rejects bad cursors and page sizes as BAD_USER_INPUT', async () => {
    for (const [first, after] of [
      [3, 'garbage'],
      [0, null],
      [501, null],
    ]) {
      const res = await gql(
        'pcrf',
        'query($f: Int!, $a: String) { locations(first: $f, after: $a) { totalCount } }',
        { f: first, a: after },
      );
      expect(res.errors?.[0].extensions.code).toBe('BAD_USER_INPUT');
    }
  });

  it('reads a location with infos, their type and their location', async () => {
    const { data } = await gql(
      'pcrf',
      '{ location(name: "Z2") { name infos { edges { node { name value type { name value } location { name } } } } rates { edges { node { name } } } profiles { edges { node { name } } } } }',
    );
    expect(data).toEqual({
      location: {
        name: 'Z2',
        infos: {
          edges: [
            {
              node: {
                name: 'info-2',
                value: '20802',
                type: { name: 'PLMNID', value: 4 },
                location: { name: 'Z2' },
              },
            },
          ],
        },
        rates: { edges: [] },
        profiles: { edges: [] },
      },
    });
    expect((await gql('pcrf', '{ location(name: "nope") { name } }')).data).toEqual({ location: null });
    expect((await gql('pcrf', '{ locationInfo(name: "info-3") { value location { name } } }')).data).toEqual({
      locationInfo: { value: '20803', location: { name: 'Z3' } },
    });
  });

  it('lets ADMIN create, replace children of, and delete a location', async () => {
    const upsert =
      'mutation($i: LocationInput!) { upsertLocation(input: $i) { location { name description rates: rateList { name locationRate } infos: infoList { name } profiles: profileList { name } } userErrors { code } } }';
    const created = await gql('admin', upsert, {
      i: {
        name: 'NEW',
        description: 'd',
        rates: [
          { name: 'a', locationRate: 1 },
          { name: 'b', locationRate: 2 },
        ],
        infos: [{ name: 'new-info', type: 'PLMNID', value: '99999' }],
      },
    });
    expect(created.data).toEqual({
      upsertLocation: {
        userErrors: [],
        location: {
          name: 'NEW',
          description: 'd',
          rates: [
            { name: 'a', locationRate: 1 },
            { name: 'b', locationRate: 2 },
          ],
          infos: [{ name: 'new-info' }],
          profiles: [],
        },
      },
    });
    const replaced = await gql('admin', upsert, {
      i: { name: 'NEW', rates: [{ name: 'b', locationRate: 5 }], profiles: [{ name: 'p' }] },
    });
    expect(replaced.data).toEqual({
      upsertLocation: {
        userErrors: [],
        location: {
          name: 'NEW',
          description: null,
          rates: [{ name: 'b', locationRate: 5 }],
          infos: [{ name: 'new-info' }],
          profiles: [{ name: 'p' }],
        },
      },
    });
    const { id } = (await gql('admin', '{ location(name: "NEW") { id } }')).data!.location as { id: string };
    const del =
      'mutation { deleteLocation(name: "NEW") { deletedLocationId userErrors { code field message } } }';
    const deleted = await gql('admin', del);
    expect(deleted.data).toEqual({
      deleteLocation: { deletedLocationId: id, userErrors: [] },
    });
    expect((await gql('admin', del)).data).toEqual({
      deleteLocation: {
        deletedLocationId: null,
        userErrors: [
          { code: 'LOCATION_NOT_FOUND', field: ['name'], message: 'name names no location of this tenant' },
        ],
      },
    });
    expect(await app.tdb.db('location_infos').where({ name: 'new-info' }).first()).toBeUndefined();
  });

  it('validates provisioning input and writes nothing on error', async () => {
    const before = await app.tdb.db('locations').count({ n: '*' }).first();
    const upsert =
      'mutation($i: LocationInput!) { upsertLocation(input: $i) { location { name } userErrors { code field message } } }';
    for (const [input, field, code] of [
      [{ name: '' }, ['input', 'name'], 'INVALID_VALUE'],
      [{ name: 'x\u0001y' }, ['input', 'name'], 'INVALID_VALUE'],
      [
        { name: 'ok', infos: [{ name: 'i', type: 'NOPE', value: '1' }] },
        ['input', 'infos', '0', 'type'],
        'UNKNOWN_LOCATION_INFO_TYPE',
      ],
      [
        {
          name: 'ok',
          rates: [
            { name: 'r', locationRate: 1 },
            { name: 'r', locationRate: 2 },
          ],
        },
        ['input', 'rates', '1', 'name'],
        'DUPLICATE_NAME',
      ],
    ] as const) {
      const res = await gql('admin', upsert, { i: input });
      expect(res.errors).toBeUndefined();
      const payload = res.data!.upsertLocation as {
        location: unknown;
        userErrors: { code: string; field: string[]; message: string }[];
      };
      expect(payload.location).toBeNull();
      expect(payload.userErrors[0]).toEqual({ code, field, message: expect.any(String) });
    }
    expect(await app.tdb.db('locations').count({ n: '*' }).first()).toEqual(before);
  });

  it('needs ADMIN to provision and the read grant to read', async () => {
    const denied = await gql('pcrf', 'mutation { deleteLocation(name: "Z1") { deletedLocationId } }');
    expect(denied.errors?.[0].extensions.code).toBe('FORBIDDEN');
    const unread = await gql('portal', '{ locationList { name } }');
    expect(unread.errors?.[0].extensions.code).toBe('FORBIDDEN');
    const other = await gql('rival-admin', '{ locationList { name } }');
    expect(other).toEqual({ data: { locationList: [] } });
  });
});
