import fs from 'node:fs';
import path from 'node:path';
import { printGatewaySchema } from '../../src/graphql/schema';

describe('schema/schema.graphql (CONTRACT §7)', () => {
  it('matches the schema the code builds (run `npm run schema` after changing types)', async () => {
    const committed = fs.readFileSync(path.join(__dirname, '../../schema/schema.graphql'), 'utf8');
    expect(committed).toBe(await printGatewaySchema());
  });

  it('describes every type and field (what a developer reads in Sandbox)', async () => {
    const sdl = await printGatewaySchema();
    const { buildSchema, isObjectType } = await import('graphql');
    const schema = buildSchema(sdl);
    const missing: string[] = [];
    for (const type of Object.values(schema.getTypeMap())) {
      if (type.name.startsWith('__') || !isObjectType(type)) continue;
      if (!['Query', 'Mutation'].includes(type.name) && !type.description) missing.push(type.name);
      for (const field of Object.values(type.getFields())) {
        if (!field.description) missing.push(`${type.name}.${field.name}`);
        for (const arg of field.args)
          if (!arg.description) missing.push(`${type.name}.${field.name}(${arg.name})`);
      }
    }
    expect(missing).toEqual([]);
  });
});
