import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Knex } from 'knex';
import { DEFAULT_DB_LIMITS, MAINTENANCE_DB_LIMITS, createKnex } from '../../src/db/knex';

// SQLITE_WAL_AUTOCHECKPOINT_PAGES (keeps p99 latency low at half of peak load): the serving connection
// copies its write-ahead log into the database file every 100 pages, in short steps, instead
// of SQLite's 1000-page default (one long stall); migrations and CLI commands keep 1000.
describe('SQLite write-ahead log checkpoints', () => {
  let dir: string;
  let file: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sg-wal-'));
    file = path.join(dir, 'db.sqlite3');
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  /** About 1.2 MB in 30 transactions: some 300 pages of log. */
  async function write(db: Knex): Promise<void> {
    await db.schema.createTable('blobs', (t) => {
      t.increments('id');
      t.text('body');
    });
    const body = 'x'.repeat(1000);
    for (let i = 0; i < 30; i++)
      await db.transaction((trx) => trx('blobs').insert(Array.from({ length: 40 }, () => ({ body }))));
  }
  const sizeOf = (f: string) => (fs.existsSync(f) ? fs.statSync(f).size : 0);

  it.each([
    ['the serving limits', 100, DEFAULT_DB_LIMITS],
    ['the maintenance limits', 1000, MAINTENANCE_DB_LIMITS],
  ])('with %s checkpoints every %d pages', async (_, pages, limits) => {
    const db = createKnex(`sqlite:${file}`, limits);
    try {
      await write(db);
      expect(await db.raw('PRAGMA wal_autocheckpoint')).toEqual([{ wal_autocheckpoint: pages }]);
      expect(await db('blobs').count({ n: '*' })).toEqual([{ n: 1200 }]);
      // Checkpointed pages are in the database file; the rest only in the log.
      if (pages === 100) expect(sizeOf(file)).toBeGreaterThan(800_000);
      else expect(sizeOf(file)).toBeLessThan(200_000);
      // The log is reused from its start after each full checkpoint, so it stays near its bound.
      if (pages === 100) expect(sizeOf(`${file}-wal`)).toBeLessThan(1_000_000);
      else expect(sizeOf(`${file}-wal`)).toBeGreaterThan(1_000_000);
    } finally {
      await db.destroy();
    }
  });

  // SQLITE_SYNCHRONOUS: FULL (every COMMIT syncs the log) unless the operator chose NORMAL;
  // `synchronous` reads 2 for FULL, 1 for NORMAL. The data written is the same either way.
  it.each([
    ['the serving defaults', DEFAULT_DB_LIMITS, 2],
    ['the maintenance limits', MAINTENANCE_DB_LIMITS, 2],
    ['SQLITE_SYNCHRONOUS=normal', { ...DEFAULT_DB_LIMITS, sqliteSynchronous: 'normal' as const }, 1],
  ])('with %s the connection runs synchronous = %d', async (_, limits, level) => {
    const db = createKnex(`sqlite:${file}`, limits);
    try {
      await write(db);
      expect(await db.raw('PRAGMA synchronous')).toEqual([{ synchronous: level }]);
      expect(await db.raw('PRAGMA journal_mode')).toEqual([{ journal_mode: 'wal' }]);
      expect(await db('blobs').count({ n: '*' })).toEqual([{ n: 1200 }]);
    } finally {
      await db.destroy();
    }
    // Reopened, every committed row is there.
    const again = createKnex(`sqlite:${file}`, DEFAULT_DB_LIMITS);
    try {
      expect(await again('blobs').count({ n: '*' })).toEqual([{ n: 1200 }]);
    } finally {
      await again.destroy();
    }
  });
});
