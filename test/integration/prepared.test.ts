import { DEFAULT_DB_LIMITS, createKnex, databaseFailureOf } from '../../src/db/knex';
import { preparedRows } from '../../src/db/prepared';
import { DeadlineExceededError, isDeadlineExceeded, runInRequestScope } from '../../src/lib/request-scope';
import { TestDb, createTestDb } from '../helpers/db';
import { waitFor } from '../helpers/wait';

// preparedRows: the hot SELECTs as prepared statements keep what src/db/knex.ts
// guarantees: transactions, deadlines, statement bounds, failure classification.
describe('preparedRows on the real database', () => {
  let t: TestDb;
  beforeAll(async () => {
    t = await createTestDb();
    await t.db('tenants').insert({ id: 1, name: 'acme', created_at: 0 });
  });
  afterAll(() => t.destroy());

  const byName = (db: typeof t.db, name: string) =>
    preparedRows<{ id: number; name: string }>(db, 'select id, name from tenants where name = ?', [name]);

  it('answers the rows knex answers, again and again with the statement prepared once', async () => {
    const knexRows = await t.db('tenants').select('id', 'name').where({ name: 'acme' });
    for (let i = 0; i < 3; i++)
      expect((await byName(t.db, 'acme')).map((r) => ({ ...r }))).toEqual(knexRows.map((r) => ({ ...r })));
    expect(await byName(t.db, 'nobody')).toEqual([]);
    if (t.dialect === 'sqlite') {
      // The connection's statement cache: one prepared statement per SQL text.
      const client = t.db.client as {
        acquireConnection(): Promise<{ prepare(sql: string): unknown }>;
        releaseConnection(c: unknown): Promise<void>;
      };
      const conn = await client.acquireConnection();
      try {
        const sql = 'select id, name from tenants where name = ?';
        expect(conn.prepare(sql)).toBe(conn.prepare(sql));
        expect(conn.prepare(sql)).not.toBe(conn.prepare('select id from tenants'));
      } finally {
        await client.releaseConnection(conn);
      }
    }
  });

  it('binds hostile values as values: quotes, backslashes, placeholders and comments match only themselves', async () => {
    const names = [`o'brien \\ "x" -- ; ?`, `?`, `\\' or 1=1 -- `];
    await t.db('tenants').insert(names.map((name, i) => ({ id: 10 + i, name, created_at: 0 })));
    for (const [i, name] of names.entries())
      expect((await byName(t.db, name)).map((r) => ({ id: Number(r.id), name: r.name }))).toEqual([
        { id: 10 + i, name },
      ]);
    expect(await byName(t.db, `' or '1'='1`)).toEqual([]);
    expect(await byName(t.db, `acme' -- `)).toEqual([]);
  });

  // src/db/mysql.ts: on MySQL every statement goes as text (mysql2 `query`), none as a server-side
  // prepared statement (`execute` cost the gateway CPU and promoted memory, docs/benchmarks.md).
  it('on MySQL: prepares nothing on the server', async () => {
    if (t.dialect !== 'mysql') return;
    const counters = async () => {
      const [rows] = (await t.db.raw(
        "show global status where variable_name in ('Com_stmt_prepare', 'Com_stmt_execute')",
      )) as [Array<{ Value: string }>];
      return rows.reduce((sum, r) => sum + Number(r.Value), 0);
    };
    const before = await counters();
    for (let i = 0; i < 20; i++) expect((await byName(t.db, 'acme')).length).toBe(1);
    expect((await counters()) - before).toBe(0);
  });

  it('runs on the transaction it is given: sees its uncommitted rows, not after the rollback; a completed one refuses it', async () => {
    let done: typeof t.db | undefined;
    await expect(
      t.db.transaction(async (trx) => {
        await trx('tenants').insert({ id: 2, name: 'in-flight', created_at: 0 });
        expect((await byName(trx, 'in-flight')).map((r) => Number(r.id))).toEqual([2]);
        done = trx;
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await byName(t.db, 'in-flight')).toEqual([]);
    await expect(byName(done!, 'acme')).rejects.toThrow(/Transaction query already complete/);
  });

  it('sends nothing once the request deadline has passed: DeadlineExceededError, a timeout for clients', async () => {
    const started = performance.now();
    const err = await runInRequestScope(5, async () => {
      // Past the 5 ms deadline (with a margin for the clock's granularity) before the statement.
      await waitFor(() => performance.now() - started > 10, { what: 'the request deadline to pass' });
      return byName(t.db, 'acme').then(
        () => undefined,
        (e: unknown) => e,
      );
    });
    expect(err).toBeInstanceOf(DeadlineExceededError);
    expect(databaseFailureOf(err)).toBe('timeout');
    expect(isDeadlineExceeded(err)).toBe(true);
  });

  // src/db/sqlite.ts idleSqliteConnection: on SQLite a prepared read outside a transaction runs on
  // the pool's one connection at once while it is idle, and waits for it like any statement while
  // a transaction holds it (it never reads that transaction's uncommitted rows).
  it('on SQLite: runs on the idle connection without a pool acquire, waits while a transaction holds it', async () => {
    if (t.dialect !== 'sqlite') return;
    const pool = (
      t.db.client as {
        pool: { on(e: string, fn: () => void): void; removeListener(e: string, fn: () => void): void };
      }
    ).pool;
    let acquires = 0;
    const onAcquire = () => acquires++;
    const statements: string[] = [];
    const onQuery = (q: { sql: string }) => statements.push(q.sql);
    pool.on('acquireRequest', onAcquire);
    t.db.on('query', onQuery);
    try {
      expect((await byName(t.db, 'acme')).map((r) => Number(r.id))).toEqual([1]);
      expect(acquires).toBe(0);
      expect(statements).toEqual(['select id, name from tenants where name = ?']);

      let commit!: () => void;
      const held = new Promise<void>((resolve) => (commit = resolve));
      const trx = t.db.transaction(async (tx) => {
        await tx('tenants').insert({ id: 3, name: 'held', created_at: 0 });
        await held;
      });
      await waitFor(() => acquires === 1, { what: 'the transaction to hold the connection' });
      let read: number[] | undefined;
      const reading = byName(t.db, 'held').then((rows) => (read = rows.map((r) => Number(r.id))));
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(read).toBeUndefined(); // waiting for the connection, not reading the open transaction
      expect(acquires).toBe(2);
      commit();
      await trx;
      await reading;
      expect(read).toEqual([3]);
    } finally {
      pool.removeListener('acquireRequest', onAcquire);
      t.db.off('query', onQuery);
    }
    // A driver error keeps its code (what databaseFailureOf reads).
    await expect(preparedRows(t.db, 'select * from no_such_table where id = ?', [1])).rejects.toMatchObject({
      code: 'SQLITE_ERROR',
    });
  });

  // src/db/bound-client.ts takeIdleConnection: on MySQL a prepared read outside a transaction
  // takes an idle pooled connection at once (no pool acquire and its promises), waits in the
  // pool's queue like any statement when none is idle, and never takes a disposed one.
  it('on MySQL: reads on an idle pooled connection without a pool acquire, waits while a transaction holds it, skips a disposed one', async () => {
    if (t.dialect !== 'mysql') return;
    const db = createKnex(t.url, { ...DEFAULT_DB_LIMITS, poolMax: 1 });
    const client = db.client as {
      acquireConnection(): Promise<unknown>;
      pool: {
        numUsed(): number;
        numFree(): number;
        free: Array<{ resource: { __knex__disposed?: unknown } }>;
      };
    };
    const acquire = client.acquireConnection;
    let acquires = 0;
    client.acquireConnection = function (this: unknown) {
      acquires++;
      return acquire.call(this);
    };
    const statements: string[] = [];
    db.on('query', (q: { sql: string }) => statements.push(q.sql));
    const ids = async (name: string) => (await byName(db, name)).map((r) => Number(r.id));
    const threadId = async () =>
      Number((await preparedRows<{ id: number }>(db, 'select connection_id() as id', []))[0].id);
    try {
      expect(await ids('acme')).toEqual([1]); // no idle connection yet: the pool makes one
      expect(acquires).toBe(1);
      const first = await threadId();
      for (let i = 0; i < 3; i++) expect(await ids('acme')).toEqual([1]);
      expect(await threadId()).toBe(first);
      expect(acquires).toBe(1);
      expect(statements.filter((sql) => sql.startsWith('select id, name'))).toHaveLength(4);
      expect([client.pool.numUsed(), client.pool.numFree()]).toEqual([0, 1]);

      let commit!: () => void;
      const held = new Promise<void>((resolve) => (commit = resolve));
      const trx = db.transaction(async (tx) => {
        await tx('tenants').insert({ id: 4, name: 'held-mysql', created_at: 0 });
        await held;
      });
      await waitFor(() => client.pool.numUsed() === 1, { what: 'the transaction to hold the connection' });
      let read: number[] | undefined;
      const reading = ids('held-mysql').then((r) => (read = r));
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(read).toBeUndefined(); // waiting in the pool's queue
      expect(acquires).toBe(3);
      commit();
      await trx;
      await reading;
      expect(read).toEqual([4]);
      expect([client.pool.numUsed(), client.pool.numFree()]).toEqual([0, 1]);

      // A disposed idle connection is not taken: the pool's acquire destroys it and makes another.
      client.pool.free[0].resource.__knex__disposed = new Error('disposed by the test');
      expect(await threadId()).not.toBe(first);
      expect(acquires).toBe(4);
      expect(await ids('acme')).toEqual([1]);
      expect(acquires).toBe(4);
    } finally {
      await db.destroy();
      await t.db('tenants').where({ id: 4 }).delete();
    }
  });

  it('on MySQL: a statement past the request deadline destroys its connection and the pool goes on', async () => {
    if (t.dialect !== 'mysql') return;
    const db = createKnex(t.url, { ...DEFAULT_DB_LIMITS, statementTimeoutMs: 5000, poolMax: 1 });
    try {
      const started = performance.now();
      // A deliberately slow statement (SELECT SLEEP(3)) that outlives the 200 ms deadline.
      const err = await runInRequestScope(200, () =>
        preparedRows(db, 'select sleep(?) as s', [3]).then(
          () => undefined,
          (e: unknown) => e,
        ),
      );
      expect(performance.now() - started).toBeLessThan(1500);
      expect(err).toBeInstanceOf(DeadlineExceededError);
      expect(databaseFailureOf(err)).toBe('timeout');
      // The one pooled connection was destroyed; the next statement gets a new one.
      expect((await byName(db, 'acme')).length).toBe(1);
    } finally {
      await db.destroy();
    }
  });
  // src/db/mysql.ts sendMysql: every statement reaches mysql2 as its SQL string (not knex's options
  // object), with mysql2 `query` (none with `execute`); a statement with driver options goes through
  // knex's own path. Each answers what knex answers.
  it('on MySQL: builder, raw, insert and driver-option statements answer as knex does; errors keep their driver code', async () => {
    if (t.dialect !== 'mysql') return;
    const [id] = await t.db('tenants').insert({ name: 'sent-as-string', created_at: 0 });
    expect(id).toBeGreaterThan(0);
    expect(await t.db('tenants').where({ id }).first('name')).toEqual({ name: 'sent-as-string' });
    const [rows] = (await t.db.raw('select name from tenants where id = ?', [id])) as [
      Array<{ name: string }>,
    ];
    expect(rows.map((r) => r.name)).toEqual(['sent-as-string']);
    // nestTables is a driver option: the rows come nested by table, as only mysql2 makes them.
    const nested = (await t
      .db('tenants')
      .where({ id })
      .select('name')
      .options({ nestTables: true })) as Array<{
      tenants: { name: string };
    }>;
    expect(nested.map((r) => r.tenants.name)).toEqual(['sent-as-string']);
    expect(await t.db('tenants').where({ id }).update({ name: 'renamed' })).toBe(1);
    expect((await byName(t.db, 'renamed')).map((r) => Number(r.id))).toEqual([id]);
    await expect(t.db.raw('select * from no_such_table')).rejects.toMatchObject({ code: 'ER_NO_SUCH_TABLE' });
    await expect(preparedRows(t.db, 'select * from no_such_table where id = ?', [1])).rejects.toMatchObject({
      code: 'ER_NO_SUCH_TABLE',
    });
  });
});
