import { parse } from 'graphql';
import { parseBasic } from '../../src/auth/basic';
import { hashPassword, verifyPassword } from '../../src/auth/password';
import { parsePermissions } from '../../src/auth/permissions';
import { isIntrospectionOnly } from '../../src/graphql/credentials-plugin';

const b64 = (s: string) => Buffer.from(s).toString('base64');

describe('parseBasic', () => {
  it('reads credentials, scheme in any case, passwords with colons', () => {
    expect(parseBasic(`Basic ${b64('u:p')}`)).toEqual({ username: 'u', password: 'p' });
    expect(parseBasic(`BASIC ${b64('u:p:q')}`)).toEqual({ username: 'u', password: 'p:q' });
  });
  it('distinguishes absent from invalid', () => {
    expect(parseBasic(undefined)).toBeNull();
    expect(parseBasic('')).toBeNull();
    for (const bad of ['Bearer abc', 'Basic', `Basic ${b64('nocolon')}`, `Basic ${b64(':p')}`, 'Basic !!!']) {
      expect(parseBasic(bad)).toBe('invalid');
    }
  });
});

describe('password hashing', () => {
  it('verifies the right password only, with a fresh salt each time', async () => {
    const h1 = await hashPassword('s3cret-pass');
    const h2 = await hashPassword('s3cret-pass');
    expect(h1).not.toBe(h2);
    expect(h1).toMatch(/^scrypt\$16384\$8\$1\$/);
    expect(await verifyPassword('s3cret-pass', h1)).toBe(true);
    expect(await verifyPassword('s3cret-pasS', h1)).toBe(false);
    expect(await verifyPassword('s3cret-pass', 'garbage')).toBe(false);
  });
});

describe('parsePermissions', () => {
  it('parses, trims, dedupes and sorts; rejects unknown names', () => {
    expect(parsePermissions(' TOKEN_ISSUE,ADMIN,,TOKEN_ISSUE ')).toEqual(['ADMIN', 'TOKEN_ISSUE']);
    expect(() => parsePermissions('TOKEN_ISSUE,ROOT')).toThrow('unknown permission: ROOT');
  });
});

describe('isIntrospectionOnly', () => {
  const check = (q: string) => {
    const doc = parse(q);
    const op = doc.definitions.find((d) => d.kind === 'OperationDefinition');
    return isIntrospectionOnly(doc, op as never);
  };
  it('accepts pure schema introspection, through fragments', () => {
    expect(check('{ __schema { queryType { name } } }')).toBe(true);
    expect(check('query { __type(name: "Query") { name } __typename }')).toBe(true);
    expect(check('query { ...F } fragment F on Query { __schema { types { name } } }')).toBe(true);
  });
  it('rejects anything that touches data', () => {
    expect(check('{ __schema { queryType { name } } introspectToken(token: "x") { active } }')).toBe(false);
    expect(check('query { ...F } fragment F on Query { introspectToken(token: "x") { active } }')).toBe(
      false,
    );
    expect(check('mutation { __typename }')).toBe(false);
  });
});
