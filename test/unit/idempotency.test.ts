import { BadUserInputError } from '../../src/errors';
import { statusOf } from '../../src/rest/failure';
import { gatewaySchema } from '../../src/graphql/schema';
import { parseIdempotencyKeyHeader, requireIdempotencyKey } from '../../src/lib/idempotency-key';
import { canonicalJson, fingerprint } from '../../src/modules/idempotency/idempotency.service';
import { defineRoute } from '../../src/rest/route';
import { compileRoutes } from '../../src/rest/router';
import { SQS_ROUTES } from '../../src/rest/sqs.routes';

describe('Idempotency-Key values (IETF draft-ietf-httpapi-idempotency-key-header)', () => {
  it.each([
    ['a', 'a'],
    ['8e03978e-40d5-43e8-bc93-6894a57f9324', '8e03978e-40d5-43e8-bc93-6894a57f9324'],
    ['x'.repeat(255), 'x'.repeat(255)],
    ['!~"{}', '!~"{}'],
    ['"8e03978e"', '8e03978e'],
    ['"a\\"b\\\\c"', 'a"b\\c'],
  ])('header %j is key %j', (header, key) => {
    expect(parseIdempotencyKeyHeader(header)).toBe(key);
  });

  it.each([
    '',
    '""',
    'two words',
    '" padded "',
    'x'.repeat(256),
    `"${'x'.repeat(256)}"`,
    'tab\there',
    'cl\u00e9',
    'a, b',
  ])('header %j is refused', (header) => {
    expect(parseIdempotencyKeyHeader(header)).toBeNull();
  });

  it('an argument that is not a key is a BAD_USER_INPUT naming the argument (412 on an SQS path)', () => {
    expect(requireIdempotencyKey('k-1', 'idempotencyKey')).toBe('k-1');
    let err: unknown;
    try {
      requireIdempotencyKey('', 'idempotencyKey');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(BadUserInputError);
    expect(err).toMatchObject({
      code: 'BAD_USER_INPUT',
      fields: [{ field: 'idempotencyKey', description: 'must be 1-255 visible ASCII characters' }],
    });
    expect(statusOf(err as BadUserInputError, 'sqs')).toBe(412);
  });
});

describe('request fingerprints', () => {
  it('ignore object key order at every depth, but not array order, values or the operation', () => {
    const a = { b: 1, a: [{ y: 'x', x: null }, 2], c: { e: true, d: '1' } };
    const reordered = { c: { d: '1', e: true }, a: [{ x: null, y: 'x' }, 2], b: 1 };
    expect(canonicalJson(a)).toBe('{"a":[{"x":null,"y":"x"},2],"b":1,"c":{"d":"1","e":true}}');
    expect(fingerprint('shareQuota', reordered)).toBe(fingerprint('shareQuota', a));
    expect(fingerprint('shareQuota', a)).toMatch(/^[0-9a-f]{64}$/);
    expect(fingerprint('shareQuota', { ...a, a: [2, { y: 'x', x: null }] })).not.toBe(
      fingerprint('shareQuota', a),
    );
    expect(fingerprint('shareQuota', { ...a, b: '1' })).not.toBe(fingerprint('shareQuota', a));
    expect(fingerprint('createGroup', a)).not.toBe(fingerprint('shareQuota', a));
  });
});

describe('REST rows and Idempotency-Key', () => {
  it('every SQS POST and PUT row takes the header', () => {
    const writes = SQS_ROUTES.filter((r) => r.method === 'POST' || r.method === 'PUT');
    expect(writes.length).toBeGreaterThan(0);
    expect(writes.filter((r) => !r.idempotent).map((r) => `${r.method} ${r.path}`)).toEqual([]);
  });

  it('an idempotent row whose operation does not declare $idempotencyKey stops start-up', async () => {
    const row = defineRoute<never>({
      method: 'POST',
      path: '/sqs/api/groups',
      doc: { operationId: 'test', tag: 'test', summary: 'test', responses: {} },
      style: 'sqs',
      tenantHeader: 'required',
      idempotent: true,
      document: 'mutation($input: GroupInput!) { createGroup(input: $input) { group { id } } }',
      variables: ({ body }) => ({ input: body }),
      result: () => ({ status: 201, body: null }),
    });
    expect(() => compileRoutes([row], schema)).toThrow(
      'REST row POST /sqs/api/groups: an idempotent row must declare $idempotencyKey',
    );
  });

  let schema: Awaited<ReturnType<typeof gatewaySchema>>;
  beforeAll(async () => {
    schema = await gatewaySchema();
  });
});
