import 'reflect-metadata';
import { buildSubgraphSchema } from '@apollo/subgraph';
import {
  ASTNode,
  GraphQLObjectType,
  GraphQLSchema,
  Kind,
  lexicographicSortSchema,
  parse,
  print,
  printSchema,
  visit,
} from 'graphql';
import { ENTITY_REFERENCES } from '../../src/graphql/federation';
import { gatewaySchema } from '../../src/graphql/schema';

/** The federation's own definitions that only its directive definitions use. */
const DIRECTIVE_ONLY_TYPES = new Set(['federation__FieldSet', 'link__Import', 'link__Purpose']);

/** `schema` printed sorted, without descriptions, directive definitions and their types. */
function shape(schema: GraphQLSchema): string {
  const doc = parse(printSchema(lexicographicSortSchema(schema)));
  const stripped = visit(doc, {
    enter(node: ASTNode) {
      if (node.kind === Kind.DIRECTIVE_DEFINITION) return null;
      if ('name' in node && node.name && DIRECTIVE_ONLY_TYPES.has(node.name.value)) return null;
      if ('description' in node && node.description) return { ...node, description: undefined };
      return undefined;
    },
  });
  return print(stripped);
}

describe('the federation subgraph (src/graphql/federation.ts)', () => {
  let schema: GraphQLSchema;
  let sdl: string;
  beforeAll(async () => {
    schema = await gatewaySchema();
    const query = schema.getQueryType()!;
    sdl = (
      query.getFields()._service.resolve!(undefined, {}, undefined, undefined as never) as { sdl: string }
    ).sdl;
  });

  it("has the fields and types @apollo/subgraph's buildSubgraphSchema builds from its SDL", () => {
    // The official build validates the SDL (a bad @key fails here) and adds the federation parts.
    const official = buildSubgraphSchema({ typeDefs: parse(sdl) });
    expect(shape(schema)).toContain('_entities(representations: [_Any!]!): [_Entity]!');
    expect(shape(schema)).toBe(shape(official));
  });

  it('declares on each entity class the @key its reference resolver reads', () => {
    for (const [typename, ref] of Object.entries(ENTITY_REFERENCES)) {
      const type = schema.getType(typename) as GraphQLObjectType;
      const keys = (type.astNode?.directives ?? [])
        .filter((d) => d.name.value === 'key')
        .map((d) => print(d.arguments![0].value));
      expect([typename, keys]).toEqual([typename, [`"${ref.key}"`]]);
    }
  });

  it('prints the SDL after the federation @link', () => {
    expect(sdl).toMatch(/^extend schema @link\(url: "https:\/\/specs\.apollo\.dev\/federation\/v2\.3"/);
    expect(sdl).not.toContain('_entities');
  });
});
