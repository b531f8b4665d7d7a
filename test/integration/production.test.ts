import http from 'node:http';
import { Authenticator } from '../../src/auth/authenticate';
import { loadConfig } from '../../src/config';
import { importDataset } from '../../src/dataset/import';
import { demoDataset } from '../../src/dataset/demo';
import { createLogger } from '../../src/logger';
import { hashPassword } from '../../src/auth/password';
import {
  RunningGateway,
  UnsafeStartError,
  demoPasswordCheckOf,
  prepareDatabase,
  serve,
} from '../../src/server';
import { countTenants } from '../../src/modules/tenants/tenant.store';
import { systemClock } from '../../src/lib/clock';
import { TestDb, createTestDb } from '../helpers/db';
import { baseDataset, basic } from '../helpers/fixtures';

/** Safe production defaults and one scrypt per credential in flight, on the real database. */

const silent = createLogger('silent');
const configFor = (tdb: TestDb, env: Record<string, string>) => ({
  ...loadConfig({ LOG_LEVEL: 'silent', PORT: '0', HOST: '127.0.0.1', ...env }),
  databaseUrl: tdb.url,
});

describe('DEMO_DATA and production', () => {
  let tdb: TestDb;
  beforeEach(async () => {
    tdb = await createTestDb({ migrate: false });
  });
  afterEach(() => tdb.destroy());

  it('DEMO_DATA defaults on, off with NODE_ENV=production, and can be set either way', () => {
    expect(loadConfig({}).demoData).toBe(true);
    expect(loadConfig({ NODE_ENV: 'production' }).demoData).toBe(false);
    expect(loadConfig({ NODE_ENV: 'production', DEMO_DATA: 'true' }).demoData).toBe(true);
    expect(loadConfig({ DEMO_DATA: 'false' }).demoData).toBe(false);
  });

  it('production leaves an empty database empty (no demo client with every permission)', async () => {
    await prepareDatabase(configFor(tdb, { NODE_ENV: 'production' }), silent);
    expect(await countTenants(tdb.db)).toBe(0);
  });

  it('production refuses to start while a client has a published demo password', async () => {
    await prepareDatabase(configFor(tdb, { DEMO_DATA: 'false' }), silent);
    await importDataset(tdb.db, demoDataset(), systemClock);
    await expect(prepareDatabase(configFor(tdb, { NODE_ENV: 'production' }), silent)).rejects.toThrow(
      UnsafeStartError,
    );
    await expect(prepareDatabase(configFor(tdb, { NODE_ENV: 'production' }), silent)).rejects.toThrow(
      /demo, globex-portal/,
    );
  });

  it('a production start records the hashes it found clean and later starts run scrypt only for new or changed ones', async () => {
    await prepareDatabase(configFor(tdb, { DEMO_DATA: 'false' }), silent);
    await importDataset(tdb.db, baseDataset(), systemClock);
    const clients = async () =>
      (await tdb.db('api_clients').select('username', 'password_hash', 'demo_password_check')).sort((a, b) =>
        a.username.localeCompare(b.username),
      );
    const n = (await clients()).length;
    expect(n).toBeGreaterThan(1);
    expect((await clients()).every((c) => c.demo_password_check === null)).toBe(true);
    // The check's log line says how many clients it ran scrypt for.
    const checked = async (start: (logger: ReturnType<typeof createLogger>) => Promise<unknown>) => {
      const lines: string[] = [];
      const logger = createLogger('info', { write: (l: string) => lines.push(l) });
      await start(logger);
      return lines.map((l) => JSON.parse(l)).filter((l) => 'checked' in l);
    };

    // First production start: every client checked against the demo passwords, then recorded.
    expect(await checked((l) => prepareDatabase(configFor(tdb, { NODE_ENV: 'production' }), l))).toEqual([
      expect.objectContaining({ clients: n, checked: n }),
    ]);
    for (const c of await clients()) expect(c.demo_password_check).toBe(demoPasswordCheckOf(c.password_hash));

    // Nothing changed: no client checked again, by prepareDatabase or by serve.
    expect(await checked((l) => prepareDatabase(configFor(tdb, { NODE_ENV: 'production' }), l))).toEqual([
      expect.objectContaining({ clients: n, checked: 0 }),
    ]);
    const servedChecks = await checked(async (l) =>
      (await serve(configFor(tdb, { NODE_ENV: 'production' }), l)).shutdown('test'),
    );
    expect(servedChecks).toEqual([expect.objectContaining({ clients: n, checked: 0 })]);

    // One client's password set to a demo password behind the gateway's back: that client alone
    // is checked again, and the start is refused; its old fingerprint stays as it was.
    const [victim] = await clients();
    await tdb
      .db('api_clients')
      .where({ username: victim.username })
      .update({ password_hash: await hashPassword('demo-password') });
    let refused: unknown;
    expect(
      await checked((l) =>
        prepareDatabase(configFor(tdb, { NODE_ENV: 'production' }), l).catch((err) => (refused = err)),
      ),
    ).toEqual([expect.objectContaining({ clients: n, checked: 1 })]);
    expect(refused).toBeInstanceOf(UnsafeStartError);
    expect(String(refused)).toContain(`API client(s) ${victim.username} use a published demo password`);
    expect(
      (await tdb.db('api_clients').where({ username: victim.username }).first()).demo_password_check,
    ).toBe(victim.demo_password_check);
  });

  it('serve refuses in production too (its check runs while the app loads) and listens on nothing', async () => {
    await prepareDatabase(configFor(tdb, { DEMO_DATA: 'false' }), silent);
    await importDataset(tdb.db, demoDataset(), systemClock);
    const listening = jest.spyOn(http.Server.prototype, 'listen');
    try {
      await expect(serve(configFor(tdb, { NODE_ENV: 'production' }), silent)).rejects.toThrow(
        /refusing to start in production: API client\(s\) demo, globex-portal/,
      );
      expect(listening).not.toHaveBeenCalled();
    } finally {
      listening.mockRestore();
    }
  });

  describe('what the explorer page pre-fills', () => {
    let gw: RunningGateway | undefined;
    afterEach(async () => {
      await gw?.shutdown('test');
      gw = undefined;
    });
    const page = async (g: RunningGateway) => {
      const port = (g.server.address() as { port: number }).port;
      return (await fetch(`http://127.0.0.1:${port}/graphql`, { headers: { accept: 'text/html' } })).text();
    };
    const demoHeader = `Basic ${Buffer.from('demo:demo-password').toString('base64')}`;

    it('the demo credentials with demo data on', async () => {
      gw = await serve(configFor(tdb, { GRAPHQL_EXPLORER: 'sandbox' }), silent);
      expect(await page(gw)).toContain(demoHeader);
    });

    it('nothing with DEMO_DATA=false, even when the demo client exists', async () => {
      await prepareDatabase(configFor(tdb, {}), silent); // loads the demo data
      gw = await serve(configFor(tdb, { DEMO_DATA: 'false', GRAPHQL_EXPLORER: 'sandbox' }), silent);
      expect(await page(gw)).not.toContain(demoHeader);
    });
  });
});

describe('credential checks share one scrypt computation', () => {
  let tdb: TestDb;
  beforeAll(async () => {
    tdb = await createTestDb();
    await importDataset(tdb.db, baseDataset(), systemClock);
  });
  afterAll(() => tdb.destroy());

  it('32 concurrent checks of the same credentials on a cold cache run scrypt once', async () => {
    const auth = new Authenticator(tdb.db);
    const results = await Promise.all(
      Array.from({ length: 32 }, () => auth.authenticate({ authorization: basic('admin') })),
    );
    expect(results.every((r) => r.status === 'ok')).toBe(true);
    expect(auth.verifications).toBe(1);
  });

  it('32 concurrent wrong passwords run scrypt once and all fail', async () => {
    const auth = new Authenticator(tdb.db);
    const results = await Promise.all(
      Array.from({ length: 32 }, () => auth.authenticate({ authorization: basic('admin', 'wrong') })),
    );
    expect(results.every((r) => r.status === 'invalid')).toBe(true);
    expect(auth.verifications).toBe(1);
  });
});
