import { KnexTimeoutError } from 'knex';
import { DEFAULT_DB_LIMITS, createKnex, databaseFailureOf } from '../../src/db/knex';
import { preparedRows } from '../../src/db/prepared';
import { DeadlineExceededError, runInRequestScope } from '../../src/lib/request-scope';
import { TestDb, createTestDb } from '../helpers/db';
import { waitFor } from '../helpers/wait';

/** The part of knex's tarn pool these tests read. */
interface Pool {
  numUsed(): number;
  numFree(): number;
  numPendingAcquires(): number;
}

// src/db/bound-client.ts boundAcquire: the wait for a pooled connection ends at the request's
// deadline when that comes before DB_ACQUIRE_TIMEOUT_MS (DeadlineExceededError `connection`, its
// place in the pool's queue withdrawn), else at DB_ACQUIRE_TIMEOUT_MS (knex's timeout error).
describe('the wait for a pooled connection, bounded by the request deadline', () => {
  let t: TestDb;
  beforeAll(async () => {
    t = await createTestDb();
    await t.db('tenants').insert({ id: 1, name: 'acme', created_at: 0 });
  });
  afterAll(() => t.destroy());

  /** A knex of one pooled connection on the test database, and a transaction holding it until `release`. */
  async function heldPool(acquireTimeoutMs: number) {
    const db = createKnex(t.url, { ...DEFAULT_DB_LIMITS, poolMax: 1, acquireTimeoutMs });
    const pool = () => (db.client as { pool: Pool }).pool;
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const holder = db.transaction(async (trx) => {
      await trx('tenants').where({ id: 1 }).first();
      await released;
    });
    await waitFor(() => pool()?.numUsed() === 1, { what: 'the transaction to hold the connection' });
    return { db, pool, release, holder };
  }

  const readTenant = (db: Parameters<typeof preparedRows>[0]) =>
    preparedRows<{ name: string }>(db, 'select name from tenants where id = ?', [1]);

  it('a deadline before the acquire timeout fails the wait at the deadline and leaves no acquire queued', async () => {
    const { db, pool, release, holder } = await heldPool(5000);
    try {
      const started = performance.now();
      const err = await runInRequestScope(200, () =>
        readTenant(db).then(
          () => undefined,
          (e: unknown) => e,
        ),
      );
      const waited = performance.now() - started;
      expect(err).toBeInstanceOf(DeadlineExceededError);
      expect(err).toMatchObject({ where: 'connection' });
      expect(databaseFailureOf(err)).toBe('timeout');
      expect(waited).toBeGreaterThanOrEqual(150);
      expect(waited).toBeLessThan(2000); // the deadline, not the 5 s acquire timeout
      // Withdrawn from the pool's queue: nothing waits, and the connection, once released, is free.
      expect(pool().numPendingAcquires()).toBe(0);
      release();
      await holder;
      expect(pool().numUsed()).toBe(0);
      expect(pool().numFree()).toBe(1);
      expect((await readTenant(db)).map((r) => r.name)).toEqual(['acme']);
    } finally {
      release();
      await holder.catch(() => undefined);
      await db.destroy();
    }
  });

  it('an acquire timeout before the deadline fails the wait with knex timeout, not the deadline', async () => {
    const { db, pool, release, holder } = await heldPool(200);
    try {
      const err = await runInRequestScope(5000, () =>
        readTenant(db).then(
          () => undefined,
          (e: unknown) => e,
        ),
      );
      expect(err).toBeInstanceOf(KnexTimeoutError);
      expect(err).not.toBeInstanceOf(DeadlineExceededError);
      expect(pool().numPendingAcquires()).toBe(0);
    } finally {
      release();
      await holder.catch(() => undefined);
      await db.destroy();
    }
  });

  it('a connection that comes free before the deadline is handed to the waiting request', async () => {
    const { db, release, holder } = await heldPool(5000);
    try {
      const reading = runInRequestScope(2000, () => readTenant(db));
      await new Promise((resolve) => setTimeout(resolve, 50));
      release();
      await holder;
      expect((await reading).map((r) => r.name)).toEqual(['acme']);
    } finally {
      release();
      await holder.catch(() => undefined);
      await db.destroy();
    }
  });
});
