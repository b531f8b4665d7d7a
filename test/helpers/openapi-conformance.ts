import Ajv2020, { ValidateFunction } from 'ajv/dist/2020';
import { JsonSchema } from '../../src/rest/schemas';
import { OpenApiDocument, buildOpenApi } from '../../src/rest/openapi';

/**
 * Checks responses against the OpenAPI document the code builds (schema/openapi.json): every
 * response of a documented path and method must have a documented status, a documented media
 * type, and a body matching that status's schema (XML bodies read back by the contract's mapping
 * rule first). TestApp.request runs it on every response, so every e2e test's traffic is checked.
 */

interface Media {
  schema: JsonSchema;
  validate: ValidateFunction;
}

interface Operation {
  method: string;
  path: string;
  pattern: RegExp;
  /** Literal segments count: a literal path wins over a templated one. */
  literal: number;
  responses: Record<string, { content?: Record<string, Media> }>;
}

const COMPONENTS_ID = 'components.json';

function build(doc: OpenApiDocument) {
  const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
  const components = (doc.components as { schemas: Record<string, JsonSchema> }).schemas;
  const rewrite = (value: unknown, prefix: string): JsonSchema =>
    JSON.parse(JSON.stringify(value).replaceAll('"#/components/schemas/', `"${prefix}#/schemas/`));
  ajv.addSchema({ $id: COMPONENTS_ID, schemas: rewrite(components, '') });

  const operations: Operation[] = [];
  for (const [path, ops] of Object.entries(doc.paths)) {
    const pattern = new RegExp(
      '^' +
        path
          .split(/\{[^}]+\}/)
          .map((s) => s.replace(/[.*+?^$()|[\]\\]/g, '\\$&'))
          .join('[^/]+') +
        '$',
    );
    for (const [method, op] of Object.entries(ops)) {
      const responses: Operation['responses'] = {};
      for (const [status, r] of Object.entries(op.responses)) {
        responses[status] = r.content
          ? {
              content: Object.fromEntries(
                Object.entries(r.content).map(([type, m]) => [
                  type,
                  { schema: m.schema, validate: ajv.compile(rewrite(m.schema, COMPONENTS_ID)) },
                ]),
              ),
            }
          : {};
      }
      operations.push({
        method: method.toUpperCase(),
        path,
        pattern,
        literal: path.replace(/\{[^}]+\}/g, '').length,
        responses,
      });
    }
  }
  operations.sort((a, b) => b.literal - a.literal);
  return { operations, components };
}

type Json = unknown;

/**
 * Reads a parsed XML `<response>` (all text, arrays only where an element repeats, '' for an empty
 * element) back into the JSON it was written from, guided by the schema (CONTRACT §1 XML mapping).
 */
function fromXml(schema: JsonSchema, value: Json, components: Record<string, JsonSchema>): Json {
  const ref = schema.$ref as string | undefined;
  if (ref)
    return fromXml({ ...components[ref.split('/').pop()!], ...schema, $ref: undefined }, value, components);
  const branches = (schema.oneOf ?? schema.anyOf) as JsonSchema[] | undefined;
  if (branches) {
    const deref = (s: JsonSchema) => (s.$ref ? components[(s.$ref as string).split('/').pop()!] : s);
    const keys = value && typeof value === 'object' ? Object.keys(value) : [];
    const fits = (s: JsonSchema) => {
      const b = deref(s);
      const props = Object.keys((b.properties as object) ?? {});
      return (
        keys.every((k) => props.includes(k)) &&
        ((b.required as string[]) ?? []).every((k) => keys.includes(k) || isArraySchema(b, k))
      );
    };
    return fromXml(deref(branches.find(fits) ?? branches[0]), value, components);
  }
  const types = [schema.type ?? (schema.const !== undefined ? typeof schema.const : [])].flat();
  if (value === '' && types.includes('null')) return null;
  if (types.includes('array')) {
    if (value === undefined || value === '') return [];
    return [value].flat().map((v) => fromXml(schema.items as JsonSchema, v, components));
  }
  if (types.includes('object')) {
    const obj = value === '' ? {} : value;
    if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) return obj;
    const props = (schema.properties ?? {}) as Record<string, JsonSchema>;
    const out: Record<string, Json> = {};
    for (const [k, v] of Object.entries(obj)) out[k] = props[k] ? fromXml(props[k], v, components) : v;
    for (const k of (schema.required as string[]) ?? [])
      if (!(k in out) && isArraySchema(schema, k)) out[k] = [];
    return out;
  }
  if (typeof value === 'string') {
    if ((types.includes('integer') || types.includes('number')) && /^-?\d+(\.\d+)?$/.test(value))
      return Number(value);
    if (types.includes('boolean') && (value === 'true' || value === 'false')) return value === 'true';
  }
  return value;

  function isArraySchema(s: JsonSchema, key: string): boolean {
    const p = (s.properties as Record<string, JsonSchema> | undefined)?.[key];
    return !!p && [p.type].flat().includes('array');
  }
}

let built: ReturnType<typeof build> | undefined;

/** Builds the validators once per test file (so no request pays for it). */
export function prepareConformance(): ReturnType<typeof build> {
  return (built ??= build(buildOpenApi()));
}

/**
 * Throws an Error describing the mismatch when a response to `method path` is not what the
 * OpenAPI document says; does nothing for paths and methods the document does not describe
 * (`/graphql`, the explorer, 404 and 405 answers). `parseXml` parses an XML body to the content
 * of its `<response>` root.
 */
export function checkResponse(
  method: string,
  url: string,
  status: number,
  contentType: string | null,
  text: string,
  parseXml: (text: string) => Record<string, unknown>,
): void {
  const { operations, components } = prepareConformance();
  const pathname = new URL(url, 'http://x').pathname;
  const op = operations.find((o) => o.method === method.toUpperCase() && o.pattern.test(pathname));
  if (!op) return;
  const where = `${method} ${pathname} (OpenAPI ${op.method} ${op.path}) answered ${status}`;
  const response = op.responses[String(status)];
  if (!response) throw new Error(`${where}: status not documented\n${text.slice(0, 500)}`);
  if (!response.content) {
    if (text !== '') throw new Error(`${where}: documented without a body, got ${text.slice(0, 200)}`);
    return;
  }
  const type = (contentType ?? '').split(';')[0].trim().toLowerCase();
  const media = response.content[type];
  if (!media)
    throw new Error(
      `${where}: media type ${type} not documented (${Object.keys(response.content).join(', ')})`,
    );
  let body: unknown;
  if (type === 'application/json') body = JSON.parse(text);
  else if (type === 'application/xml') body = fromXml(media.schema, parseXml(text), components);
  else body = text;
  if (!media.validate(body))
    throw new Error(
      `${where}: body does not match the documented schema: ${JSON.stringify(media.validate.errors)}\n${JSON.stringify(body).slice(0, 800)}`,
    );
}
