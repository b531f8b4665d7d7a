import { ArgsType, ClassType, Field, Int, ObjectType } from 'type-graphql';
import type { KeysetPage } from '../db/keyset';
import { BadUserInputError } from '../errors';

/**
 * One pagination model for every list of the graph that can grow: the Relay Cursor Connections
 * specification (https://relay.dev/graphql/connections.htm; docs/graphql.md "Pagination").
 *
 * - {@link ConnectionArgs}: `first`/`after` forward, `last`/`before` backward; one bound,
 *   {@link PAGE_SIZE_MAX}, checked in one place ({@link pageRequest}).
 * - {@link cursorCodec}: one cursor format, opaque to clients and validated: a cursor that was not
 *   issued for this list (forged, truncated, another list's) is `BAD_USER_INPUT`, never a wrong
 *   page or a 500.
 * - {@link connectionTypes}: the `XConnection`/`XEdge` object types of a node type.
 * - {@link connectionFromRows} (a store read `limit + 1` rows past a key) and
 *   {@link connectionFromArray} (a bounded list held whole) build the connection value.
 */

/** Largest page a connection serves (`first` or `last`). */
export const PAGE_SIZE_MAX = 500;
/** Page size when neither `first` nor `last` is given. */
export const PAGE_SIZE_DEFAULT = 20;

/** The paging arguments of every connection field. */
@ArgsType()
export class ConnectionArgs {
  @Field(() => Int, {
    nullable: true,
    description: `Forward paging: how many items after \`after\` (1-${PAGE_SIZE_MAX}; default ${PAGE_SIZE_DEFAULT} when \`last\` is absent too).`,
  })
  first?: number | null;

  @Field(() => String, {
    nullable: true,
    description: 'Forward paging: the `endCursor` (or an edge `cursor`) of the items already seen.',
  })
  after?: string | null;

  @Field(() => Int, {
    nullable: true,
    description: `Backward paging: how many items before \`before\` (1-${PAGE_SIZE_MAX}). Not with \`first\`.`,
  })
  last?: number | null;

  @Field(() => String, {
    nullable: true,
    description: 'Backward paging: the `startCursor` (or an edge `cursor`) of the items already seen.',
  })
  before?: string | null;
}

/**
 * Where a page starts and which way it runs, with its cursors decoded: the stores' keyset page
 * (src/db/keyset.ts), `limit` within 1-{@link PAGE_SIZE_MAX}.
 */
export type PageRequest<K> = KeysetPage<K>;

function badArgument(field: string, description: string): BadUserInputError {
  return new BadUserInputError(`${field} ${description}`, [{ field, description }]);
}

/** `first`/`last`: 1-{@link PAGE_SIZE_MAX}. */
function pageSize(field: 'first' | 'last', value: number): number {
  if (!Number.isInteger(value) || value < 1 || value > PAGE_SIZE_MAX)
    throw badArgument(field, `must be 1-${PAGE_SIZE_MAX}`);
  return value;
}

/**
 * Reads a connection field's paging arguments.
 * @throws BadUserInputError naming the argument: `first`/`last` outside 1-{@link PAGE_SIZE_MAX},
 *   both given, or a cursor this list did not issue.
 */
export function pageRequest<K>(args: ConnectionArgs, codec: CursorCodec<K>): PageRequest<K> {
  const { first, last, after, before } = args;
  if (first != null && last != null) throw badArgument('last', 'cannot be combined with first');
  const backward = last != null;
  return {
    limit: backward ? pageSize('last', last) : first != null ? pageSize('first', first) : PAGE_SIZE_DEFAULT,
    direction: backward ? 'backward' : 'forward',
    after: after == null ? null : codec.decode(after, 'after'),
    before: before == null ? null : codec.decode(before, 'before'),
  };
}

/** Encodes and decodes one list's cursors. */
export interface CursorCodec<K> {
  /** The list's name, the first part of each of its cursors. */
  readonly list: string;
  encode(key: K): string;
  /**
   * @throws BadUserInputError naming `field` when `cursor` is not one this list issued.
   */
  decode(cursor: string, field: string): K;
}

/**
 * The one cursor format: base64url of `<list>:<key>`, where the list's `format`/`parse` turn its
 * key into text and back (`parse` returns undefined for text it never produced). Location and
 * charge cursors issued before this module (`location:<id>`, `charge:<id>`) keep working.
 */
export function cursorCodec<K>(
  list: string,
  format: (key: K) => string,
  parse: (text: string) => K | undefined,
): CursorCodec<K> {
  const prefix = `${list}:`;
  return {
    list,
    encode: (key) => Buffer.from(prefix + format(key), 'utf8').toString('base64url'),
    decode(cursor, field) {
      const text =
        cursor.length <= 512 && /^[A-Za-z0-9_-]*$/.test(cursor)
          ? Buffer.from(cursor, 'base64url').toString('utf8')
          : '';
      const key = text.startsWith(prefix) ? parse(text.slice(prefix.length)) : undefined;
      if (key === undefined) throw badArgument(field, `is not a cursor of this list (${list})`);
      return key;
    },
  };
}

/** A cursor codec whose key is a positive integer (a row id). */
export function integerCursor(list: string): CursorCodec<number> {
  return cursorCodec(
    list,
    (id) => String(id),
    (text) => (/^[1-9]\d{0,14}$/.test(text) ? Number(text) : undefined),
  );
}

