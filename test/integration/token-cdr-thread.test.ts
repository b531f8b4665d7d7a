import { importDataset } from '../../src/dataset/import';
import { findClientByUsername } from '../../src/auth/client.store';
import { CdrBatchWriter } from '../../src/modules/cdrs/cdr.batch-writer';
import { CdrRecorder, TokenCdr } from '../../src/modules/cdrs/cdr.recorder';
import { TokenTx } from '../../src/modules/cdrs/cdr.layouts';
import { insertCdrs } from '../../src/modules/cdrs/cdr.store';
import { FakeClock } from '../helpers/clock';
import { TestDb, createTestDb, reopenTestDb } from '../helpers/db';
import { baseDataset } from '../helpers/fixtures';
import { groupCommitCounts, itOnSqlite } from '../helpers/group-commit';

/** The buffered CDRs' writer thread on a SQLite file (src/modules/cdrs/cdr.sqlite-worker.ts). */
describe('CdrBatchWriter on a SQLite file: batches written from its own thread', () => {
  let t: TestDb;
  const clock = new FakeClock();
  const rec = new CdrRecorder(clock);
  let tenantId: number;
  const cdr = (n: number): TokenCdr => ({
    transaction: TokenTx.VALIDATE,
    status: 'successful',
    tokenHash: `${n}`.padStart(16, '0') + '0'.repeat(48),
    msisdn: '353871234567',
  });
  const stored = (actor: string) =>
    t.db('cdrs').where({ actor }).orderBy('id').select('record_id', 'fields', 'service_id', 'created_at');

  beforeAll(async () => {
    t = await createTestDb();
    await importDataset(t.db, baseDataset(), clock);
    tenantId = (await findClientByUsername(t.db, 'portal'))!.tenantId;
  });
  afterAll(() => t.destroy());

  itOnSqlite(
    'writes every CDR, in order, as the gateway connection would, outside its transactions',
    async () => {
      const writer = new CdrBatchWriter(t.db, undefined, { flushIntervalMs: 60_000, batchMax: 400 });
      const before = await groupCommitCounts();
      for (let i = 0; i < 1000; i++) await writer.add(rec.tokenRow({ tenantId, actor: 'thread' }, cdr(i)));
      await writer.flush();
      expect(writer.pending).toBe(0);
      // None of the gateway connection's write transactions carried them.
      expect((await groupCommitCounts()).transactions - before.transactions).toBe(0);
      const rows = await stored('thread');
      expect(rows.map((r: { record_id: string }) => r.record_id)).toEqual(
        Array.from({ length: 1000 }, (_, i) => `${i}`.padStart(16, '0')),
      );
      // The same columns as the gateway connection's INSERT writes.
      await insertCdrs(t.db, [rec.tokenRow({ tenantId, actor: 'inline' }, cdr(0))]);
      const [inline] = await stored('inline');
      expect(rows[0]).toEqual(inline);
      await writer.close();
    },
  );

  itOnSqlite('starts its thread again after close, and close writes what was buffered', async () => {
    const writer = new CdrBatchWriter(t.db, undefined, { flushIntervalMs: 60_000 });
    await writer.add(rec.tokenRow({ tenantId, actor: 'again' }, cdr(1)));
    await writer.close();
    await writer.add(rec.tokenRow({ tenantId, actor: 'again' }, cdr(2)));
    await writer.close();
    expect((await stored('again')).map((r: { record_id: string }) => r.record_id)).toEqual([
      `${1}`.padStart(16, '0'),
      `${2}`.padStart(16, '0'),
    ]);
  });

  itOnSqlite(
    'waits for a write lock held longer than SQLITE_BUSY_TIMEOUT_MS instead of failing the batch',
    async () => {
      // A second pool's raw connection holds the write lock for 600 ms (SQLITE_BUSY_TIMEOUT_MS is 200).
      const second = reopenTestDb(t);
      const other = (await second.db.client.acquireConnection()) as { exec(sql: string): void };
      other.exec('BEGIN IMMEDIATE');
      const released = new Promise<void>((resolve) =>
        setTimeout(() => {
          other.exec('COMMIT');
          resolve();
        }, 600),
      );
      const writer = new CdrBatchWriter(t.db, undefined, { flushIntervalMs: 60_000 });
      await writer.add(rec.tokenRow({ tenantId, actor: 'locked' }, cdr(4)));
      await writer.flush();
      await released;
      expect(writer.pending).toBe(0);
      expect(writer.dropped).toBe(0);
      expect(await stored('locked')).toHaveLength(1);
      await writer.close();
      await second.db.client.releaseConnection(other);
      await second.destroy();
    },
  );

  itOnSqlite('with thread: false writes on the gateway connection (group commit)', async () => {
    const writer = new CdrBatchWriter(t.db, undefined, { flushIntervalMs: 60_000, thread: false });
    const before = await groupCommitCounts();
    await writer.add(rec.tokenRow({ tenantId, actor: 'main' }, cdr(3)));
    await writer.flush();
    expect((await groupCommitCounts()).transactions - before.transactions).toBe(1);
    expect(await stored('main')).toHaveLength(1);
  });
});
