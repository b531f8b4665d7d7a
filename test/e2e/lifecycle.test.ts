import { ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { TestApp, startTestApp } from '../helpers/app';
import { basic } from '../helpers/fixtures';
import { waitFor } from '../helpers/wait';

/**
 * docs/contract.md §8 "When things fail": probes are never shed and shed requests are counted;
 * SIGTERM drains in-flight requests and exits 0.
 */

/**
 * Starts a POST whose body is held back: the request is in flight at the server until
 * `finish()` sends the rest. Resolves the response status and body.
 */
function slowPost(
  url: string,
  pathName: string,
  headers: Record<string, string>,
  body: string,
): { finish(): void; done: Promise<{ status: number; text: string }>; sent: Promise<void> } {
  const u = new URL(pathName, url);
  const buf = Buffer.from(body);
  let req!: http.ClientRequest;
  const done = new Promise<{ status: number; text: string }>((resolve, reject) => {
    req = http.request(
      u,
      {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json', 'content-length': String(buf.length) },
        agent: false,
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode!, text }));
      },
    );
    req.on('error', reject);
  });
  const sent = new Promise<void>((resolve) => req.write(buf.subarray(0, 5), () => resolve()));
  return { finish: () => req.end(buf.subarray(5)), done, sent };
}

const TOKEN_BODY = JSON.stringify({ grant_type: 'client_credentials', client_id: '353871234567' });

describe('probes and metrics are never shed (MAX_INFLIGHT)', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ env: { MAX_INFLIGHT: '2' } });
  });
  afterAll(() => app.close());

  it('with MAX_INFLIGHT requests in flight: probes 200, the next request 503 with retry-after, and it is counted', async () => {
    const held = [0, 1].map(() =>
      slowPost(app.url, '/token', { authorization: basic('admin'), accept: 'application/json' }, TOKEN_BODY),
    );
    await waitFor(() => app.app.inflight() === 2, { what: 'the two held requests in flight at the gateway' });
    for (const probe of ['/healthz', '/readyz', '/metrics'])
      expect((await app.request('GET', probe)).status).toBe(200);
    const rest = await app.request('GET', '/pcc/pcrf/locations', {
      as: 'admin',
      json: true,
      headers: { permissions: 'PCRF_LOCATION_READ_PERMISSION' },
    });
    expect(rest.status).toBe(503);
    expect(rest.headers.get('retry-after')).toBe('1');
    expect(rest.json()).toEqual({ errorCode: 1, message: 'service overloaded, retry later' });
    // /graphql, served by exact path from the entry middleware as the REST rows, is admitted
    // there too, and told in GraphQL's own form.
    const graphql = await app.request('POST', '/graphql', {
      as: 'admin',
      json: true,
      body: { query: '{ __typename }' },
    });
    expect(graphql.status).toBe(503);
    expect(graphql.headers.get('retry-after')).toBe('1');
    expect(graphql.json()).toEqual({
      errors: [
        {
          message: 'service overloaded, retry later',
          extensions: { code: 'SERVICE_UNAVAILABLE', retryAfterSeconds: 1 },
        },
      ],
    });
    // A portal link (a subscriber's browser) gets the portal's page.
    const portal = await app.request('GET', '/portal/some-link-token?lang=pt');
    expect(portal.status).toBe(503);
    expect(portal.headers.get('retry-after')).toBe('1');
    expect(portal.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(portal.text).toContain('O serviço está ocupado');
    expect(portal.text).not.toContain('some-link-token');
    const metrics = (await app.request('GET', '/metrics')).text;
    expect(metrics).toMatch(/^http_requests_shed_total 3$/m);
    for (const h of held) h.finish();
    for (const h of held) expect((await h.done).status).toBe(201);
  });
});

describe('graceful shutdown of the built server (node dist/src/main.js)', () => {
  let dir: string;
  let child: ChildProcess | undefined;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sg-life-'));
  });
  afterEach(() => {
    child?.kill('SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('SIGTERM lets in-flight requests complete, refuses new connections, logs it and exits 0', async () => {
    const main = path.join(__dirname, '../../dist/src/main.js');
    const proc = spawn(process.execPath, [main], {
      cwd: dir,
      env: {
        PATH: process.env.PATH ?? '',
        DATABASE_URL: `sqlite:${path.join(dir, 'gw.sqlite3')}`,
        HOST: '127.0.0.1',
        PORT: '0',
        LOG_LEVEL: 'info',
        SHUTDOWN_TIMEOUT_MS: '10000',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = proc;
    let out = '';
    proc.stdout!.on('data', (c: Buffer) => (out += c.toString()));
    proc.stderr!.on('data', (c: Buffer) => (out += c.toString()));
    const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
    const [, port] = await waitFor(() => /listening on 127\.0\.0\.1:(\d+)/.exec(out), {
      what: 'the server to start',
      timeoutMs: 20_000,
      detail: () => out,
    });
    const url = `http://127.0.0.1:${port}`;
    const demo = `Basic ${Buffer.from('demo:demo-password').toString('base64')}`;
    const held = [0, 1, 2].map(() =>
      slowPost(url, '/token', { authorization: demo, accept: 'application/json' }, TOKEN_BODY),
    );
    // The held requests are in flight: their headers were sent, and then a probe sent on a new
    // connection was answered (the server had read the held requests' bytes, which came first).
    await Promise.all(held.map((h) => h.sent));
    await new Promise<void>((resolve, reject) =>
      http
        .get(`${url}/healthz`, { agent: false }, (res) => res.resume().on('end', resolve))
        .on('error', reject),
    );
    proc.kill('SIGTERM');
    // The server stops listening in the same step as it logs this line.
    await waitFor(() => out.includes('shutting down: draining in-flight requests'), {
      what: 'the server to start draining',
    });
    // Still draining: a new connection is refused, the held requests are still being served.
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
    for (const h of held) h.finish();
    for (const h of held) {
      const res = await h.done;
      expect(res.status).toBe(201);
      expect(JSON.parse(res.text)).toMatchObject({ token_type: 'bearer', expires_in: 3600 });
    }
    expect(await exited).toBe(0);
    expect(out).toMatch(/shutting down: draining in-flight requests/);
    expect(out).toMatch(/shut down cleanly/);
  }, 40_000);
});
