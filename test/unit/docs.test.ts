import fs from 'node:fs';
import path from 'node:path';
import { buildOpenApi } from '../../src/rest/openapi';

/** The repository's own docs stay self-contained and true. */

const ROOT = path.join(__dirname, '../..');
// Every page a reader can reach: the README, bench/README.md and every page under docs/.
const DOCS = [
  'README.md',
  'bench/README.md',
  ...fs
    .readdirSync(path.join(__dirname, '../../docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');

describe('README and docs/', () => {
  it('point at nothing outside the repository', () => {
    for (const file of DOCS)
      expect({ file, shared: read(file).match(/\.\.\/shared|interface-spec\.md/g) }).toEqual({
        file,
        shared: null,
      });
  });

  it('every relative link resolves to a file in the repository (and every #anchor to a heading)', () => {
    const broken: string[] = [];
    for (const file of DOCS) {
      const text = read(file);
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/i.test(target)) continue;
        const [rel, anchor] = target.split('#');
        const resolved = rel ? path.normalize(path.join(path.dirname(file), rel)) : file;
        if (resolved.startsWith('..') || !fs.existsSync(path.join(ROOT, resolved))) {
          broken.push(`${file}: ${target}`);
          continue;
        }
        if (anchor && resolved.endsWith('.md')) {
          const slugs = [...read(resolved).matchAll(/^#+ (.+)$/gm)].map(([, h]) =>
            h
              .toLowerCase()
              .replace(/[^\w\s-]/g, '')
              .replace(/\s/g, '-'),
          );
          if (!slugs.includes(anchor)) broken.push(`${file}: ${target}`);
        }
      }
    }
    expect(broken).toEqual([]);
  });

  it('docs/contract.md lists every path of the OpenAPI document', () => {
    const contract = read('docs/contract.md');
    const missing: string[] = [];
    for (const [p, ops] of Object.entries(buildOpenApi().paths))
      for (const method of Object.keys(ops))
        if (!contract.includes(`\`${method.toUpperCase()} ${p}\``))
          missing.push(`${method.toUpperCase()} ${p}`);
    expect(missing).toEqual([]);
  });

  it('the README links the OpenAPI document and the dataset JSON Schema', () => {
    const readme = read('README.md');
    expect(readme).toContain('](schema/openapi.json)');
    expect(readme).toContain('](schema/dataset.schema.json)');
    expect(readme).toContain('](docs/contract.md)');
  });
});
