import { Knex } from 'knex';
import { newId } from '../../src/lib/ids';
import { createLogger } from '../../src/logger';
import {
  IDEMPOTENCY_LEASE_MS,
  IdempotencyService,
  IdempotentCall,
} from '../../src/modules/idempotency/idempotency.service';
import { FakeClock } from '../helpers/clock';
import { TestDb, createTestDb } from '../helpers/db';
import { waitFor } from '../helpers/wait';

/**
 * The idempotency record on the real database, below HTTP: what happens when a request outlives
 * its lease and a retry takes its key over.
 */
describe('IdempotencyService on the real database', () => {
  let t: TestDb;
  let tenantId: number;
  const clock = new FakeClock();
  let idempotency: IdempotencyService;

  beforeAll(async () => {
    t = await createTestDb();
    [tenantId] = await t.db('tenants').insert({ name: 'acme', created_at: 0 });
    idempotency = new IdempotencyService(t.db, clock, createLogger('silent'));
  });
  afterAll(() => t.destroy());

  /** The effect: one row in `tenants`, named so the test can count them. */
  const effect = async (trx: Knex.Transaction) => {
    await trx('tenants').insert({ name: `effect-${newId()}`, created_at: 0 });
    return { done: true };
  };
  const effects = async () =>
    Number((await t.db('tenants').where('name', 'like', 'effect-%').count({ n: '*' }).first())!.n);
  const call = (key: string): IdempotentCall => ({ tenantId, key, operation: 'test', request: { a: 1 } });

  it('a request still running when its lease ends is taken over; it then cannot commit, so the effect happens once', async () => {
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    // The first request has claimed its key and is stalled before its transaction.
    const first = idempotency.run(
      call('stalled'),
      async (scope) => {
        await gate;
        return t.db.transaction(scope);
      },
      effect,
    );
    await waitFor(
      async () => !!(await t.db('idempotency_keys').where({ idempotency_key: 'stalled' }).first()),
      {
        what: "the first request's claim on its key",
        intervalMs: 5,
      },
    );

    await expect(idempotency.run(call('stalled'), (s) => t.db.transaction(s), effect)).rejects.toMatchObject({
      extensions: { code: 'CONFLICT', errorCode: 1 },
    });
    clock.advanceSeconds(IDEMPOTENCY_LEASE_MS / 1000);
    expect(await idempotency.run(call('stalled'), (s) => t.db.transaction(s), effect)).toEqual({
      done: true,
    });

    open();
    await expect(first).rejects.toMatchObject({ extensions: { code: 'CONFLICT', errorCode: 1 } });
    expect(await effects()).toBe(1);
    const record = await t.db('idempotency_keys').where({ idempotency_key: 'stalled' }).first();
    expect(record).toMatchObject({ state: 'completed', result: '{"done":true}' });
    // The loser's release did not remove the winner's record: the key still replays.
    expect(await idempotency.run(call('stalled'), (s) => t.db.transaction(s), effect)).toEqual({
      done: true,
    });
    expect(await effects()).toBe(1);
  });

  it('a replay does not run the effect; without a key every call does', async () => {
    const before = await effects();
    await idempotency.run(call('once'), (s) => t.db.transaction(s), effect);
    await idempotency.run(call('once'), (s) => t.db.transaction(s), effect);
    expect(await effects()).toBe(before + 1);
    const unkeyed = { ...call('x'), key: null };
    await idempotency.run(unkeyed, (s) => t.db.transaction(s), effect);
    await idempotency.run(unkeyed, (s) => t.db.transaction(s), effect);
    expect(await effects()).toBe(before + 3);
  });
});
