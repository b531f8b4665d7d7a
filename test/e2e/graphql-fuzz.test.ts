import fc from 'fast-check';
import {
  GraphQLArgument,
  GraphQLField,
  GraphQLInputType,
  GraphQLNamedType,
  GraphQLObjectType,
  GraphQLSchema,
  buildClientSchema,
  getIntrospectionQuery,
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
import { demoAuthorization, demoDataset } from '../../src/dataset/demo';
import { MAX_DOCUMENT_NESTING } from '../../src/graphql/document-limits';
import { SUBSCRIPTION_OVER_HTTP } from '../../src/http/apollo';
import { createLogger } from '../../src/logger';
import { TestApp, startTestApp } from '../helpers/app';

/**
 * A seeded, schema-aware fuzz of `/graphql` (docs/contract.md §7): documents generated from the
 * live schema (introspected here) with random selections to depth 4, arguments of the right
 * type, the wrong type, null, huge, unicode and control characters, literal or as variables,
 * repeated aliases, inline and named fragments (cyclic and unknown ones too), mutations and
 * subscriptions, and garbage (truncated documents, deep nesting, random text, persisted-query
 * extensions), sent by the demo dataset's all-permission client. Every answer is a 4xx or a
 * 2xx, or a documented 503/504; no body holds a stack frame, SQL, a driver's or the runtime's own
 * message or an `INTERNAL_SERVER_ERROR`; nothing is logged at error level; `/healthz` answers
 * within 1 s afterwards.
 *
 * FUZZ_SEED (default 34) and FUZZ_RUNS (default 300) choose the documents; a failure names the
 * seed and the request.
 */
const SEED = Number(process.env.FUZZ_SEED ?? 34);
const RUNS = Number(process.env.FUZZ_RUNS ?? 300);
const MAX_DEPTH = 4;

/** What no answer may contain: stack frames, SQL and drivers, the runtime's own messages. */
const LEAKS: readonly RegExp[] = [
  /at .*\.(js|ts):\d+/,
  /SELECT |INSERT |UPDATE |sqlite|mysql|\bER_[A-Z]/,
  /Maximum call stack/,
  /Cannot read properties/,
  /INTERNAL_SERVER_ERROR/,
];

/** One HTTP request to `/graphql`. */
interface FuzzRequest {
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
const HOSTILE_NUMBERS = [0, -1, 2 ** 31, 2 ** 53 + 1, -(2 ** 63), 1e308, 0.5, 99999999999999999999];

/**
 * Uniform random choices from one 32-bit seed (mulberry32): fast-check draws the seed of each
 * document from FUZZ_SEED, and the document's choices are uniform (fast-check's own arbitraries
 * lean towards small values, which would make every document tiny and mostly garbage).
 */
class Gen {
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
function fuzzRequest(g: Gen, schema: GraphQLSchema, ids: string[]): FuzzRequest {
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
function collectIds(value: unknown, out: Set<string>): void {
  if (Array.isArray(value)) for (const v of value) collectIds(v, out);
  else if (value && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) {
      if (k === 'id' && typeof v === 'string') out.add(v);
      else collectIds(v, out);
    }
}

/** A GraphQL response body as these tests read it. */
interface GqlBody {
  data?: unknown;
  errors: { message: string; extensions: Record<string, unknown> }[];
}

describe('schema-aware GraphQL fuzz (docs/contract.md §7)', () => {
  let app: TestApp;
  let schema: GraphQLSchema;
  const errorLogs: string[] = [];
  const authorization = demoAuthorization();

  beforeAll(async () => {
    const logger = createLogger('warn', {
      write: (line: string) => {
        if ((JSON.parse(line) as { level: number }).level >= 50) errorLogs.push(line);
      },
    });
    app = await startTestApp({ dataset: demoDataset(), logger });
    const res = await fetch(`${app.url}/graphql`, {
      method: 'POST',
      headers: { authorization, 'content-type': 'application/json' },
      body: JSON.stringify({ query: getIntrospectionQuery() }),
    });
    schema = buildClientSchema(((await res.json()) as { data: never }).data);
  }, 60_000);
  afterAll(() => app?.close());

  /** POSTs `body` to `/graphql` as the demo client. */
  const post = async (body: unknown): Promise<{ status: number; json: GqlBody; text: string }> => {
    const res = await fetch(`${app.url}/graphql`, {
      method: 'POST',
      headers: { authorization, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, json: JSON.parse(text) as GqlBody, text };
  };

  it('a fragment cycle and an unknown fragment are validation errors, not a crash of the depth rule', async () => {
    const cycle = await post({
      query:
        'query { planDefinitions { edges { node { ...A } } } } fragment A on PlanDefinition { name ...A }',
    });
    expect(cycle.status).toBe(400);
    expect(cycle.json.errors[0]).toMatchObject({
      message: 'Cannot spread fragment "A" within itself.',
      extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
    });
    const mutual = await post({
      query: '{ ...A } fragment A on Query { __typename ...B } fragment B on Query { ...A }',
    });
    expect(mutual.status).toBe(400);
    expect(mutual.json.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
    const unknown = await post({ query: 'query { planDefinitions { edges { node { ...B } } } }' });
    expect(unknown.status).toBe(400);
    expect(unknown.json.errors[0]).toMatchObject({
      message: 'Unknown fragment "B".',
      extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
    });
  });

  it('fragments spread twice at every level are walked once each (no exponential validation)', async () => {
    const n = 30;
    const fragments = Array.from(
      { length: n },
      (_, i) => `fragment F${i} on Query { __typename ...F${i + 1} ...F${i + 1} }`,
    );
    const started = Date.now();
    const res = await post({
      query: `{ ...F0 } ${fragments.join(' ')} fragment F${n} on Query { __typename }`,
    });
    expect(Date.now() - started).toBeLessThan(2000);
    expect(res.status).toBe(400);
    expect(res.json.errors[0].extensions.code).toBe('QUERY_TOO_COMPLEX');
  });

  it('the depth limit still allows leaves 12 levels below the root fields and refuses 13', async () => {
    /** `{ location { infoList { location { … name } } } }` with its leaf `levels` below `location`. */
    const chain = (levels: number): string => {
      let q = 'name';
      for (let i = levels - 1; i >= 1; i--) q = i % 2 ? `infoList { ${q} }` : `location { ${q} }`;
      return `{ location(name: "x") { ${q} } }`;
    };
    // Allowed by the depth rule (then refused for its cost: 500 infos per level).
    const ok = await post({ query: chain(12) });
    expect(ok.json.errors[0].extensions.code).toBe('QUERY_TOO_COMPLEX');
    const tooDeep = await post({ query: chain(13) });
    expect(tooDeep.status).toBe(400);
    expect(tooDeep.json.errors).toEqual([
      expect.objectContaining({
        message: "'' exceeds maximum operation depth of 12",
        extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
      }),
    ]);
    // Fragments add no level; a fragment spread in two places is measured where it is deepest.
    const viaFragment = await post({
      query: `query Deep { location(name: "x") { ...L } } fragment L on Location { name ${chain(12).slice(2, -2).replace('location(name: "x")', 'infoList')} }`,
    });
    expect(viaFragment.json.errors[0].message).toBe("'Deep' exceeds maximum operation depth of 12");
  });

  it('a document nested deeper than the bound is refused before parsing, within the token limit', async () => {
    const deep = `{ __typename ${'... on Query { '.repeat(2000)}__typename${' }'.repeat(2000)} }`;
    const res = await post({ query: deep });
    expect(res.status).toBe(400);
    expect(res.json.errors[0]).toMatchObject({
      extensions: { code: 'QUERY_TOO_COMPLEX', maxNesting: MAX_DOCUMENT_NESTING },
    });
    const list = await post({
      query: `query ($a: ${'['.repeat(1500)}Int${']'.repeat(1500)}) { __typename }`,
    });
    expect(list.json.errors[0].extensions.code).toBe('QUERY_TOO_COMPLEX');
    const within = `{ __typename ${'... on Query { '.repeat(90)}__typename${' }'.repeat(90)} }`;
    expect((await post({ query: within })).json).toEqual({ data: { __typename: 'Query' } });
    // Braces inside strings and comments do not count.
    const quoted = `# ${'{'.repeat(200)}\n{ __type(name: "${'{'.repeat(200)}") { name } }`;
    const answer = await post({ query: quoted });
    expect(answer.status).toBe(200);
  });

  it('a subscription over HTTP is refused with 400 BAD_REQUEST before it runs', async () => {
    const res = await post({ query: 'subscription { balanceChanged(msisdn: "353871234567") { msisdn } }' });
    expect(res.status).toBe(400);
    expect(res.json).toEqual({
      errors: [{ message: SUBSCRIPTION_OVER_HTTP, extensions: { code: 'BAD_REQUEST' } }],
    });
  });

  it("Apollo's persisted-query refusals keep their message, status and a code, unlogged", async () => {
    const before = errorLogs.length;
    const sha = await post({
      query: '{ __typename }',
      extensions: { persistedQuery: { version: 1, sha256Hash: 'abc' } },
    });
    expect(sha.status).toBe(400);
    expect(sha.json.errors[0]).toEqual({
      message: 'provided sha does not match query',
      extensions: { code: 'BAD_REQUEST' },
    });
    const version = await post({
      query: '{ __typename }',
      extensions: { persistedQuery: { version: 2, sha256Hash: 'abc' } },
    });
    expect(version.status).toBe(400);
    expect(version.json.errors[0]).toEqual({
      message: 'Unsupported persisted query version',
      extensions: { code: 'BAD_REQUEST' },
    });
    // The automatic persisted-query protocol: an unknown hash asks the client to send the query.
    const unknown = await post({ extensions: { persistedQuery: { version: 1, sha256Hash: 'abc' } } });
    expect(unknown.json.errors[0].extensions.code).toBe('PERSISTED_QUERY_NOT_FOUND');
    expect(errorLogs.length).toBe(before);
  });

  it(`answers ${RUNS} generated documents (seed ${SEED}) without a 5xx, a leak or an error log`, async () => {
    const ids = new Set<string>();
    const statuses = new Map<string, number>();
    const send = async (req: FuzzRequest): Promise<{ status: number; text: string }> => {
      const headers: Record<string, string> = { authorization };
      let url = `${app.url}/graphql`;
      let body: string | undefined;
      if (req.method === 'GET') {
        url += `?${new URLSearchParams(req.body as Record<string, string>)}`;
        headers['apollo-require-preflight'] = 'true';
      } else {
        headers['content-type'] = 'application/json';
        body = req.raw ?? JSON.stringify(req.body);
      }
      const res = await fetch(url, {
        method: req.method,
        headers,
        body,
        signal: AbortSignal.timeout(20_000),
      });
      return { status: res.status, text: await res.text() };
    };
    await fc.assert(
      fc.asyncProperty(fc.integer(), async (seed) => {
        const req = fuzzRequest(new Gen(seed), schema, [...ids]);
        const { status, text } = await send(req);
        statuses.set(`${req.kind} ${status}`, (statuses.get(`${req.kind} ${status}`) ?? 0) + 1);
        if (process.env.FUZZ_DEBUG)
          process.stdout.write(
            `${req.kind} ${status} ${text.slice(0, 200)}\n   ${JSON.stringify(req.body).slice(0, 600)}\n`,
          );
        const what = `seed ${SEED}: ${req.method} ${(req.raw ?? JSON.stringify(req.body)).slice(0, 2000)}\n→ ${status} ${text.slice(0, 2000)}`;
        const documented =
          (status === 503 && text.includes('SERVICE_UNAVAILABLE')) ||
          (status === 504 && text.includes('TIMEOUT'));
        if (status >= 500 && !documented) throw new Error(`5xx for ${what}`);
        for (const leak of LEAKS) if (leak.test(text)) throw new Error(`${leak} in the answer to ${what}`);
        if (errorLogs.length)
          throw new Error(`logged at error level: ${errorLogs[0].slice(0, 1000)}\nfor ${what}`);
        try {
          collectIds((JSON.parse(text) as { data?: unknown }).data, ids);
        } catch {
          throw new Error(`not JSON: ${what}`);
        }
      }),
      { seed: SEED, numRuns: RUNS, endOnFailure: true },
    );
    const started = Date.now();
    const health = await fetch(`${app.url}/healthz`, { signal: AbortSignal.timeout(1000) });
    expect(health.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(1000);
    // The statuses seen, for the record (`FUZZ_SEED=… npx jest test/e2e/graphql-fuzz`).
    process.stdout.write(`graphql fuzz seed ${SEED}: ${JSON.stringify(Object.fromEntries(statuses))}\n`);
  }, 600_000);
});
