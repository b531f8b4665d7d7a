import { ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  IntrospectionQuery,
  buildClientSchema,
  getIntrospectionQuery,
  lexicographicSortSchema,
  printSchema,
} from 'graphql';
import { gatewaySchema } from '../../src/graphql/schema';

/**
 * Start-up time: `node dist/src/main.js` runs the esbuild bundle (dist/gateway.js, built
 * without keepNames). A class esbuild renamed would change a GraphQL type's default name, so
 * the bundled server's schema must be the source's, type for type and description for
 * description (SQLite, demo data).
 */
describe('the bundled server (dist/gateway.js)', () => {
  let proc: ChildProcess | undefined;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sg-bundle-e2e-'));
  afterAll(() => {
    proc?.kill('SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('serves the same GraphQL schema as the compiled sources', async () => {
    expect(fs.existsSync(path.join(__dirname, '../../dist/gateway.js'))).toBe(true);
    const port = 20000 + (process.pid % 5000);
    proc = spawn(process.execPath, [path.join(__dirname, '../../dist/src/main.js')], {
      env: {
        ...process.env,
        DATABASE_URL: `sqlite:${path.join(dir, 'g.sqlite3')}`,
        PORT: String(port),
        HOST: '127.0.0.1',
        DEMO_DATA: 'true',
        NODE_ENV: 'development',
        LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    await new Promise<void>((resolve, reject) => {
      proc!.stdout!.on('data', (d: Buffer) => d.toString().includes('listening') && resolve());
      proc!.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
    });
    const res = await fetch(`http://127.0.0.1:${port}/graphql`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Basic ${Buffer.from('demo:demo-password').toString('base64')}`,
      },
      body: JSON.stringify({
        query: getIntrospectionQuery({
          specifiedByUrl: true,
          descriptions: true,
          inputValueDeprecation: true,
        }),
      }),
    });
    const { data } = (await res.json()) as { data: IntrospectionQuery };
    const served = printSchema(lexicographicSortSchema(buildClientSchema(data)));
    const source = printSchema(lexicographicSortSchema(await gatewaySchema()));
    // Introspection carries no directives on fields; both sides are compared without them.
    const plain = (sdl: string) => sdl.replace(/ @(deprecated|oneOf)\b(\([^)]*\))?/g, '');
    expect(plain(served)).toBe(plain(source));
    expect(served).toContain('type TokenIntrospection');
  }, 60_000);
});
