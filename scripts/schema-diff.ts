import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Change, CriticalityLevel, diff } from '@graphql-inspector/core';
import { buildSchema } from 'graphql';
import semver from 'semver';

/**
 * Breaking-change check of the GraphQL schema (CONTRACT §10), `npm run schema:check`.
 *
 * Baseline: `schema/schema.graphql` as of the latest release, i.e. the file at the highest
 * `v<semver>` git tag; when the repository has no such tag (or the tag lacks the file), the
 * committed copy `schema/releases/<version>.graphql` with the highest version.
 *
 * A change graphql-inspector rates BREAKING is allowed only when the `## [Unreleased]` section of
 * CHANGELOG.md names it: the section (up to the next `## ` heading) contains the change's schema
 * coordinate as inline code, exactly as this script prints it, e.g. `` `Query.donations` `` or
 * `` `Donation.amount` `` or `` `Query.groups.page` `` for an argument.
 */

/** One schema change as the check reports it. */
export interface SchemaChange {
  /** Schema coordinate (`Type`, `Type.field`, `Type.field.argument`), as graphql-inspector gives it. */
  coordinate: string;
  message: string;
  level: 'BREAKING' | 'DANGEROUS' | 'NON_BREAKING';
}

/** The outcome of comparing two schema versions against a changelog. */
export interface SchemaCheck {
  changes: SchemaChange[];
  /** Breaking changes the Unreleased section names. */
  announced: SchemaChange[];
  /** Breaking changes it does not name: the check fails when there is any. */
  unannounced: SchemaChange[];
}

/** The text of CHANGELOG.md's `## [Unreleased]` section (heading excluded); empty when absent. */
export function unreleasedSection(changelog: string): string {
  const m = /^## \[Unreleased\][^\n]*\n([\s\S]*?)(?=^## |(?![\s\S]))/m.exec(changelog);
  return m ? m[1] : '';
}

/** True when `section` names `coordinate` as inline code (`` `Query.donations` ``). */
export function namesChange(section: string, coordinate: string): boolean {
  return section.includes(`\`${coordinate}\``);
}

function level(change: Change): SchemaChange['level'] {
  const l = change.criticality.level;
  return l === CriticalityLevel.Breaking
    ? 'BREAKING'
    : l === CriticalityLevel.Dangerous
      ? 'DANGEROUS'
      : 'NON_BREAKING';
}

/**
 * Compares two SDL documents and sorts the breaking changes by whether `changelog`'s Unreleased
 * section names them.
 * @throws GraphQLError when either SDL does not parse.
 */
export async function checkSchema(
  baselineSdl: string,
  currentSdl: string,
  changelog: string,
): Promise<SchemaCheck> {
  const changes = (await diff(buildSchema(baselineSdl), buildSchema(currentSdl))).map((c) => ({
    coordinate: c.path ?? '(schema)',
    message: c.message,
    level: level(c),
  }));
  const section = unreleasedSection(changelog);
  const breaking = changes.filter((c) => c.level === 'BREAKING');
  return {
    changes,
    announced: breaking.filter((c) => namesChange(section, c.coordinate)),
    unannounced: breaking.filter((c) => !namesChange(section, c.coordinate)),
  };
}

/** Where the baseline SDL came from, and its text. */
export interface Baseline {
  source: string;
  sdl: string;
}

function git(root: string, args: string[]): string | undefined {
  try {
    return execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  } catch {
    return undefined;
  }
}

/**
 * The last release's SDL under `root`: the highest `v<semver>` tag's `schema/schema.graphql`,
 * else the highest `schema/releases/<version>.graphql`.
 * @throws Error when neither exists.
 */
export function findBaseline(root: string): Baseline {
  const tags = (git(root, ['tag', '--list', 'v*']) ?? '')
    .split('\n')
    .map((t) => t.trim())
    .filter((t) => semver.valid(t.slice(1)));
  const tag = semver.rsort(tags.map((t) => t.slice(1)))[0];
  if (tag) {
    const sdl = git(root, ['show', `v${tag}:schema/schema.graphql`]);
    if (sdl !== undefined) return { source: `git tag v${tag}`, sdl };
  }
  const dir = path.join(root, 'schema/releases');
  const versions = fs.existsSync(dir)
    ? fs
        .readdirSync(dir)
        .map((f) => /^(.+)\.graphql$/.exec(f)?.[1])
        .filter((v): v is string => !!v && !!semver.valid(v))
    : [];
  const latest = semver.rsort(versions)[0];
  if (!latest) throw new Error('no baseline: no v<semver> git tag and no schema/releases/<version>.graphql');
  const file = path.join(dir, `${latest}.graphql`);
  return { source: path.relative(root, file), sdl: fs.readFileSync(file, 'utf8') };
}

/**
 * Runs the check for the repository at `root`, writing a report to `out`; resolves with the
 * exit status: 0 (no unannounced breaking change), 1 (some), 2 (no baseline or unreadable files).
 */
export async function runSchemaCheck(root: string, out: (line: string) => void): Promise<number> {
  let baseline: Baseline;
  let current: string;
  let changelog: string;
  try {
    baseline = findBaseline(root);
    current = fs.readFileSync(path.join(root, 'schema/schema.graphql'), 'utf8');
    changelog = fs.readFileSync(path.join(root, 'CHANGELOG.md'), 'utf8');
  } catch (err) {
    out(`schema check: ${(err as Error).message}`);
    return 2;
  }
  const result = await checkSchema(baseline.sdl, current, changelog);
  out(`schema check: schema/schema.graphql against ${baseline.source}: ${result.changes.length} change(s)`);
  for (const c of result.changes) {
    const note =
      c.level !== 'BREAKING'
        ? ''
        : result.announced.includes(c)
          ? ' (named in Unreleased)'
          : ' (NOT named in Unreleased)';
    out(`  ${c.level} \`${c.coordinate}\`: ${c.message}${note}`);
  }
  if (result.unannounced.length) {
    out(
      `schema check failed: ${result.unannounced.length} breaking change(s) not named in CHANGELOG.md's [Unreleased] section; ` +
        'add each coordinate there as inline code, e.g. `' +
        result.unannounced[0].coordinate +
        '`, with what clients must do',
    );
    return 1;
  }
  return 0;
}

if (require.main === module) {
  runSchemaCheck(path.join(__dirname, '..'), (l) => process.stdout.write(`${l}\n`)).then(
    (code) => process.exit(code),
    (err: Error) => {
      process.stderr.write(`schema check: ${err.message}\n`);
      process.exit(2);
    },
  );
}
