import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Knex } from 'knex';
import { GROUP_COMMIT_MAX_TRANSACTIONS, GroupRolledBackError } from '../../src/db/group-commit';
import { DEFAULT_DB_LIMITS, createKnex, retryingTransaction } from '../../src/db/knex';
import { DeadlineExceededError, currentScope, runInRequestScope } from '../../src/lib/request-scope';
import { groupCommitCounts } from '../helpers/group-commit';
import { simulatedDelay, waitFor } from '../helpers/wait';

/** The synchronous better-sqlite3 calls the test makes on a raw connection. */
interface SyncConnection {
  prepare(sql: string): { get(...params: unknown[]): unknown };
}

/**
 * Group commit on the embedded database (src/db/group-commit.ts): write
 * transactions that queue for SQLite's one connection share one COMMIT, each under its own
 * savepoint; each answers only once that COMMIT made it durable, a failing one takes only its own
 * writes back, and a group that SQLite rolled back commits nothing. A real database file.
 */
describe('SQLite group commit', () => {
  let dir: string;
  let file: string;
  let db: Knex;

  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sg-group-'));
    file = path.join(dir, 'db.sqlite3');
    db = createKnex(`sqlite:${file}`);
    await db.schema.createTable('counter', (t) => {
      t.integer('id').primary();
      t.integer('n').notNullable();
    });
    await db.schema.createTable('entries', (t) => {
      t.integer('id').primary();
      t.integer('seen').notNullable();
    });
    await db('counter').insert({ id: 1, n: 0 });
  });
  afterEach(async () => {
    await db.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** One write: reads the counter, stores what it read, increments it (a read-modify-write). */
  const increment = (id: number) => (trx: Knex.Transaction) =>
    (async () => {
      const [{ n }] = await trx('counter').where({ id: 1 }).select('n');
      await trx('entries').insert({ id, seen: n });
      await trx('counter')
        .where({ id: 1 })
        .update({ n: n + 1 });
      return n as number;
    })();

  it('runs concurrent writes in fewer COMMITs, loses no update, and answers each only once it is durable', async () => {
    const before = await groupCommitCounts();
    // A second connection to the file, queried synchronously at the moment each write answers.
    const second = createKnex(`sqlite:${file}`);
    const reader = (await second.client.acquireConnection()) as SyncConnection;
    try {
      const visibleAtAnswer: boolean[] = [];
      const results = await Promise.all(
        Array.from({ length: 100 }, (_, i) =>
          retryingTransaction(db, increment(i + 1)).then((seen) => {
            // A second connection sees only committed rows: the write is durable when answered.
            visibleAtAnswer.push(
              reader.prepare('SELECT 1 FROM entries WHERE id = ?').get(i + 1) !== undefined,
            );
            return seen;
          }),
        ),
      );
      expect(visibleAtAnswer).toHaveLength(100);
      expect(visibleAtAnswer.every(Boolean)).toBe(true);
      // Each saw the count the one before left: 0..99, no two alike.
      expect([...results].sort((a, b) => a - b)).toEqual(Array.from({ length: 100 }, (_, i) => i));
      expect(await db('counter').where({ id: 1 }).first()).toEqual({ id: 1, n: 100 });
      const after = await groupCommitCounts();
      expect(after.transactions - before.transactions).toBe(100);
      // 100 transactions, at most 64 to a group: at least 2 COMMITs, far fewer than 100.
      expect(after.commits - before.commits).toBeGreaterThanOrEqual(
        Math.ceil(100 / GROUP_COMMIT_MAX_TRANSACTIONS),
      );
      expect(after.commits - before.commits).toBeLessThan(20);
    } finally {
      await second.client.releaseConnection(reader);
      await second.destroy();
    }
  });

  it('with SQLITE_GROUP_COMMIT off commits each transaction on its own', async () => {
    const separate = createKnex(`sqlite:${file}`, { ...DEFAULT_DB_LIMITS, sqliteGroupCommit: false });
    try {
      const before = await groupCommitCounts();
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) => retryingTransaction(separate, increment(i + 1))),
      );
      expect([...results].sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i));
      expect(await separate('counter').where({ id: 1 }).first()).toEqual({ id: 1, n: 20 });
      // No group ran: nothing observed.
      expect(await groupCommitCounts()).toEqual(before);
    } finally {
      await separate.destroy();
    }
  });

  it('takes back only the failing transaction of a group; the others commit', async () => {
    const outcomes = await Promise.allSettled(
      Array.from({ length: 30 }, (_, i) =>
        retryingTransaction(db, async (trx) => {
          const seen = await increment(i + 1)(trx);
          if (i % 3 === 0) throw new Error(`scope ${i + 1} failed after writing`);
          // A duplicate key: the database refuses it, the transaction's own writes go back.
          if (i % 3 === 1 && i < 10) await trx('entries').insert({ id: i + 1, seen });
          return seen;
        }),
      ),
    );
    const failed = outcomes.flatMap((o, i) => (o.status === 'rejected' ? [i + 1] : []));
    const committed = outcomes.flatMap((o, i) => (o.status === 'fulfilled' ? [i + 1] : []));
    expect(failed).toEqual([1, 2, 4, 5, 7, 8, 10, 13, 16, 19, 22, 25, 28]);
    expect((outcomes[0] as PromiseRejectedResult).reason.message).toBe('scope 1 failed after writing');
    expect(String((outcomes[1] as PromiseRejectedResult).reason.message)).toMatch(/UNIQUE constraint failed/);
    const rows = await db('entries').orderBy('id').select('id', 'seen');
    expect(rows.map((r) => r.id)).toEqual(committed);
    // The committed ones saw each other's counts and nothing of the failed ones.
    expect(rows.map((r) => r.seen)).toEqual(committed.map((_, k) => k));
    expect(await db('counter').where({ id: 1 }).first()).toEqual({ id: 1, n: committed.length });
  });

  it('commits nothing of a group that SQLite rolled back, and the next group works', async () => {
    // A ROLLBACK inside a member stands in for SQLite rolling the whole transaction back by
    // itself (SQLITE_FULL, SQLITE_IOERR): every member before and after it must fail, and the
    // group must not COMMIT what a later SAVEPOINT would begin anew.
    const outcomes = await Promise.allSettled(
      Array.from({ length: 12 }, (_, i) =>
        retryingTransaction(db, async (trx) => {
          const seen = await increment(i + 1)(trx);
          if (i === 5) {
            await trx.raw('ROLLBACK');
            throw new Error('the disk is full');
          }
          return seen;
        }),
      ),
    );
    // All twelve were asked for in one turn of the event loop: one group, and none of it commits.
    expect(outcomes.map((o) => o.status)).toEqual(Array(12).fill('rejected'));
    const reasons = outcomes.map((o) => (o as PromiseRejectedResult).reason);
    expect(reasons[5].message).toBe('the disk is full');
    // Those after it were not run; those before it lost their writes with the transaction.
    for (const r of [...reasons.slice(0, 5), ...reasons.slice(6)]) {
      expect(r).toBeInstanceOf(GroupRolledBackError);
      expect(r.cause.message).toBe('the disk is full');
    }
    expect(await db('entries').count({ n: '*' })).toEqual([{ n: 0 }]);
    expect(await db('counter').where({ id: 1 }).first()).toEqual({ id: 1, n: 0 });
    // The connection is usable: a new write commits.
    await retryingTransaction(db, increment(100));
    expect(await db('entries').where({ id: 100 }).first()).toEqual({ id: 100, seen: 0 });
  });

  it("bounds the wait to join by the request's deadline", async () => {
    // A plain transaction holds the one connection for 300 ms.
    let holding = false;
    const holder = db.transaction(async () => {
      holding = true;
      await simulatedDelay(300, 'a transaction holding the one connection');
    });
    await waitFor(() => holding, { what: 'the holder to take the connection' });
    const started = performance.now();
    const late = runInRequestScope(50, () => retryingTransaction(db, increment(1)));
    await expect(late).rejects.toBeInstanceOf(DeadlineExceededError);
    // Not begun by a group: answered as not run, never as an unknown outcome.
    await expect(late).rejects.toMatchObject({ where: 'connection', outcomeUnknown: false });
    expect(performance.now() - started).toBeLessThan(250);
    await holder;
    // Nothing of the late write; the next one commits.
    expect(await db('entries').count({ n: '*' })).toEqual([{ n: 0 }]);
    await retryingTransaction(db, increment(2));
    expect(await db('entries').select('id', 'seen')).toEqual([{ id: 2, seen: 0 }]);
  });

  it('answers "outcome unknown" to a member whose deadline passes after the group ran it and before the COMMIT', async () => {
    // One group: the short member first (its write done at once), then a long one that keeps the
    // group's COMMIT waiting 200 ms, past the short member's 50 ms deadline.
    const short = runInRequestScope(50, () => retryingTransaction(db, increment(1)));
    const long = retryingTransaction(db, async (trx) => {
      const n = await increment(2)(trx);
      await simulatedDelay(200, 'a slow member keeping the group from its COMMIT');
      return n;
    });
    await expect(short).rejects.toMatchObject({
      name: 'DeadlineExceededError',
      where: 'commit',
      outcomeUnknown: true,
    });
    await expect(long).resolves.toBe(1);
    // The group committed the short member's write: "not run" would have been a wrong answer.
    expect(await db('entries').orderBy('id').select('id', 'seen')).toEqual([
      { id: 1, seen: 0 },
      { id: 2, seen: 1 },
    ]);
  });

  it("runs each member's body in its own caller's request scope, not the group's", async () => {
    // Three requests with different deadlines join one group; each body reports the deadline it
    // sees (its statements and their bound read it there), and none sees another's.
    const before = await groupCommitCounts();
    const seen = await Promise.all(
      [1000, 2000, 3000].map((budget, i) =>
        runInRequestScope(budget, () => {
          const mine = currentScope()!;
          return retryingTransaction(db, async (trx) => {
            await increment(i + 1)(trx);
            return currentScope() === mine ? budget : `another scope (${String(currentScope()?.deadlineMs)})`;
          });
        }),
      ),
    );
    expect(seen).toEqual([1000, 2000, 3000]);
    const after = await groupCommitCounts();
    expect([after.transactions - before.transactions, after.commits - before.commits]).toEqual([3, 1]);
  });
});
