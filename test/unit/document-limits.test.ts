import fc from 'fast-check';
import { buildSchema, parse, specifiedRules, validate } from 'graphql';
import depthLimit from 'graphql-depth-limit';
import {
  MAX_DOCUMENT_NESTING,
  depthLimitRule,
  documentNesting,
  nestingError,
  parseBounded,
} from '../../src/graphql/document-limits';

const schema = buildSchema(`
  type Query { node: Node, nodes: [Node], name: String }
  type Node { name: String, child: Node, children: [Node] }
`);

describe('documentNesting', () => {
  it('counts braces, parentheses and brackets together', () => {
    expect(documentNesting('')).toBe(0);
    expect(documentNesting('{ a }')).toBe(1);
    expect(documentNesting('{ a(b: [{c: 1}]) { d } }')).toBe(4);
    expect(documentNesting('{ a } { b { c } }')).toBe(2);
  });

  it('skips strings, block strings and comments, and unbalanced closers', () => {
    expect(documentNesting('{ a(s: "{{{[[[((( \\" {{{") }')).toBe(2);
    expect(documentNesting('{ a(s: """ {{{ \\""" {{{ """) }')).toBe(2);
    expect(documentNesting('# {{{{{{\n{ a }')).toBe(1);
    expect(documentNesting('}}}]]))) { a }')).toBe(1);
    // An unterminated string ends at the line end, an unterminated block string at the end.
    expect(documentNesting('{ a(s: "{{{\n{ b } ) }')).toBe(3);
    expect(documentNesting('{ """ {{{{')).toBe(1);
  });

  it('stops counting past the bound', () => {
    expect(documentNesting('{'.repeat(10_000), 5)).toBe(6);
  });

  it('refuses a document past MAX_DOCUMENT_NESTING with QUERY_TOO_COMPLEX, and parses the rest', () => {
    const at = `${'['.repeat(MAX_DOCUMENT_NESTING - 2)}`;
    const within = `query ($a: ${at}Int${at.replace(/\[/g, ']')}) { name }`;
    expect(nestingError(within)).toBeUndefined();
    expect(parseBounded(within).definitions).toHaveLength(1);
    const deeper = `{ ${'node { '.repeat(MAX_DOCUMENT_NESTING)}name${' }'.repeat(MAX_DOCUMENT_NESTING)} }`;
    expect(nestingError(deeper)?.extensions).toMatchObject({
      code: 'QUERY_TOO_COMPLEX',
      maxNesting: MAX_DOCUMENT_NESTING,
    });
    expect(() => parseBounded(deeper)).toThrow(/deeper than 100 levels/);
    expect(() => parseBounded('{ a: name '.repeat(1))).toThrow(/Syntax Error/);
  });
});

describe('depthLimitRule', () => {
  /** The depth errors of `source` (only the depth rule runs). */
  const depthErrors = (source: string, rule = depthLimitRule(3)): string[] =>
    validate(schema, parse(source), [rule]).map((e) => e.message);

  it('allows leaves `maxDepth` levels below the root fields and refuses one more', () => {
    expect(depthErrors('{ node { child { child { name } } } }')).toEqual([]);
    expect(depthErrors('query Q { node { child { child { child { name } } } } }')).toEqual([
      "'Q' exceeds maximum operation depth of 3",
    ]);
  });

  it('adds no level for fragments and does not descend introspection fields', () => {
    expect(depthErrors('{ node { ...F } } fragment F on Node { child { ... on Node { name } } }')).toEqual(
      [],
    );
    expect(
      depthErrors('{ node { ...F } } fragment F on Node { child { child { child { name } } } }'),
    ).toEqual(["'' exceeds maximum operation depth of 3"]);
    expect(depthErrors('{ __schema { types { fields { type { ofType { name } } } } } }')).toEqual([]);
  });

  it('leaves cyclic and unknown fragments to the specified rules', () => {
    const rules = [...specifiedRules, depthLimitRule(3)];
    const cycle = parse(
      '{ node { ...A } } fragment A on Node { child { ...B } } fragment B on Node { ...A }',
    );
    expect(validate(schema, cycle, rules).map((e) => e.message)).toEqual([
      'Cannot spread fragment "A" within itself via "B".',
    ]);
    const unknown = parse('{ node { ...Missing } }');
    expect(validate(schema, unknown, rules).map((e) => e.message)).toEqual(['Unknown fragment "Missing".']);
  });

  it('judges every acyclic document as graphql-depth-limit does', () => {
    // Random documents of fields, inline fragments and fragments spreading earlier ones only.
    const selection: fc.Arbitrary<string> = fc.letrec<{ sel: string }>((tie) => ({
      sel: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        fc.constant('name'),
        fc.constant('__typename'),
        tie('sel').map((s) => `child { ${s} }`),
        fc.array(tie('sel'), { minLength: 1, maxLength: 3 }).map((s) => `children { ${s.join(' ')} }`),
        tie('sel').map((s) => `... on Node { ${s} }`),
        fc.nat({ max: 2 }).map((i) => `...F${i}`),
      ),
    })).sel;
    fc.assert(
      fc.property(fc.array(selection, { minLength: 3, maxLength: 3 }), selection, (fragments, op) => {
        // F0 spreads nothing, F1 may spread F0, F2 F0 and F1 (acyclic).
        const defs = fragments.map((s, i) => {
          const body = s.replace(/\.\.\.F(\d)/g, (m, n: string) => (Number(n) < i ? m : 'name'));
          return `fragment F${i} on Node { ${body} }`;
        });
        const source = `query Q { node { ${op} } } ${defs.join(' ')}`;
        const ours = depthErrors(source).length > 0;
        const theirs = validate(schema, parse(source), [depthLimit(3)]).length > 0;
        expect(ours).toBe(theirs);
      }),
      { seed: 34, numRuns: 500 },
    );
  });
});
