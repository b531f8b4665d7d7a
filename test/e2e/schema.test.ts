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
      if (!['Query', 'Mutation', 'Subscription'].includes(type.name) && !type.description)
        missing.push(type.name);
      for (const field of Object.values(type.getFields())) {
        if (!field.description) missing.push(`${type.name}.${field.name}`);
        for (const arg of field.args)
          if (!arg.description) missing.push(`${type.name}.${field.name}(${arg.name})`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('takes typed inputs: no argument is JSONObject, and every input field is described', async () => {
    const { buildSchema, getNamedType, isInputObjectType, isObjectType } = await import('graphql');
    const schema = buildSchema(await printGatewaySchema());
    const untyped: string[] = [];
    const undescribed: string[] = [];
    for (const type of Object.values(schema.getTypeMap())) {
      if (type.name.startsWith('__')) continue;
      if (isInputObjectType(type))
        for (const f of Object.values(type.getFields()))
          if (!f.description) undescribed.push(`${type.name}.${f.name}`);
      if (!isObjectType(type)) continue;
      for (const field of Object.values(type.getFields()))
        for (const arg of field.args)
          if (getNamedType(arg.type).name === 'JSONObject')
            untyped.push(`${type.name}.${field.name}(${arg.name})`);
    }
    expect(untyped).toEqual([]);
    expect(undescribed).toEqual([]);
    for (const name of [
      'DonationInput',
      'RecurringDonationInput',
      'GroupInput',
      'GroupMemberInput',
      'GroupUpdateInput',
    ])
      expect(isInputObjectType(schema.getType(name))).toBe(true);
  });
});
