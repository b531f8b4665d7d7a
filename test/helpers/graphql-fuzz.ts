import {
  GraphQLArgument,
  GraphQLField,
  GraphQLInputType,
  GraphQLNamedType,
  GraphQLObjectType,
  GraphQLSchema,
  getNamedType,
  getNullableType,
  isAbstractType,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isLeafType,
  isListType,
  isNonNullType,
  isObjectType,
} from 'graphql';

/**
 * Random `/graphql` requests generated from a schema, for the schema-aware fuzz
 * (test/e2e/graphql-fuzz.test.ts): documents with selections to depth {@link MAX_DEPTH}, valid
 * or hostile (wrong-typed, null, huge, unicode and control-character arguments, literal or as
 * variables, repeated aliases, unknown and cyclic fragments), garbage, and odd envelopes.
 */

/** Deepest field level of a generated selection. */
const MAX_DEPTH = 4;

/** One HTTP request to `/graphql`. */
export interface FuzzRequest {
  /** What was generated: a valid document, a hostile one or garbage (for the statistics). */
  kind: 'valid' | 'hostile' | 'garbage';
  method: 'GET' | 'POST';
  /** JSON body (POST) or query string parameters (GET). */
  body: Record<string, unknown>;
  /** Raw body text instead of `body` (garbage). */
  raw?: string;
}

const MSISDNS = ['353871234567', '353871234568', '353871234569', '353871234570', '447700900123'];
const HOSTILE_STRINGS = [
  '',
  'x'.repeat(70_000),
  '\u0000\u0001\u0007\u001b[31m\u007f',
  '𝔘𝔫𝔦𝔠𝔬𝔡𝔢 ✓ 中文 العربية \u202e\u200b',
  '"\\\'; -- #',
  '../../etc/passwd',
  '\ud800',
  '<a>&amp;</a>',
  '9'.repeat(400),
  '-0.0000001',
  '1e400',
];
const HOSTILE_NUMBERS = [0, -1, 2 ** 31, 2 ** 53 + 1, -(2 ** 63), 1e308, 0.5, 1e20];

/**
 * Uniform random choices from one 32-bit seed (mulberry32): fast-check draws the seed of each
 * document from FUZZ_SEED, and the document's choices are uniform (fast-check's own arbitraries
 * lean towards small values, which would make every document tiny and mostly garbage).
 */
export class Gen {
  constructor(private state: number) {}

  /** A float in [0, 1). */
  next(): number {
    let t = (this.state = (this.state + 0x6d2b79f5) | 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [0, max]. */
  int(max: number): number {
    return Math.floor(this.next() * (max + 1));
  }

  /** `length` up to `maxLength` characters: printable ASCII, or (`any`) any code point. */
  string(maxLength: number, any = false): string {
    const out: string[] = [];
    for (let n = this.int(maxLength); n > 0; n--)
      out.push(
        String.fromCodePoint(any ? this.int(this.chance(0.7) ? 0x7f : 0x10ffff) : 0x20 + this.int(0x5e)),
      );
    return out.join('');
  }

  /** True with probability `p`. */
  chance(p: number): boolean {
    return this.next() < p;
  }
}

/** A value at random from `items`. */
function pick<T>(g: Gen, items: readonly T[]): T {
  return items[g.int(items.length - 1)];
}

/** True with probability `p`. */
function chance(g: Gen, p: number): boolean {
  return g.chance(p);
}

/**
 * A JS value for input type `type`: fitting, or (when `hostile`) sometimes of the wrong type,
 * null, huge, out of range or with unknown fields.
 */
function inputValue(g: Gen, type: GraphQLInputType, ids: string[], hostile: boolean, depth = 0): unknown {
  if (hostile && chance(g, 0.12))
    return pick(g, [null, ...HOSTILE_STRINGS, ...HOSTILE_NUMBERS, true, [], {}]);
  const t = getNullableType(type) as GraphQLInputType;
  if (isListType(t)) {
    if (depth > 3) return [];
    return Array.from({ length: g.int(3) }, () => inputValue(g, t.ofType, ids, hostile, depth + 1));
  }
  if (isEnumType(t))
    return pick(g, [...t.getValues().map((v) => v.name), ...(hostile ? ['NOT_A_VALUE'] : [])]);
  if (isInputObjectType(t)) {
    if (depth > 3) return {};
    const out: Record<string, unknown> = {};
    for (const f of Object.values(t.getFields()))
      if (isNonNullType(f.type) || chance(g, 0.5))
        out[f.name] = inputValue(g, f.type, ids, hostile, depth + 1);
    if (hostile && chance(g, 0.05)) out.unknownField = 1;
    return out;
  }
  switch ((t as GraphQLNamedType).name) {
    case 'Int':
    case 'SafeInt':
      return pick(g, hostile ? [1, 2, 20, 500, 501, ...HOSTILE_NUMBERS] : [1, 2, 5, 20]);
    case 'Float':
      return (g.next() - 0.5) * 10 ** g.int(12);
    case 'Boolean':
      return chance(g, 0.5);
    case 'MSISDN':
      return pick(g, [...MSISDNS, '12', '+353871234567']);
    case 'Decimal':
      return pick(g, ['0.10', '1', '-1.00', '1.1234567', '1e3', '0']);
    case 'DateTime':
      return pick(g, ['2026-01-01T00:00:00Z', '2026-13-45T99:00:00Z', 'yesterday']);
    case 'ID':
      return ids.length && chance(g, 0.6) ? pick(g, ids) : pick(g, ['1', 'bm90LWEtbm9kZQ', 'UGxhbjox']);
    default:
      return chance(g, 0.5) ? g.string(20) : g.string(40, true);
  }
}

/** `value` as a GraphQL literal; a string naming a value of enum `type` is written bare. */
function literal(value: unknown, type: GraphQLInputType | undefined): string {
  const t = type && (getNullableType(type) as GraphQLInputType);
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value))
    return `[${value.map((v) => literal(v, t && isListType(t) ? t.ofType : undefined)).join(', ')}]`;
  if (typeof value === 'string' && t && isEnumType(t) && /^[_A-Za-z][_0-9A-Za-z]*$/.test(value)) return value;
  if (typeof value === 'object') {
    const fields = t && isInputObjectType(t) ? t.getFields() : {};
    const entries = Object.entries(value as Record<string, unknown>);
    return `{${entries.map(([k, v]) => `${k}: ${literal(v, fields[k]?.type)}`).join(', ')}}`;
  }
  return typeof value === 'string' ? JSON.stringify(value) : String(value);
}