/** Cursor pagination facts of one page (Relay `PageInfo`). */
@ObjectType('PageInfo', { description: 'Where a page stands in its whole list (Relay connections).' })
export class PageInfoType {
  @Field(() => Boolean, { description: 'True when more items follow this page (forward paging).' })
  hasNextPage!: boolean;
  @Field(() => Boolean, {
    description:
      'True when items precede this page (backward paging; with forward paging true when `after` was given).',
  })
  hasPreviousPage!: boolean;
  @Field(() => String, {
    nullable: true,
    description: 'Cursor of the first edge of this page; null for an empty page.',
  })
  startCursor!: string | null;
  @Field(() => String, {
    nullable: true,
    description: 'Cursor of the last edge of this page; null for an empty page. Pass it as `after`.',
  })
  endCursor!: string | null;
}

/** A connection value: what a connection field resolves to. */
export interface Connection<T> {
  edges: { cursor: string; node: T }[];
  pageInfo: PageInfoType;
  /** Items in the whole list, when the field offers it (see {@link connectionTypes}). */
  totalCount?: number;
}

/**
 * The object types `<name>Connection` and `<name>Edge` of `node`. With `totalCount` the
 * connection has `totalCount: Int!`, which its resolver must then fill.
 */
export function connectionTypes<T extends object>(
  node: ClassType<T>,
  name: string,
  opts: { description: string; totalCount?: string },
): { Connection: ClassType<Connection<T>>; Edge: ClassType<{ cursor: string; node: T }> } {
  @ObjectType(`${name}Edge`, { description: `One ${name} of a page, with its cursor.` })
  class Edge {
    @Field(() => String, { description: 'Opaque cursor of this item; pass it as `after` or `before`.' })
    cursor!: string;
    @Field(() => node, { description: `The ${name}.` })
    node!: T;
  }

  @ObjectType(`${name}Connection`, { description: opts.description })
  class ConnectionType {
    @Field(() => [Edge], { description: 'The items of this page, in list order.' })
    edges!: Edge[];
    @Field(() => PageInfoType, { description: 'Where this page stands in the whole list.' })
    pageInfo!: PageInfoType;
    totalCount?: number;
  }
  if (opts.totalCount)
    Field(() => Int, { description: opts.totalCount })(ConnectionType.prototype, 'totalCount');
  return { Connection: ConnectionType, Edge };
}

/** The prototype behind {@link countedOnRead}: `totalCount` is a getter shared by every connection. */
class CountOnRead {
  constructor(private readonly countRows: () => Promise<number>) {}

  /** The count, as the promise GraphQL resolves (counted only when the field is selected). */
  get totalCount(): number {
    return this.countRows() as unknown as number;
  }
}

/**
 * `fields` (a connection) with a `totalCount` counted only when read, i.e. selected. A getter on
 * a shared prototype rather than in an object literal: V8 keeps a literal's getter (a new closure
 * per call) in an accessor pair it allocates in the old generation, and from there the closure
 * and everything it reaches (the request's objects) survive every young-generation collection
 * until the next full one (docs/benchmarks.md "Full collections and what fed them").
 */
export function countedOnRead<T extends object>(
  fields: T,
  count: () => Promise<number>,
): T & { totalCount: number } {
  return Object.assign(new CountOnRead(count), fields);
}

/**
 * The connection of a page a store read: `rows` are up to `limit + 1` items in the paging
 * direction's order (list order forward, reverse list order backward) past the request's cursor;
 * the extra one only says that more follow.
 */
export function connectionFromRows<T, K>(
  rows: T[],
  page: PageRequest<K>,
  codec: CursorCodec<K>,
  keyOf: (row: T) => K,
  totalCount?: number,
): Connection<T> {
  const more = rows.length > page.limit;
  const items = more ? rows.slice(0, page.limit) : rows.slice();
  if (page.direction === 'backward') items.reverse();
  const edges = items.map((node) => ({ cursor: codec.encode(keyOf(node)), node }));
  return {
    edges,
    pageInfo: {
      hasNextPage: page.direction === 'forward' ? more : page.before !== null,
      hasPreviousPage: page.direction === 'backward' ? more : page.after !== null,
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges.at(-1)?.cursor ?? null,
    },
    totalCount,
  };
}

/**
 * The connection of a list held whole (bounded lists: a subscriber's plans, a group's members,
 * the catalogue): the items strictly after `after` and before `before`, then the first or last
 * `limit` of them. `totalCount` is the whole list's length. A cursor whose key is no longer in
 * the list pages from where it would sort (`compare`), so a removed item does not break paging.
 */
export function connectionFromArray<T, K>(
  all: readonly T[],
  page: PageRequest<K>,
  codec: CursorCodec<K>,
  keyOf: (item: T) => K,
  compare: (a: K, b: K) => number,
): Connection<T> {
  let lo = 0;
  let hi = all.length;
  if (page.after !== null) while (lo < hi && compare(keyOf(all[lo]), page.after) <= 0) lo++;
  if (page.before !== null) while (hi > lo && compare(keyOf(all[hi - 1]), page.before) >= 0) hi--;
  const window = all.slice(lo, hi);
  const items = page.direction === 'forward' ? window.slice(0, page.limit) : window.slice(-page.limit);
  const start = page.direction === 'forward' ? lo : hi - items.length;
  const end = start + items.length;
  const edges = items.map((node) => ({ cursor: codec.encode(keyOf(node)), node }));
  return {
    edges,
    pageInfo: {
      hasNextPage: end < all.length,
      hasPreviousPage: start > 0,
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges.at(-1)?.cursor ?? null,
    },
    totalCount: all.length,
  };
}
