import type { Knex } from 'knex';
import { DEFAULT_DB_LIMITS, createKnex } from '../../src/db/knex';
import { DeadlineExceededError, runInRequestScope } from '../../src/lib/request-scope';
import { TestDb, createProbeTable, createTestDb } from '../helpers/db';

/**
 * src/db/bound-client.ts `rollBackRefusedCommit`: once a request's deadline has passed, the
 * statement bound refuses every statement but ROLLBACK, COMMIT included, and knex's own
 * transaction sends no ROLLBACK after a COMMIT that failed. The bound answers a refused COMMIT
 * with a ROLLBACK on its connection, so the pooled connection carries no open transaction into
 * its next use. knex's own transactions here (`db.transaction`: SQLite without group commit,
 * migrations, nested ones); connection-transaction.test.ts covers MariaDB's serving path. Both
 * databases.
 */
describe("a COMMIT the request's deadline kept from being sent, in knex's own transaction", () => {
  let t: TestDb;
  let rows: () => Promise<number[][]>;
  let one: Knex;
  const PROBE = 'refused_commit_probe';

  beforeAll(async () => {
    t = await createTestDb({ migrate: false });
    rows = await createProbeTable(t.db, PROBE);
  });
  afterAll(() => t.destroy());
  beforeEach(async () => {
    await t.db(PROBE).delete();
    // One pooled connection (SQLite has one anyway), so every later statement surely runs on the
    // connection whose COMMIT was refused; no group commit, so db.transaction is knex's own.
    one = createKnex(t.url, { ...DEFAULT_DB_LIMITS, poolMax: 1, sqliteGroupCommit: false });
    // The connection opened before the request starts: on a loaded machine a new MariaDB
    // connection can take longer than the request's budget, and the deadline would then stop the
    // wait for it (`connection`), not the COMMIT.
    await one.raw('select 1');
  });
  afterEach(() => one.destroy());

  it('fails with DeadlineExceededError `statement` and rolls the writes back; the connection then commits its own statements and transactions', async () => {
    const err = await runInRequestScope(200, () =>
      one.transaction(async (trx) => {
        await trx(PROBE).insert({ id: 1, n: 1 });
        await new Promise((resolve) => setTimeout(resolve, 300)); // the scope ends past its deadline
      }),
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DeadlineExceededError);
    expect((err as DeadlineExceededError).where).toBe('statement');

    // Left open, the transaction would swallow this autocommit insert (not visible to another
    // connection), and the next BEGIN would fail (SQLite) or commit row 1 with it (MySQL).
    await one(PROBE).insert({ id: 2, n: 2 });
    expect(await rows()).toEqual([[2, 2]]);
    await one.transaction((trx) => trx(PROBE).insert({ id: 3, n: 3 }));
    expect(await rows()).toEqual([
      [2, 2],
      [3, 3],
    ]);
  });

  it('leaves a COMMIT sent before the deadline alone: it commits', async () => {
    await runInRequestScope(5_000, () => one.transaction((trx) => trx(PROBE).insert({ id: 4, n: 4 })));
    expect(await rows()).toEqual([[4, 4]]);
  });
});
