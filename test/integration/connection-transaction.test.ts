import { connectionTransaction } from '../../src/db/connection-transaction';
import { DEFAULT_DB_LIMITS, createKnex, lockingTransaction } from '../../src/db/knex';
import { isDeadlineExceeded, runInRequestScope } from '../../src/lib/request-scope';
import { TestDb, createProbeTable, createTestDb, reopenTestDb } from '../helpers/db';

/**
 * connectionTransaction (src/db/connection-transaction.ts): MySQL/MariaDB transactions on a
 * pooled connection without knex's transaction object keep what knex's own transaction does:
 * COMMIT, ROLLBACK on a throw, the isolation level, savepoints, statement events, and the
 * connection back in the pool. MariaDB only (SQLite transactions go through the group commit).
 */
describe('connectionTransaction on MariaDB', () => {
  let t: TestDb;
  let rows: () => Promise<number[][]>;
  const PROBE = 'conn_trx_probe';
  const onMysql = () => t.dialect === 'mysql';

  beforeAll(async () => {
    t = await createTestDb({ migrate: false });
    rows = await createProbeTable(t.db, PROBE);
  });
  afterAll(() => t.destroy());
  beforeEach(async () => {
    await t.db(PROBE).delete();
  });

  const threadId = async (db: typeof t.db) => Number((await db.raw('select connection_id() as id'))[0][0].id);
  const pool = () => (t.db.client as { pool: { numUsed(): number } }).pool;

  it('commits what the scope wrote and answers its value; the connection goes back to the pool', async () => {
    if (!onMysql()) return;
    const value = await connectionTransaction(t.db, async (trx) => {
      await trx(PROBE).insert({ id: 1, n: 10 });
      await trx(PROBE).insert({ id: 2, n: 20 });
      return 'written';
    });
    expect(value).toBe('written');
    expect(await rows()).toEqual([
      [1, 10],
      [2, 20],
    ]);
    expect(pool().numUsed()).toBe(0);
  });

  it('rolls everything back when the scope throws, and rejects with the scope’s own error', async () => {
    if (!onMysql()) return;
    await expect(
      connectionTransaction(t.db, async (trx) => {
        await trx(PROBE).insert({ id: 1, n: 10 });
        throw new Error('scope failed');
      }),
    ).rejects.toThrow('scope failed');
    expect(await rows()).toEqual([]);
    expect(pool().numUsed()).toBe(0);
  });

  it('runs at the isolation level asked for, and the next transaction on the connection at the default', async () => {
    if (!onMysql()) return;
    await t.db(PROBE).insert({ id: 1, n: 1 });
    const other = reopenTestDb(t);
    try {
      // Another connection commits a row between two reads of one transaction.
      const between = async (isolation?: 'read committed') =>
        connectionTransaction(
          t.db,
          async (trx) => {
            const before = (await trx(PROBE)).length;
            await other.db(PROBE).insert({ id: 100 + before, n: 0 });
            const after = (await trx(PROBE)).length;
            await other.db(PROBE).where('id', '>=', 100).delete();
            return [before, after];
          },
          isolation,
        );
      expect(await between('read committed')).toEqual([1, 2]);
      // REPEATABLE READ (the server's default) keeps the first read's snapshot.
      expect(await between()).toEqual([1, 1]);
    } finally {
      await other.destroy();
    }
  });

  it('runs nested transactions as savepoints: an inner rollback keeps the outer writes', async () => {
    if (!onMysql()) return;
    await connectionTransaction(t.db, async (trx) => {
      await trx(PROBE).insert({ id: 1, n: 1 });
      await expect(
        trx.transaction(async (sp) => {
          await sp(PROBE).insert({ id: 2, n: 2 });
          throw new Error('inner');
        }),
      ).rejects.toThrow('inner');
      await trx.transaction(async (sp) => {
        await sp(PROBE).insert({ id: 3, n: 3 });
      });
    });
    expect(await rows()).toEqual([
      [1, 1],
      [3, 3],
    ]);
  });

  it("passes its statements' events to the root instance, as knex's transactions do", async () => {
    if (!onMysql()) return;
    const sql: string[] = [];
    const onQuery = (q: { sql: string }) => sql.push(q.sql);
    t.db.on('query', onQuery);
    try {
      await connectionTransaction(t.db, (trx) => trx(PROBE).insert({ id: 1, n: 1 }), 'read committed');
    } finally {
      t.db.off('query', onQuery);
    }
    expect(sql).toEqual([
      'SET TRANSACTION ISOLATION LEVEL read committed',
      'BEGIN',
      expect.stringMatching(/^insert into `conn_trx_probe`/),
      'COMMIT',
    ]);
  });

  it('refuses a statement sent on its transaction after the scope returned (it would run on a connection lent to another)', async () => {
    if (!onMysql()) return;
    let kept: typeof t.db | undefined;
    await connectionTransaction(t.db, async (trx) => {
      kept = trx;
    });
    await expect(kept!(PROBE).insert({ id: 9, n: 9 })).rejects.toThrow(/transaction that has ended/);
    expect(await rows()).toEqual([]);
  });

  it('a connection whose ROLLBACK failed is not lent again: the next transaction gets a new one', async () => {
    if (!onMysql()) return;
    const other = reopenTestDb(t);
    let killed = 0;
    try {
      await expect(
        connectionTransaction(t.db, async (trx) => {
          await trx(PROBE).insert({ id: 1, n: 1 });
          killed = await threadId(trx);
          await other.db.raw(`KILL CONNECTION ${killed}`);
          await trx(PROBE).insert({ id: 2, n: 2 });
        }),
      ).rejects.toThrow();
    } finally {
      await other.destroy();
    }
    expect(await connectionTransaction(t.db, (trx) => threadId(trx))).not.toBe(killed);
    expect(await rows()).toEqual([]);
    expect(pool().numUsed()).toBe(0);
  });

  it("rolls back after a COMMIT the request's deadline kept from being sent: the connection's next BEGIN does not commit those writes", async () => {
    if (!onMysql()) return;
    // One connection, so the next transaction surely gets the same one.
    const one = createKnex(t.url, { ...DEFAULT_DB_LIMITS, poolMax: 1 });
    try {
      const err = await runInRequestScope(50, () =>
        connectionTransaction(one, async (trx) => {
          await trx(PROBE).insert({ id: 1, n: 1 });
          await new Promise((resolve) => setTimeout(resolve, 80)); // the scope ends past its deadline
        }),
      ).catch((e: unknown) => e);
      expect(isDeadlineExceeded(err)).toBe(true);
      await connectionTransaction(one, (trx) => trx(PROBE).insert({ id: 2, n: 2 }));
      expect(await rows()).toEqual([[2, 2]]);
    } finally {
      await one.destroy();
    }
  });

  it('is what lockingTransaction runs on MariaDB, and 40 concurrent increments of one row lose none', async () => {
    if (!onMysql()) return;
    await t.db(PROBE).insert({ id: 1, n: 0 });
    const sql: string[] = [];
    const onQuery = (q: { sql: string }) => sql.push(q.sql);
    t.db.on('query', onQuery);
    try {
      await Promise.all(
        Array.from({ length: 40 }, () =>
          lockingTransaction(t.db, async (trx) => {
            const [row] = await trx(PROBE).where({ id: 1 }).forUpdate();
            await trx(PROBE)
              .where({ id: 1 })
              .update({ n: Number(row.n) + 1 });
          }),
        ),
      );
    } finally {
      t.db.off('query', onQuery);
    }
    expect(await rows()).toEqual([[1, 40]]);
    // Its statements, not knex's own transaction's (`BEGIN;`, `SET TRANSACTION … ;`).
    expect(sql.filter((s) => s === 'BEGIN')).toHaveLength(40);
    expect(sql.filter((s) => s === 'BEGIN;')).toHaveLength(0);
  });
});
