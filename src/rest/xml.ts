import { XMLBuilder } from 'fast-xml-parser';

const builder = new XMLBuilder({
  ignoreAttributes: true,
  processEntities: true,
  suppressEmptyNode: false,
  format: false,
});

// Characters XML 1.0 cannot carry even as references: C0 controls other than tab/LF/CR,
// lone surrogates, U+FFFE and U+FFFF. They are replaced by U+FFFD so the document stays well-formed.
const FORBIDDEN =
  // eslint-disable-next-line no-control-regex
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Characters {@link xmlText} must change: the five XML specials, and any {@link FORBIDDEN} candidate. */
// eslint-disable-next-line no-control-regex
const SPECIAL = /[&<>'"\u0000-\u0008\u000B\u000C\u000E-\u001F\uD800-\uDFFF\uFFFE\uFFFF]/;

/** The prologue and root every XML body starts with (CONTRACT §1). */
export const XML_PROLOGUE = '<?xml version="1.0" encoding="UTF-8"?><response>';

/**
 * A string as the text of an element, exactly as {@link toXml} writes it: characters XML 1.0
 * forbids become U+FFFD, then `&`, `>`, `<`, `'` and `"` become `&amp;`, `&gt;`, `&lt;`,
 * `&apos;` and `&quot;` (the XMLBuilder's entity table, in its order). For writers that stream
 * a fixed shape without building the object tree (the full location list, where the tree would
 * cost more than the answer itself).
 */
export function xmlText(s: string): string {
  if (!SPECIAL.test(s)) return s;
  return s
    .replace(FORBIDDEN, '\uFFFD')
    .replace(/&/g, '&amp;')
    .replace(/>/g, '&gt;')
    .replace(/</g, '&lt;')
    .replace(/'/g, '&apos;')
    .replace(/"/g, '&quot;');
}

/** A number as the text of an element, exactly as {@link toXml} writes it (plain decimal). */
export function plainNumber(n: number): string {
  if (!Number.isFinite(n)) return '';
  if (Number.isInteger(n)) return BigInt(n).toString();
  const s = String(n);
  return s.includes('e') ? n.toFixed(20).replace(/0+$/, '') : s;
}

/**
 * The element text of a scalar other than a string, as both writers put it: null and undefined
 * empty, numbers in plain decimal, booleans and bigints as `String` does; undefined for strings,
 * arrays and objects.
 */
function scalarText(value: unknown): string | undefined {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return plainNumber(value);
  if (typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  return undefined;
}

function prepare(value: unknown): unknown {
  if (typeof value === 'string') return value.replace(FORBIDDEN, '\uFFFD');
  const scalar = scalarText(value);
  if (scalar !== undefined) return scalar;
  if (Array.isArray(value)) return value.map(prepare);
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.length === 0) return '';
    const out: Record<string, unknown> = {};
    for (const [k, v] of entries) out[k] = prepare(v);
    return out;
  }
  return String(value);
}

/** A key the flat writer writes as an element name as it is (every key of the REST bodies). */
const PLAIN_NAME = /^[A-Za-z_][A-Za-z0-9_.-]*$/;

/**
 * A body whose values are all scalars (string, number, boolean, bigint, null; most REST answers:
 * introspection, ratings, errors) written straight to text, byte for byte as the XMLBuilder
 * writes it (the builder's object tree costs more than the answer itself;
 * test/unit/xml.test.ts compares the two). Undefined for any other body (the builder writes it).
 */
function flatXml(body: Record<string, unknown>): string | undefined {
  let out = XML_PROLOGUE;
  for (const key of Object.keys(body)) {
    if (!PLAIN_NAME.test(key)) return undefined;
    const value = body[key];
    const text = typeof value === 'string' ? xmlText(value) : scalarText(value);
    if (text === undefined) return undefined;
    out += `<${key}>${text}</${key}>`;
  }
  return `${out}</response>`;
}

/**
 * Writes a response body as XML (CONTRACT §1 "XML mapping"): declaration, root `<response>`,
 * one child element per key in key order, one repeated element per array item, an empty
 * element for null, `true`/`false`, numbers in plain decimal, text escaped. Characters XML 1.0
 * forbids are replaced by U+FFFD, so the output is well-formed whatever the strings hold.
 * Through fast-xml-parser's XMLBuilder, except a body of scalars only (see flatXml).
 */
export function toXml(body: Record<string, unknown>): string {
  return (
    flatXml(body) ?? `<?xml version="1.0" encoding="UTF-8"?>${builder.build({ response: prepare(body) })}`
  );
}
