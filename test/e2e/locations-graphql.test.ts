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
      '{ location(name: "Z2") { name infos { name value type { name value } location { name } } rates { name } profiles { name } } }',
    );
    expect(data).toEqual({
      location: {
        name: 'Z2',
        infos: [
          { name: 'info-2', value: '20802', type: { name: 'PLMNID', value: 4 }, location: { name: 'Z2' } },
        ],
        rates: [],
        profiles: [],
      },
    });
    expect((await gql('pcrf', '{ location(name: "nope") { name } }')).data).toEqual({ location: null });
    expect((await gql('pcrf', '{ locationInfo(name: "info-3") { value location { name } } }')).data).toEqual({
      locationInfo: { value: '20803', location: { name: 'Z3' } },
    });
  });

  it('lets ADMIN create, replace children of, and delete a location', async () => {
    const upsert =
      'mutation($i: LocationInput!) { upsertLocation(input: $i) { name description rates { name locationRate } infos { name } profiles { name } } }';
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
        name: 'NEW',
        description: 'd',
        rates: [
          { name: 'a', locationRate: 1 },
          { name: 'b', locationRate: 2 },
        ],
        infos: [{ name: 'new-info' }],
        profiles: [],
      },
    });
    const replaced = await gql('admin', upsert, {
      i: { name: 'NEW', rates: [{ name: 'b', locationRate: 5 }], profiles: [{ name: 'p' }] },
    });
    expect(replaced.data).toEqual({
      upsertLocation: {
        name: 'NEW',
        description: null,
        rates: [{ name: 'b', locationRate: 5 }],
        infos: [{ name: 'new-info' }],
        profiles: [{ name: 'p' }],
      },
    });
    expect((await gql('admin', 'mutation { deleteLocation(name: "NEW") }')).data).toEqual({
      deleteLocation: true,
    });
    expect((await gql('admin', 'mutation { deleteLocation(name: "NEW") }')).data).toEqual({
      deleteLocation: false,
    });
    expect(await app.tdb.db('location_infos').where({ name: 'new-info' }).first()).toBeUndefined();
  });

  it('validates provisioning input and writes nothing on error', async () => {
    const before = await app.tdb.db('locations').count({ n: '*' }).first();
    const upsert = 'mutation($i: LocationInput!) { upsertLocation(input: $i) { name } }';
    for (const [input, field] of [
      [{ name: '' }, 'name'],
      [{ name: 'x\u0001y' }, 'name'],
      [{ name: 'ok', infos: [{ name: 'i', type: 'NOPE', value: '1' }] }, 'infos[0].type'],
      [
        {
          name: 'ok',
          rates: [
            { name: 'r', locationRate: 1 },
            { name: 'r', locationRate: 2 },
          ],
        },
        'rates[1].name',
      ],
    ] as const) {
      const res = await gql('admin', upsert, { i: input });
      expect(res.errors?.[0].extensions.code).toBe('BAD_USER_INPUT');
      expect((res.errors?.[0].extensions.fields as { field: string }[])[0].field).toBe(field);
    }
    expect(await app.tdb.db('locations').count({ n: '*' }).first()).toEqual(before);
  });

  it('needs ADMIN to provision and the read grant to read', async () => {
    const denied = await gql('pcrf', 'mutation { deleteLocation(name: "Z1") }');
    expect(denied.errors?.[0].extensions.code).toBe('FORBIDDEN');
    const unread = await gql('portal', '{ locationList { name } }');
    expect(unread.errors?.[0].extensions.code).toBe('FORBIDDEN');
    const other = await gql('rival-admin', '{ locationList { name } }');
    expect(other).toEqual({ data: { locationList: [] } });
  });
});
