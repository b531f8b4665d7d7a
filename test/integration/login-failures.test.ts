import { addLoginAttempt, readLoginFailures, removeLoginAttempt } from '../../src/auth/login-failure.store';
import { TestDb, createTestDb, reopenTestDb } from '../helpers/db';

describe('failed-login counters on the real database', () => {
  let t: TestDb;
  let other: TestDb;
  beforeAll(async () => {
    t = await createTestDb();
    other = reopenTestDb(t);
  });
  afterAll(async () => {
    await other.destroy();
    await t.destroy();
  });

  it('counts concurrent attempts from two connection pools exactly, the first insert race included', async () => {
    const now = 1_000_000;
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        addLoginAttempt((i % 2 ? other : t).db, 'user:race', now, now - 60_000),
      ),
    );
    expect(await readLoginFailures(t.db, ['user:race'])).toEqual([
      { key: 'user:race', failures: 20, windowStart: now },
    ]);
  });

  it('starts a new window with 1 once the old one is stale, and never goes below zero', async () => {
    await addLoginAttempt(t.db, 'address:10.9.9.9', 1000, 0);
    await addLoginAttempt(t.db, 'address:10.9.9.9', 2000, 0);
    expect((await readLoginFailures(t.db, ['address:10.9.9.9']))[0]).toMatchObject({
      failures: 2,
      windowStart: 1000,
    });
    await addLoginAttempt(t.db, 'address:10.9.9.9', 70_000, 10_000);
    expect((await readLoginFailures(t.db, ['address:10.9.9.9']))[0]).toMatchObject({
      failures: 1,
      windowStart: 70_000,
    });
    await removeLoginAttempt(t.db, 'address:10.9.9.9');
    await removeLoginAttempt(t.db, 'address:10.9.9.9');
    expect((await readLoginFailures(t.db, ['address:10.9.9.9']))[0].failures).toBe(0);
  });
});
