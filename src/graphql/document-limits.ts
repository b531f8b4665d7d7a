import {
  DocumentNode,
  FragmentDefinitionNode,
  GraphQLError,
  Kind,
  SelectionSetNode,
  ValidationRule,
  parse,
} from 'graphql';
import { MAX_DOCUMENT_TOKENS } from './limits';

/**
 * Bounds on the shape of a GraphQL document, checked before it runs (docs/contract.md §7,
 * docs/graphql.md "Limits"), on `/graphql` over HTTP and over WebSocket alike:
 *
 * - **Nesting**, before parsing: graphql-js parses, validates and executes recursively, so a
 *   document nested a few thousand levels deep (well within the token limit) would overflow the
 *   stack. {@link documentNesting} measures the deepest `{`/`(`/`[` nesting in one pass over the
 *   text; past {@link MAX_DOCUMENT_NESTING} the document is refused unparsed with
 *   `QUERY_TOO_COMPLEX` (HTTP 400, `extensions.maxNesting`).
 * - **Tokens**, while parsing: `MAX_DOCUMENT_TOKENS` (src/graphql/limits.ts, `GRAPHQL_PARSE_FAILED`).
 * - **Depth**, at validation: {@link depthLimitRule}, field levels below the operation. It walks
 *   every fragment once (memoized), never follows an unknown fragment or a fragment cycle (the
 *   specified rules `KnownFragmentNames` and `NoFragmentCycles` report those in the same
 *   validation pass, `GRAPHQL_VALIDATION_FAILED`), and stops descending past the limit, so no
 *   document makes it recurse without bound or walk fragments exponentially often.
 */

/**
 * Deepest nesting of braces, parentheses and brackets (together) a document may have: far above
 * what the depth limit lets a query use (12 field levels, a few inline fragments and nested
 * input objects), far below what overflows the parser's stack (about 2,000).
 */
export const MAX_DOCUMENT_NESTING = 100;

/** The code of a refused document shape (as the cost rule's, src/graphql/limits.ts). */
const TOO_COMPLEX = 'QUERY_TOO_COMPLEX';

/**
 * The deepest nesting of `{`, `(` and `[` in GraphQL source text, counted in one pass outside
 * strings, block strings and comments (an unbalanced closer counts as nothing). Stops reading
 * once the nesting passes `stopAbove` (then returns `stopAbove + 1`).
 */
export function documentNesting(source: string, stopAbove = Number.MAX_SAFE_INTEGER): number {
  let depth = 0;
  let max = 0;
  const n = source.length;
  for (let i = 0; i < n; i++) {
    const c = source.charCodeAt(i);
    if (c === 0x7b /* { */ || c === 0x28 /* ( */ || c === 0x5b /* [ */) {
      if (++depth > max) {
        max = depth;
        if (max > stopAbove) return max;
      }
    } else if (c === 0x7d /* } */ || c === 0x29 /* ) */ || c === 0x5d /* ] */) {
      if (depth > 0) depth--;
    } else if (c === 0x23 /* # */) {
      while (i + 1 < n && source[i + 1] !== '\n' && source[i + 1] !== '\r') i++;
    } else if (c === 0x22 /* " */) {
      i = source.startsWith('"""', i) ? endOfBlockString(source, i + 3) : endOfString(source, i + 1);
    }
  }
  return max;
}

/** Index of the closing `"""` of a block string whose text starts at `from` (or the last index). */
function endOfBlockString(source: string, from: number): number {
  for (let i = from; i < source.length; i++) {
    if (source[i] === '\\' && source.startsWith('"""', i + 1)) i += 3;
    else if (source.startsWith('"""', i)) return i + 2;
  }
  return source.length - 1;
}

/** Index of the closing `"` of a string whose text starts at `from` (a line end also ends it). */
function endOfString(source: string, from: number): number {
  for (let i = from; i < source.length; i++) {
    const c = source[i];
    if (c === '\\') i++;
    else if (c === '"' || c === '\n' || c === '\r') return i;
  }
  return source.length - 1;
}

/**
 * `QUERY_TOO_COMPLEX` (HTTP 400) for `source` when it nests deeper than
 * {@link MAX_DOCUMENT_NESTING}, undefined otherwise (the `http` extension is consumed by Apollo,
 * never sent).
 */
export function nestingError(source: string): GraphQLError | undefined {
  if (documentNesting(source, MAX_DOCUMENT_NESTING) <= MAX_DOCUMENT_NESTING) return undefined;
  return new GraphQLError(
    `document nests braces, parentheses and brackets deeper than ${MAX_DOCUMENT_NESTING} levels`,
    { extensions: { code: TOO_COMPLEX, maxNesting: MAX_DOCUMENT_NESTING, http: { status: 400 } } },
  );
}

/**
 * Parses `source` within the nesting and token bounds.
 * @throws GraphQLError `QUERY_TOO_COMPLEX` past {@link MAX_DOCUMENT_NESTING}; graphql-js's
 *   syntax error (the caller codes it `GRAPHQL_PARSE_FAILED`) otherwise.
 */
export function parseBounded(source: string): DocumentNode {
  const tooDeep = nestingError(source);
  if (tooDeep) throw tooDeep;
  return parse(source, { maxTokens: MAX_DOCUMENT_TOKENS });
}

/**
 * Validation rule: every operation of the document reaches at most `maxDepth` field levels
 * below its top-level fields (top-level selections are level 0; the selections of a field are one
 * level deeper; fragments and inline fragments add none; introspection fields (`__schema`, …)
 * are not descended). A deeper operation gets one error, `'<name>' exceeds maximum operation
 * depth of <maxDepth>`, reported at the operation (GRAPHQL_VALIDATION_FAILED). Unknown and
 * cyclic fragment spreads count as nothing here; the specified rules report them.
 */
export function depthLimitRule(maxDepth: number): ValidationRule {
  return (context) => {
    const document = context.getDocument();
    const fragments = new Map<string, FragmentDefinitionNode>();
    for (const d of document.definitions)
      if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
    // Deepest level (relative) of each fragment's selections; null while being measured.
    const memo = new Map<string, number | null>();
    const levels = (set: SelectionSetNode, above: number): number => {
      let deepest = 0;
      for (const s of set.selections) {
        let d = 0;
        if (s.kind === Kind.FIELD) {
          // Past the limit the exact depth no longer matters: one level more is enough to refuse.
          if (s.selectionSet && !s.name.value.startsWith('__'))
            d = above < maxDepth ? 1 + levels(s.selectionSet, above + 1) : 1;
        } else if (s.kind === Kind.INLINE_FRAGMENT) d = levels(s.selectionSet, above);
        else d = fragmentLevels(s.name.value);
        if (d > deepest) deepest = d;
        if (above + deepest > maxDepth) break;
      }
      return deepest;
    };
    const fragmentLevels = (name: string): number => {
      const known = memo.get(name);
      if (known !== undefined) return known ?? 0;
      const fragment = fragments.get(name);
      if (!fragment) return 0;
      memo.set(name, null);
      // Measured from level 0 so that the memo holds wherever the fragment is spread (exact up to
      // the limit, at least one more past it).
      const d = levels(fragment.selectionSet, 0);
      memo.set(name, d);
      return d;
    };
    for (const d of document.definitions) {
      if (d.kind !== Kind.OPERATION_DEFINITION) continue;
      if (levels(d.selectionSet, 0) > maxDepth)
        context.reportError(
          new GraphQLError(`'${d.name?.value ?? ''}' exceeds maximum operation depth of ${maxDepth}`, {
            nodes: [d],
          }),
        );
    }
    return {};
  };
}
