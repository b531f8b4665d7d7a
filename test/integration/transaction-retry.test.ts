import { Knex } from 'knex';
import {
  DEFAULT_TRANSACTION_RETRY,
  databaseFailureOf,
  transactionConflictOf,
  lockingTransaction,
  retryingTransaction,
} from '../../src/db/knex';
import { transactionRetries } from '../../src/metrics';
import { runInRequestScope } from '../../src/lib/request-scope';
import { TestDb, createProbeTable, createTestDb } from '../helpers/db';

/** A rejection as the driver gives it for a deadlock or a Galera certification failure (ER_LOCK_DEADLOCK). */
const deadlock = () =>
  Object.assign(new Error('Deadlock found when trying to get lock; try restarting transaction'), {
    code: 'ER_LOCK_DEADLOCK',
    errno: 1213,
  });

const retries = async (reason: string) =>
  (await transactionRetries.get()).values.find((v) => v.labels.reason === reason)?.value ?? 0;

/**
 * Retried transactions: a transaction rolled back by a write conflict reruns as a
 * whole, bounded by attempts and the request's deadline, on the real database.
 */
describe('retryingTransaction on the real database', () => {
  let t: TestDb;
  let rows: () => Promise<number[][]>;
  const PROBE = 'retry_probe';

  beforeAll(async () => {
    t = await createTestDb();
    rows = await createProbeTable(t.db, PROBE);
  });
  afterAll(() => t.destroy());
  beforeEach(async () => {
    await t.db(PROBE).delete();
    await t.db(PROBE).insert([
      { id: 1, n: 0 },
      { id: 2, n: 0 },
    ]);
  });

  const values = async () => (await rows()).map(([, n]) => n);
  const bump = (trx: Knex.Transaction, id: number) => trx(PROBE).where({ id }).increment('n', 1);

  it('a conflict rolls the attempt back and the whole scope reruns: the effect lands once', async () => {
    const before = await retries('deadlock');
    let runs = 0;
    const result = await retryingTransaction(t.db, async (trx) => {
      runs++;
      await bump(trx, 1);
      if (runs === 1) throw deadlock();
      return 'done';
    });
    expect(result).toBe('done');
    expect(runs).toBe(2);
    expect(await values()).toEqual([1, 0]);
    expect((await retries('deadlock')) - before).toBe(1);
  });

  it('reruns are bounded: after `attempts` conflicts the last one is thrown and nothing is applied', async () => {
    let runs = 0;
    await expect(
      retryingTransaction(
        t.db,
        async (trx) => {
          runs++;
          await bump(trx, 1);
          throw deadlock();
        },
        undefined,
        { ...DEFAULT_TRANSACTION_RETRY, attempts: 3 },
      ),
    ).rejects.toMatchObject({ errno: 1213 });
    expect(runs).toBe(3);
    expect(await values()).toEqual([0, 0]);
  });

  it('no rerun once too little of the request deadline is left; other errors (a lock-wait timeout) are not retried', async () => {
    let runs = 0;
    await expect(
      runInRequestScope(DEFAULT_TRANSACTION_RETRY.minRemainingMs - 10, () =>
        lockingTransaction(t.db, async () => {
          runs++;
          throw deadlock();
        }),
      ),
    ).rejects.toMatchObject({ errno: 1213 });
    expect(runs).toBe(1);
    await expect(
      retryingTransaction(t.db, async () => {
        runs++;
        throw Object.assign(new Error('Lock wait timeout exceeded'), {
          code: 'ER_LOCK_WAIT_TIMEOUT',
          errno: 1205,
        });
      }),
    ).rejects.toMatchObject({ errno: 1205 });
    expect(runs).toBe(2);
  });

  it('a real InnoDB deadlock (two transactions locking two rows in opposite order): both commit, each once', async () => {
    if (t.dialect !== 'mysql') return; // SQLite has one writer: no deadlock to provoke
    const before = await retries('deadlock');
    let arrived = 0;
    let bothHoldOne!: () => void;
    const barrier = new Promise<void>((r) => (bothHoldOne = r));
    const crossing = (first: number, second: number) => {
      let runs = 0;
      return lockingTransaction(t.db, async (trx) => {
        runs++;
        await bump(trx, first);
        if (runs === 1) {
          if (++arrived === 2) bothHoldOne();
          await barrier;
        }
        await bump(trx, second);
        return runs;
      });
    };
    const runs = await Promise.all([crossing(1, 2), crossing(2, 1)]);
    expect(runs.sort()).toEqual([1, 2]); // the deadlock victim ran twice
    expect(await values()).toEqual([2, 2]);
    expect((await retries('deadlock')) - before).toBe(1);
  });
});

describe('a write conflict whose reruns are spent', () => {
  it('is a database timeout (503 / 2003 with retry-after, never a 500); a lock-wait timeout stays one too', () => {
    expect(databaseFailureOf(deadlock())).toBe('timeout');
    expect(databaseFailureOf({ errno: 1020, code: 'ER_CHECKREAD' })).toBe('timeout');
    expect(databaseFailureOf({ errno: 1205, code: 'ER_LOCK_WAIT_TIMEOUT' })).toBe('timeout');
    expect(transactionConflictOf({ errno: 1205, code: 'ER_LOCK_WAIT_TIMEOUT' })).toBeUndefined();
    expect(transactionConflictOf({ message: 'wrapped', cause: deadlock() })).toBe('deadlock');
  });
});
