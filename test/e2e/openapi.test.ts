import fs from 'node:fs';
import path from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';
import { printDatasetSchema } from '../../src/dataset/dataset.schema';
import { OpenApiOperation, buildOpenApi, printOpenApi } from '../../src/rest/openapi';
import { ROUTES } from '../../src/rest/routes';
import { RestRoute } from '../../src/rest/route';
import { toXml } from '../../src/rest/xml';
import { TestApp, parseXml, startTestApp } from '../helpers/app';
import { checkResponse } from '../helpers/openapi-conformance';

const ROOT = path.join(__dirname, '../..');
const committed = (file: string) => fs.readFileSync(path.join(ROOT, 'schema', file), 'utf8');

describe('schema/openapi.json (CONTRACT §8)', () => {
  it('matches the document the route table builds (run `npm run schema` after changing a row)', () => {
    expect(committed('openapi.json')).toBe(printOpenApi());
  });

  it('is a valid OpenAPI 3.1 document (@apidevtools/swagger-parser)', async () => {
    const doc = JSON.parse(committed('openapi.json'));
    await expect(SwaggerParser.validate(doc)).resolves.toMatchObject({ openapi: '3.1.0' });
  });

  it('has one operation per REST row, and a row without doc fails the build', () => {
    const doc = buildOpenApi();
    for (const r of ROUTES) {
      const op = doc.paths[r.path.replace(/:(\w+)/g, '{$1}')]?.[r.method.toLowerCase()];
      expect({ row: `${r.method} ${r.path}`, operationId: op?.operationId }).toEqual({
        row: `${r.method} ${r.path}`,
        operationId: r.doc.operationId,
      });
    }
    const undocumented = { ...ROUTES[0], doc: undefined } as unknown as RestRoute<never>;
    expect(() => buildOpenApi([undocumented])).toThrow('REST row POST /token has no doc');
  });

  it('every example in the document matches its own schema, as JSON and as XML', () => {
    const doc = buildOpenApi();
    let checked = 0;
    for (const [p, ops] of Object.entries(doc.paths))
      for (const [method, op] of Object.entries(ops) as [string, OpenApiOperation][])
        for (const [status, r] of Object.entries(op.responses))
          for (const [type, media] of Object.entries(r.content ?? {})) {
            const example = (media as { example?: unknown }).example;
            if (example === undefined) continue;
            const text = typeof example === 'string' ? example : JSON.stringify(example);
            const concrete = p.replace(/\{(\w+)\}/g, 'x');
            expect(() => checkResponse(method, concrete, Number(status), type, text, parseXml)).not.toThrow();
            checked++;
          }
    expect(checked).toBeGreaterThan(40);
  });
});

describe('response conformance checker (run on every TestApp.request)', () => {
  const group = {
    id: 'g',
    ownerId: '353871234567',
    name: 'n',
    created: '2019-08-07T15:01:58.000+0000',
    updated: '2019-08-07T15:01:58.000+0000',
  };

  it('accepts a documented status and body, in JSON and in XML', () => {
    const check = (type: string, text: string) =>
      checkResponse('POST', '/sqs/api/groups', 201, type, text, parseXml);
    expect(() => check('application/json', JSON.stringify(group))).not.toThrow();
    expect(() => check('application/xml; charset=utf-8', toXml(group))).not.toThrow();
  });

  it('rejects an undocumented status, a body off the schema, and an undocumented media type', () => {
    expect(() =>
      checkResponse('POST', '/sqs/api/groups', 202, 'application/json', JSON.stringify(group), parseXml),
    ).toThrow('status not documented');
    const { ownerId: _, ...noOwner } = group;
    expect(() =>
      checkResponse('POST', '/sqs/api/groups', 201, 'application/json', JSON.stringify(noOwner), parseXml),
    ).toThrow('does not match');
    expect(() =>
      checkResponse(
        'POST',
        '/sqs/api/groups',
        201,
        'application/xml',
        toXml({ ...group, ownerId: 'x' }),
        parseXml,
      ),
    ).toThrow('does not match');
    expect(() => checkResponse('POST', '/sqs/api/groups', 201, 'text/html', '<p/>', parseXml)).toThrow(
      'media type text/html not documented',
    );
    expect(() => checkResponse('DELETE', '/sqs/api/groups/g', 204, null, 'x', parseXml)).toThrow(
      'without a body',
    );
  });
});

describe('GET /openapi.json', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(() => app.close());

  it('serves the committed document without credentials, as JSON whatever accept says', async () => {
    const res = await app.request('GET', '/openapi.json', { headers: { accept: 'application/xml' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.text).toBe(committed('openapi.json'));
  });
});

describe('schema/dataset.schema.json (CONTRACT §9)', () => {
  it('matches DATASET_SCHEMA (run `npm run schema` after changing the dataset format)', () => {
    expect(committed('dataset.schema.json')).toBe(printDatasetSchema());
  });
});
