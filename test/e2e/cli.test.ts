import { SpawnSyncReturns, execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { findClientByUsername } from '../../src/auth/client.store';
import { verifyPassword } from '../../src/auth/password';
import { createKnex } from '../../src/db/knex';
import { printGatewaySchema } from '../../src/graphql/schema';

/** The CLI and the server as an operator runs them: the built files, in a child process. */
const ROOT = path.join(__dirname, '../..');
const BIN = path.join(ROOT, 'dist/src/cli/bin.js');
const MAIN = path.join(ROOT, 'dist/src/main.js');

let tmp: string;

function run(
  file: string,
  args: string[],
  opts: { env?: Record<string, string>; input?: string; cwd?: string } = {},
): SpawnSyncReturns<string> {
  return spawnSync(process.execPath, [file, ...args], {
    cwd: opts.cwd ?? tmp,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? tmp, LOG_LEVEL: 'silent', ...opts.env },
    input: opts.input ?? '',
    encoding: 'utf8',
    timeout: 60_000,
  });
}

/** Asserts a failure reported as exactly one `prefix: ...` line on stderr with exit status 1, no stack. */
function expectOneLineFailure(r: SpawnSyncReturns<string>, pattern: RegExp): void {
  expect(r.status).toBe(1);
  expect(r.stderr).toMatch(pattern);
  expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
  expect(r.stderr).not.toMatch(/^\s+at /m);
}

// dist/ is built once by the Jest global setup (test/helpers/global-setup.js).

beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sg-cli-'));
});
afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('CLI output through npm', () => {
  it('`npm run -s cli -- schema` prints the SDL and nothing else', async () => {
    const out = execFileSync('npm', ['run', '-s', 'cli', '--', 'schema'], { cwd: ROOT, encoding: 'utf8' });
    expect(out).toBe(await printGatewaySchema());
  }, 120_000);
});

describe('client create: the password never comes from a flag', () => {
  const dbUrl = () => `sqlite:${path.join(tmp, 'gw.sqlite3')}`;
  const create = [
    'client',
    'create',
    '--tenant',
    'acme',
    '--username',
    'portal',
    '--permissions',
    'TOKEN_ISSUE',
  ];

  async function storedPassword(password: string): Promise<boolean | undefined> {
    const db = createKnex(dbUrl());
    try {
      const c = await findClientByUsername(db, 'portal');
      return c && verifyPassword(password, c.passwordHash);
    } catch {
      return undefined; // no tables: nothing was created
    } finally {
      await db.destroy();
    }
  }

  it('reads GATEWAY_CLIENT_PASSWORD', async () => {
    const r = run(BIN, create, { env: { DATABASE_URL: dbUrl(), GATEWAY_CLIENT_PASSWORD: 'from-the-env-1' } });
    expect([r.status, r.stderr]).toEqual([0, '']);
    expect(r.stdout).toBe('created client portal in tenant acme: TOKEN_ISSUE\n');
    expect(await storedPassword('from-the-env-1')).toBe(true);
  });

  it('reads the first line of piped stdin', async () => {
    const r = run(BIN, create, { env: { DATABASE_URL: dbUrl() }, input: 'piped password 2\nignored\n' });
    expect([r.status, r.stderr]).toEqual([0, '']);
    expect(await storedPassword('piped password 2')).toBe(true);
  });

  it('refuses --password, saying why, and creates nothing', async () => {
    const r = run(BIN, [...create, '--password', 's3cret-pass'], {
      env: { DATABASE_URL: dbUrl(), GATEWAY_CLIENT_PASSWORD: 'from-the-env-1' },
    });
    expectOneLineFailure(r, /^error: --password is not accepted: .*shell history.*GATEWAY_CLIENT_PASSWORD/);
    expect(await storedPassword('s3cret-pass')).toBeFalsy();
  });

  it('refuses a short password and creates nothing', async () => {
    const r = run(BIN, create, { env: { DATABASE_URL: dbUrl() }, input: 'short\n' });
    expectOneLineFailure(r, /^error: password: at least 8 characters$/m);
    expect(await storedPassword('short')).toBeFalsy();
  });
});

describe('start-up errors are one line', () => {
  it('a SQLite path whose directory does not exist is an error; nothing is created', () => {
    const url = `sqlite:${path.join(tmp, 'wrong/dir/x.db')}`;
    for (const [file, args, prefix] of [
      [BIN, ['migrate'], 'error'],
      [MAIN, [], 'fatal'],
    ] as const) {
      const r = run(file, [...args], { env: { DATABASE_URL: url, PORT: '0' } });
      expectOneLineFailure(r, new RegExp(`^${prefix}: DATABASE_URL ${url}: directory .* does not exist`));
    }
    expect(fs.existsSync(path.join(tmp, 'wrong'))).toBe(false);
  });

  it('the default sqlite:var/gateway.sqlite3 creates var/ in the working directory', () => {
    const r = run(BIN, ['migrate']);
    expect([r.status, r.stderr]).toEqual([0, '']);
    expect(fs.existsSync(path.join(tmp, 'var/gateway.sqlite3'))).toBe(true);
  });

  it('a refused MySQL connection: one line, exit 1 (CLI and server)', () => {
    const url = 'mysql://root@127.0.0.1:1/gateway';
    expectOneLineFailure(
      run(BIN, ['migrate'], { env: { DATABASE_URL: url } }),
      /^error: connect ECONNREFUSED/,
    );
    expectOneLineFailure(
      run(MAIN, [], { env: { DATABASE_URL: url, PORT: '0' } }),
      /^fatal: connect ECONNREFUSED/,
    );
  });

  const mysql = process.env.TEST_DATABASE_URL?.startsWith('mysql://') ? it : it.skip;
  mysql('an unknown MySQL database: one line, exit 1', () => {
    const url = new URL(process.env.TEST_DATABASE_URL!);
    url.pathname = '/sg_no_such_database';
    expectOneLineFailure(
      run(MAIN, [], { env: { DATABASE_URL: url.toString(), PORT: '0' } }),
      /^fatal: Unknown database 'sg_no_such_database'$/m,
    );
  });
});