/**
 * Builds one document: its text, variables and fragment definitions. A `hostile` document also
 * gets wrong-typed values, missing and unknown arguments, fields and fragments, fragment cycles
 * and conflicting aliases; the others are valid but for the values a scalar may refuse.
 */
class DocumentBuilder {
  readonly fragments: string[] = [];
  readonly variableDefs: string[] = [];
  readonly variables: Record<string, unknown> = {};
  private aliases = 0;

  constructor(
    private readonly g: Gen,
    private readonly schema: GraphQLSchema,
    private readonly ids: string[],
    private readonly hostile: boolean,
  ) {}

  /** True with probability `p` in a hostile document, never in another. */
  private odd(p: number): boolean {
    return this.hostile && chance(this.g, p);
  }

  /** The arguments of `field`, as `(a: …, b: $v1)`, or ''. */
  args(field: GraphQLField<unknown, unknown>): string {
    const { g } = this;
    const parts: string[] = [];
    for (const arg of field.args as readonly GraphQLArgument[]) {
      if (!isNonNullType(arg.type) && !chance(g, 0.4)) continue;
      if (isNonNullType(arg.type) && this.odd(0.03)) continue; // a required argument missing
      const value = inputValue(g, arg.type, this.ids, this.hostile);
      if (chance(g, 0.3)) {
        const name = `v${this.variableDefs.length}`;
        this.variableDefs.push(`$${name}: ${this.odd(0.05) ? 'Int' : String(arg.type)}`);
        if (!this.odd(0.05)) this.variables[name] = value;
        parts.push(`${arg.name}: $${name}`);
      } else parts.push(`${arg.name}: ${literal(value, arg.type)}`);
    }
    if (this.odd(0.03)) parts.push('notAnArgument: 1');
    return parts.length ? `(${parts.join(', ')})` : '';
  }

  /** A selection set on composite `type` at `depth` (1 = the root's fields). */
  selection(type: GraphQLNamedType, depth: number): string {
    const { g } = this;
    const items: string[] = [];
    const count = 1 + g.int(3);
    const fields = isObjectType(type) || isInterfaceType(type) ? Object.values(type.getFields()) : [];
    for (let i = 0; i < count; i++) {
      const roll = g.int(99);
      if (roll < 8 || fields.length === 0) items.push('__typename');
      else if (roll < 16 && isAbstractType(type)) {
        const impl = pick(g, this.schema.getPossibleTypes(type));
        items.push(`... on ${impl.name} { ${this.selection(impl, depth)} }`);
      } else if (roll < 22) items.push(`...${this.fragment(type, depth)}`);
      else if (roll < 24 && this.hostile)
        items.push(pick(g, ['...Unknown', '...on NotAType { x }', 'notAField']));
      else items.push(this.field(pick(g, fields), depth));
    }
    return items.join(' ');
  }

