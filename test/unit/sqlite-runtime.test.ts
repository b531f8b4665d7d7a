import lock from '../../package-lock.json';
import { createKnex } from '../../src/db/knex';
import { sqliteRuntimeRefusal } from '../../src/db/sqlite';

const lockedDriver = (lock as { packages: Record<string, { version?: string }> }).packages[
  'node_modules/better-sqlite3'
].version!;

describe('SQLite on a Node.js version its driver aborts on is refused (docs/operations.md)', () => {
  it.each([
    ['20.19.0', '12.11.1'],
    ['20.20.2', '12.11.1'],
    ['22.23.3', '12.11.1'],
    ['24.21.0', '13.2.0'],
  ])('Node.js %s with better-sqlite3 %s is accepted', (node, driver) => {
    expect(sqliteRuntimeRefusal(node, driver)).toBeUndefined();
  });

  it.each([
    ['23.0.0', '12.0.0'],
    ['24.21.0', '12.11.1'],
    ['26.1.0', '12.4.1'],
  ])('Node.js %s with better-sqlite3 %s is refused, naming both and the way out', (node, driver) => {
    const refusal = sqliteRuntimeRefusal(node, driver);
    expect(refusal).toContain(`Node.js ${node}`);
    expect(refusal).toContain(`better-sqlite3 ${driver}`);
    expect(refusal).toContain('DATABASE_URL=mysql://');
    expect(refusal).toContain('Node.js 20.19+ or 22');
  });

  it('the locked driver is one the refusal covers on Node.js 24', () => {
    expect(sqliteRuntimeRefusal('24.21.0', lockedDriver)).toBeDefined();
  });

  describe('createKnex', () => {
    // process.versions.node is read-only but configurable: redefined for one test, then put back.
    const running = Object.getOwnPropertyDescriptor(process.versions, 'node')!;
    const reportNode = (version: string): void => {
      Object.defineProperty(process.versions, 'node', { ...running, value: version });
    };
    afterEach(() => Object.defineProperty(process.versions, 'node', running));

    it('opens SQLite on the running Node.js', async () => {
      const db = createKnex('sqlite::memory:');
      try {
        expect(await db.raw('select 1 as one')).toEqual([{ one: 1 }]);
      } finally {
        await db.destroy();
      }
    });

    it('refuses SQLite before opening it when Node.js reports 24.21.0', () => {
      reportNode('24.21.0');
      expect(() => createKnex('sqlite::memory:')).toThrow(/cannot run on Node\.js 24\.21\.0/);
    });

    it('still opens a MySQL URL there (the driver is not SQLite)', async () => {
      reportNode('24.21.0');
      let db: ReturnType<typeof createKnex> | undefined;
      expect(() => (db = createKnex('mysql://root@127.0.0.1:1/none'))).not.toThrow();
      await db?.destroy();
    });

    it("knex's own CLI configuration (knexfile.ts) refuses SQLite there too, and loads on the running Node.js", () => {
      const load = (): { client?: unknown } => {
        let config: { client?: unknown } = {};
        jest.isolateModules(() => {
          config = require('../../knexfile') as { client?: unknown };
        });
        return config;
      };
      const url = process.env.DATABASE_URL;
      process.env.DATABASE_URL = 'sqlite::memory:';
      try {
        expect(load().client).toBeDefined();
        reportNode('24.21.0');
        expect(load).toThrow(/cannot run on Node\.js 24\.21\.0/);
      } finally {
        if (url === undefined) delete process.env.DATABASE_URL;
        else process.env.DATABASE_URL = url;
      }
    });
  });
});
