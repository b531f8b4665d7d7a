import {
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLSchema,
  GraphQLString,
  GraphQLUnionType,
  execute,
  parse,
} from 'graphql';
import { GatewayContext } from '../../src/graphql/context';
import { executorOf } from '../../src/graphql/jit-executor';

/**
 * The hot paths' executor (src/graphql/jit-executor.ts) runs graphql-jit, which must answer as
 * graphql-js `execute` does. graphql-jit 0.8.9 as published completes a list item whose promise
 * rejects with `push(null)` instead of setting that item's index: a list whose items settle out
 * of order came back with the wrong length and nulls in the wrong places (seen as `_entities`
 * answering 470 entries for 500 representations when lookups timed out). patches/ fixes it.
 */

const Item = new GraphQLObjectType({ name: 'Item', fields: { n: { type: GraphQLString } } });
const ItemUnion = new GraphQLUnionType({
  name: 'ItemUnion',
  types: [Item],
  resolveType: (value: { __typename: string }) => value.__typename,
});

/** 60 items settling out of order: every fifth rejects, later indexes settle first. */
function items(): Promise<{ __typename: string; n: string }>[] {
  return Array.from(
    { length: 60 },
    (_, i) =>
      new Promise((resolve, reject) =>
        setTimeout(
          () =>
            i % 5 === 2 ? reject(new Error(`item ${i} failed`)) : resolve({ __typename: 'Item', n: `n${i}` }),
          60 - i,
        ),
      ),
  );
}

const schema = new GraphQLSchema({
  query: new GraphQLObjectType({
    name: 'Query',
    fields: {
      items: { type: new GraphQLNonNull(new GraphQLList(ItemUnion)), resolve: items },
      plain: { type: new GraphQLList(Item), resolve: items },
      nested: { type: new GraphQLList(new GraphQLList(Item)), resolve: () => [items(), items()] },
      strict: { type: new GraphQLList(new GraphQLNonNull(Item)), resolve: items },
    },
  }),
});

/** A result as a client reads it: data, and each error's message and path (sorted). */
function observed(result: { data?: unknown; errors?: readonly { message: string; path?: unknown }[] }) {
  return {
    data: JSON.parse(JSON.stringify(result.data)) as unknown,
    errors: (result.errors ?? []).map((e) => `${e.message} at ${JSON.stringify(e.path)}`).sort(),
  };
}

describe('executorOf (graphql-jit)', () => {
  it.each([
    ['a union list', '{ items { __typename ... on Item { n } } }'],
    ['an object list', '{ plain { n } }'],
    ['a list of lists', '{ nested { n } }'],
  ])('keeps %s in order with a null at each rejected item, as execute does', async (_, query) => {
    const document = parse(query);
    const compiled = executorOf(schema, document);
    const jit = observed(await compiled.run({} as GatewayContext, {}));
    expect(compiled.engine()).toBe('jit');
    const interpreted = observed(await execute({ schema, document }));
    expect(jit).toEqual(interpreted);
    const list = Object.values(jit.data as Record<string, unknown[]>)[0];
    const flat = (Array.isArray(list[0]) ? list.flat() : list) as ({ n: string } | null)[];
    expect(flat).toHaveLength(Array.isArray(list[0]) ? 120 : 60);
    flat.forEach((item, i) =>
      expect(item).toEqual(i % 5 === 2 ? null : expect.objectContaining({ n: `n${i % 60}` })),
    );
    expect(jit.errors).toHaveLength(flat.length / 5);
  });

  it('nulls a list of non-null items when one rejects, as execute does', async () => {
    const document = parse('{ strict { n } plain { n } }');
    const jit = await executorOf(schema, document).run({} as GatewayContext, {});
    const interpreted = await execute({ schema, document });
    expect(observed(jit).data).toEqual(observed(interpreted).data);
    expect(observed(jit).data).toMatchObject({ strict: null });
    // graphql-jit reports every rejected item, graphql-js the first: both at least one, each at its index.
    expect(jit.errors?.length).toBeGreaterThanOrEqual(1);
    for (const e of jit.errors ?? []) expect(e.message).toBe(`item ${e.path?.[1]} failed`);
  });
});
