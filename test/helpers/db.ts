import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import knexFactory, { Knex } from 'knex';
import { createKnex } from '../../src/db/knex';
import { migrateLatest } from '../../src/db/migrations';

/** A throwaway database for one test file: SQLite file by default, MariaDB when TEST_DATABASE_URL is mysql://. */
export interface TestDb {
  db: Knex;
  url: string;
  dialect: 'sqlite' | 'mysql';
  destroy(): Promise<void>;
}

/** Creates an empty database (migrated unless `migrate: false`). */
export async function createTestDb(opts: { migrate?: boolean } = {}): Promise<TestDb> {
  const base = process.env.TEST_DATABASE_URL;
  let url: string;
  let drop: () => Promise<void>;
  if (base && base.startsWith('mysql://')) {
    const name = `sg_test_${randomBytes(6).toString('hex')}`;
    const server = new URL(base);
    const admin = knexFactory({
      client: 'mysql2',
      connection: {
        host: server.hostname,
        port: Number(server.port || 3306),
        user: decodeURIComponent(server.username),
        password: decodeURIComponent(server.password),
      },
      pool: { min: 0, max: 1 },
    });
    await admin.raw(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`);
    server.pathname = `/${name}`;
    url = server.toString();
    drop = async () => {
      await admin.raw(`DROP DATABASE IF EXISTS \`${name}\``);
      await admin.destroy();
    };
  } else {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sg-test-'));
    url = `sqlite:${path.join(dir, 'test.sqlite3')}`;
    drop = async () => fs.rmSync(dir, { recursive: true, force: true });
  }
  const db = createKnex(url);
  if (opts.migrate !== false) await migrateLatest(db);
  return {
    db,
    url,
    dialect: url.startsWith('mysql') ? 'mysql' : 'sqlite',
    destroy: async () => {
      await db.destroy();
      await drop();
    },
  };
}

/** Another connection pool to `of`'s database, as a second gateway instance has; destroying it leaves the database. */
export function reopenTestDb(of: TestDb): TestDb {
  const db = createKnex(of.url);
  return { db, url: of.url, dialect: of.dialect, destroy: () => db.destroy() };
}

/** Every row of every business table, ordered, for "nothing changed" assertions. */
export async function dumpTables(db: Knex, tables: string[]): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const t of tables) out[t] = (await db(t).select('*').orderBy('id')).map((r) => ({ ...r }));
  return out;
}

/**
 * Creates the probe table `name` of the transaction tests (`id` integer primary key, `n` integer
 * not null) and answers a reader of its rows as `[id, n]` pairs in `id` order.
 */
export async function createProbeTable(db: Knex, name: string): Promise<() => Promise<number[][]>> {
  await db.schema.createTable(name, (tb) => {
    tb.integer('id').primary();
    tb.integer('n').notNullable();
  });
  return async () => (await db(name).orderBy('id')).map((r) => [Number(r.id), Number(r.n)]);
}
