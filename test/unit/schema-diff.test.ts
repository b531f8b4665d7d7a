import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { checkSchema, findBaseline, runSchemaCheck, unreleasedSection } from '../../scripts/schema-diff';

const V1 = `
"""A donation."""
type Donation { id: String!  amount: String!  note: String }
type Query { donation(id: String!): Donation  donations(donorId: String!, first: Int = 20): [Donation!]! }
`;
/** Adds a field and an optional argument: additive. */
const ADDITIVE = V1.replace('note: String }', 'note: String  createdAt: String }').replace(
  'first: Int = 20)',
  'first: Int = 20, after: String)',
);
/** Removes Donation.amount: breaking. */
const BREAKING = V1.replace('amount: String!  ', '');

const changelog = (unreleased: string, released = '') => `# Changelog

Intro naming \`Donation.amount\` outside any release section.

## [Unreleased]
${unreleased}

## [0.1.0] - 2026-01-01
${released}
`;

describe('schema breaking-change check (CONTRACT §10)', () => {
  it('reads only the Unreleased section', () => {
    expect(unreleasedSection(changelog('### Removed\n- `A.b`', '- `C.d`'))).toContain('`A.b`');
    expect(unreleasedSection(changelog('### Removed\n- `A.b`', '- `C.d`'))).not.toContain('`C.d`');
    expect(unreleasedSection('# Changelog\n## [Unreleased]\n- `X.y`\n')).toContain('`X.y`');
    expect(unreleasedSection('# Changelog\n## [0.1.0]\n- `X.y`\n')).toBe('');
  });

  it('passes an additive (or dangerous) change with any changelog', async () => {
    const r = await checkSchema(V1, ADDITIVE, changelog(''));
    expect(r.changes.map((c) => [c.level, c.coordinate])).toEqual(
      expect.arrayContaining([
        ['NON_BREAKING', 'Donation.createdAt'],
        ['DANGEROUS', 'Query.donations.after'], // reported, never fails,
      ]),
    );
    expect(r.unannounced).toEqual([]);
  });

  it('fails a breaking change the Unreleased section does not name', async () => {
    for (const text of [
      changelog(''),
      changelog('- removed the amount field'), // prose is not a name
      changelog('- `Donation`'), // the type is not the field
      changelog('', '- `Donation.amount`'), // named under a released version only
    ]) {
      const r = await checkSchema(V1, BREAKING, text);
      expect(r.unannounced.map((c) => [c.level, c.coordinate])).toEqual([['BREAKING', 'Donation.amount']]);
    }
  });

  it('passes a breaking change the Unreleased section names as inline code', async () => {
    const r = await checkSchema(
      V1,
      BREAKING,
      changelog('### Removed\n- `Donation.amount`: use `Donation.quota`.'),
    );
    expect(r.unannounced).toEqual([]);
    expect(r.announced.map((c) => c.coordinate)).toEqual(['Donation.amount']);
  });
});

describe('runSchemaCheck on a repository', () => {
  let root: string;
  const lines: string[] = [];
  const out = (l: string) => lines.push(l);
  const write = (file: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), text);
  };
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.invalid', ...args], {
      cwd: root,
      stdio: 'ignore',
    });

  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'sg-schema-check-'));
    lines.length = 0;
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  it('uses the committed release copy when there is no tag: 1 on an unnamed breaking change, 0 once named', async () => {
    write('schema/releases/0.1.0.graphql', ADDITIVE); // an older release lies lower and is ignored
    write('schema/releases/0.0.9.graphql', BREAKING);
    write('schema/schema.graphql', BREAKING);
    write('CHANGELOG.md', changelog('### Added\n- things'));
    expect(await runSchemaCheck(root, out)).toBe(1);
    expect(lines[0]).toBe(
      'schema check: schema/schema.graphql against schema/releases/0.1.0.graphql: 3 change(s)',
    );
    expect(lines.join('\n')).toMatch(/BREAKING `Donation.amount`: .* \(NOT named in Unreleased\)/);
    write('CHANGELOG.md', changelog('### Removed\n- `Donation.amount`'));
    expect(await runSchemaCheck(root, out)).toBe(1); // Donation.createdAt and Query.donations.after removed too
    write(
      'CHANGELOG.md',
      changelog('### Removed\n- `Donation.amount`, `Donation.createdAt`, `Query.donations.after`'),
    );
    expect(await runSchemaCheck(root, out)).toBe(0);
  });

  it('prefers the schema at the highest v* tag', async () => {
    write('schema/releases/0.1.0.graphql', V1);
    write('schema/schema.graphql', ADDITIVE);
    write('CHANGELOG.md', changelog(''));
    git('init', '-q');
    git('add', '.');
    git('commit', '-qm', 'release');
    git('tag', 'v0.2.0');
    write('schema/schema.graphql', V1); // removes what 0.2.0 added
    expect(findBaseline(root).source).toBe('git tag v0.2.0');
    expect(await runSchemaCheck(root, out)).toBe(1);
    expect(lines.join('\n')).toContain('BREAKING `Donation.createdAt`');
  });

  it('answers 2 without a baseline', async () => {
    write('schema/schema.graphql', V1);
    write('CHANGELOG.md', changelog(''));
    expect(await runSchemaCheck(root, out)).toBe(2);
    expect(lines[0]).toMatch(/^schema check: no baseline/);
  });
});