  /** One field with arguments, maybe an alias, and a selection when its type needs one. */
  field(field: GraphQLField<unknown, unknown>, depth: number): string {
    const { g } = this;
    let alias = '';
    if (this.odd(0.2)) alias = `${pick(g, ['a', 'b', 'same'])}: `;
    else if (chance(g, 0.2)) alias = `a${this.aliases++}: `;
    const named = getNamedType(field.type);
    let sub = '';
    if (!isLeafType(named)) {
      if (this.odd(0.02))
        sub = ''; // a missing selection
      else if (depth >= MAX_DEPTH) sub = ' { __typename }';
      else sub = ` { ${this.selection(named, depth + 1)} }`;
    } else if (this.odd(0.02)) sub = ' { x }';
    return `${alias}${field.name}${this.args(field)}${sub}`;
  }

  /** A named fragment on `type` (sometimes spreading itself, a cycle); returns its name. */
  fragment(type: GraphQLNamedType, depth: number): string {
    const name = `F${this.fragments.length}`;
    this.fragments.push('');
    const index = this.fragments.length - 1;
    const self = this.odd(0.2) ? ` ...${name}` : '';
    this.fragments[index] = `fragment ${name} on ${type.name} { ${this.selection(type, depth)}${self} }`;
    return name;
  }

  /** The whole document of operation `kind` on `root`. */
  document(kind: 'query' | 'mutation' | 'subscription', root: GraphQLObjectType): string {
    // A valid subscription selects one root field.
    const body =
      kind === 'subscription' && !this.hostile
        ? this.field(pick(this.g, Object.values(root.getFields())), 1)
        : this.selection(root, 1);
    const vars = this.variableDefs.length ? `(${this.variableDefs.join(', ')})` : '';
    return [`${kind} Fuzz${vars} { ${body} }`, ...this.fragments].join('\n');
  }
}

/** Text that is not a GraphQL document, or one that overreaches. */
function garbage(g: Gen): string {
  return pick(g, [
    () => g.string(200, true),
    () => `{ ${'a: __typename '.repeat(g.int(3000))}}`,
    () => `query { ${'planDefinitions { '.repeat(1 + g.int(2500))}`,
    () => `{ __typename ${'... on Query { '.repeat(2000)}__typename${' }'.repeat(2000)} }`,
    () => `query ($a: ${'['.repeat(1500)}Int${']'.repeat(1500)}) { __typename }`,
    () => `{ __typename } fragment A on Query { ...B } fragment B on Query { ...A }`,
    () => '"""unterminated',
    () => '# only a comment',
    () => '',
  ])();
}

/** One random request: mostly a schema document, sometimes garbage or an odd envelope. */
export function fuzzRequest(g: Gen, schema: GraphQLSchema, ids: string[]): FuzzRequest {
  const roll = g.int(99);
  let query: string;
  let variables: Record<string, unknown> | undefined;
  let kind: FuzzRequest['kind'] = 'garbage';
  if (roll < 10) query = garbage(g);
  else {
    const kinds = [
      ['query', schema.getQueryType()],
      ['mutation', schema.getMutationType()],
      ['subscription', schema.getSubscriptionType()],
    ] as const;
    const [operation, root] = roll < 70 ? kinds[0] : roll < 92 ? kinds[1] : kinds[2];
    const hostile = chance(g, 0.5);
    kind = hostile ? 'hostile' : 'valid';
    const builder = new DocumentBuilder(g, schema, ids, hostile);
    query = builder.document(operation, root!);
    variables = builder.variables;
  }
  const body: Record<string, unknown> = { query, variables };
  const envelope = g.int(99);
  if (envelope < 3) body.extensions = { persistedQuery: { version: 1, sha256Hash: 'abc' } };
  else if (envelope < 5) body.extensions = { persistedQuery: { version: 2, sha256Hash: 'abc' } };
  else if (envelope < 7) body.operationName = 'NotThere';
  else if (envelope < 9) body.variables = pick(g, ['x', 1, [1], null]);
  else if (envelope < 10)
    return { kind: 'garbage', method: 'POST', body, raw: JSON.stringify(body).slice(0, -3) };
  else if (envelope < 14 && query.length < 4000) return { kind, method: 'GET', body: { query } };
  return { kind, method: 'POST', body };
}

/** Every string under an `id` key of a response's data (ids to reuse as arguments). */
export function collectIds(value: unknown, out: Set<string>): void {
  if (Array.isArray(value)) for (const v of value) collectIds(v, out);
  else if (value && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) {
      if (k === 'id' && typeof v === 'string') out.add(v);
      else collectIds(v, out);
    }
}
