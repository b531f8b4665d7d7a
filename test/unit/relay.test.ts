import 'reflect-metadata';
import fc from 'fast-check';
import {
  PAGE_SIZE_DEFAULT,
  PAGE_SIZE_MAX,
  connectionFromArray,
  connectionFromRows,
  cursorCodec,
  integerCursor,
  pageRequest,
} from '../../src/graphql/relay';
import { BadUserInputError } from '../../src/errors';

const locations = integerCursor('location');
const charges = integerCursor('charge');

/** The error `fn` throws (fails the test when it throws nothing). */
function thrown(fn: () => unknown): BadUserInputError {
  try {
    fn();
  } catch (err) {
    return err as BadUserInputError;
  }
  throw new Error('expected an error');
}

describe('cursor codec (src/graphql/relay.ts)', () => {
  it('round-trips keys and keeps the cursors issued before it (`location:<id>`)', () => {
    expect(locations.decode(locations.encode(42), 'after')).toBe(42);
    expect(locations.decode(Buffer.from('location:7').toString('base64url'), 'after')).toBe(7);
  });

  it('refuses another list’s cursor, forged text and oversized input as BAD_USER_INPUT naming the argument', () => {
    for (const bad of [
      charges.encode(42),
      'not a cursor!',
      Buffer.from('location:abc').toString('base64url'),
      Buffer.from('location:0').toString('base64url'),
      Buffer.from('location:-1').toString('base64url'),
      '',
      'A'.repeat(600),
    ]) {
      const err = thrown(() => locations.decode(bad, 'before'));
      expect(err).toBeInstanceOf(BadUserInputError);
      expect(err.extensions.code).toBe('BAD_USER_INPUT');
      expect(err.fields).toEqual([
        { field: 'before', description: 'is not a cursor of this list (location)' },
      ]);
    }
  });

  it('never throws anything but BAD_USER_INPUT on arbitrary input', () => {
    const codec = cursorCodec<string>(
      'x',
      (k) => k,
      (t) => (t.length ? t : undefined),
    );
    fc.assert(
      fc.property(fc.string(), (s) => {
        try {
          codec.decode(s, 'after');
        } catch (err) {
          expect(err).toBeInstanceOf(BadUserInputError);
        }
      }),
    );
  });
});

describe('page requests', () => {
  it('defaults to the first page of 20 and decodes both cursors', () => {
    expect(pageRequest({}, locations)).toEqual({
      limit: PAGE_SIZE_DEFAULT,
      direction: 'forward',
      after: null,
      before: null,
    });
    expect(pageRequest({ last: 3, before: locations.encode(9) }, locations)).toEqual({
      limit: 3,
      direction: 'backward',
      after: null,
      before: 9,
    });
  });

  it('bounds first and last to 1-500 and refuses both at once', () => {
    for (const [args, field] of [
      [{ first: 0 }, 'first'],
      [{ first: PAGE_SIZE_MAX + 1 }, 'first'],
      [{ last: -1 }, 'last'],
      [{ first: 1, last: 1 }, 'last'],
    ] as const)
      expect(thrown(() => pageRequest(args, locations)).fields[0].field).toBe(field);
    expect(pageRequest({ first: PAGE_SIZE_MAX }, locations).limit).toBe(PAGE_SIZE_MAX);
  });
});

describe('connections', () => {
  const all = [1, 2, 3, 4, 5, 6, 7];
  const page = (args: Parameters<typeof pageRequest>[0]) =>
    connectionFromArray(
      all,
      pageRequest(args, locations),
      locations,
      (n) => n,
      (a, b) => a - b,
    );
  const nodes = (c: { edges: { node: number }[] }) => c.edges.map((e) => e.node);

  it('pages forward with Relay page info: endCursor is the last edge’s cursor', () => {
    const p1 = page({ first: 3 });
    expect(nodes(p1)).toEqual([1, 2, 3]);
    expect(p1.pageInfo).toEqual({
      hasNextPage: true,
      hasPreviousPage: false,
      startCursor: locations.encode(1),
      endCursor: locations.encode(3),
    });
    const p3 = page({ first: 3, after: locations.encode(6) });
    expect(nodes(p3)).toEqual([7]);
    expect(p3.pageInfo.hasNextPage).toBe(false);
    expect(p3.pageInfo.endCursor).toBe(locations.encode(7));
    expect(p3.totalCount).toBe(7);
  });

  it('gives an empty page null cursors', () => {
    const empty = page({ first: 3, after: locations.encode(7) });
    expect(empty.edges).toEqual([]);
    expect(empty.pageInfo).toEqual({
      hasNextPage: false,
      hasPreviousPage: true,
      startCursor: null,
      endCursor: null,
    });
  });

  it('pages backward from `before`, in list order', () => {
    const p = page({ last: 2, before: locations.encode(4) });
    expect(nodes(p)).toEqual([2, 3]);
    expect(p.pageInfo.hasPreviousPage).toBe(true);
    expect(p.pageInfo.hasNextPage).toBe(true);
    expect(nodes(page({ last: 2 }))).toEqual([6, 7]);
  });

  it('walks every item exactly once forward, whatever the page size', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 8 }), (first) => {
        const seen: number[] = [];
        let after: string | null = null;
        for (let i = 0; i < 20; i++) {
          const p = page({ first, after });
          seen.push(...nodes(p));
          if (!p.pageInfo.hasNextPage) break;
          after = p.pageInfo.endCursor;
        }
        expect(seen).toEqual(all);
      }),
    );
  });

  it('builds a store page from limit + 1 rows in either direction', () => {
    const fwd = connectionFromRows([1, 2, 3], pageRequest({ first: 2 }, locations), locations, (n) => n);
    expect(nodes(fwd)).toEqual([1, 2]);
    expect(fwd.pageInfo.hasNextPage).toBe(true);
    // Backward rows arrive in reverse list order and come out in list order.
    const back = connectionFromRows(
      [5, 4],
      pageRequest({ last: 2, before: locations.encode(6) }, locations),
      locations,
      (n) => n,
    );
    expect(nodes(back)).toEqual([4, 5]);
    expect(back.pageInfo).toMatchObject({ hasPreviousPage: false, hasNextPage: true });
  });
});
