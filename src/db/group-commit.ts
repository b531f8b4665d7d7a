import type { Knex } from 'knex';
import { DeadlineExceededError, beforeDeadline, runOutsideRequestScope } from '../lib/request-scope';
import { databaseEvents } from './events';

/** Most transactions one COMMIT takes (the rest wait for the next group). */
export const GROUP_COMMIT_MAX_TRANSACTIONS = 64;

/*
 * The savepoint each member runs under (one at a time, so one name serves). Plain statements on
 * the group's transaction, not a knex nested transaction: knex builds a transaction object of
 * about 200 closures for each (measured 90 µs of CPU and about 27 KB allocated per member, a
 * seventh of a rating's CPU on SQLite).
 */
const SAVEPOINT = 'SAVEPOINT group_member';
const RELEASE = 'RELEASE group_member';
const ROLLBACK_TO = 'ROLLBACK TO group_member';

/** A write transaction waiting for its group. */
interface Member {
  /**
   * Starts the transaction's body with the group's transaction (under its savepoint) and
   * answers its outcome. The body runs in its caller's async context (deadline, log fields,
   * trace span): it is a reaction to a promise the caller created (see {@link deferredScope}).
   */
  start: (trx: Knex.Transaction) => Promise<unknown>;
  /** Settles the caller's promise: with the value after COMMIT, with an error at once. */
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
  /**
   * `waiting` for its group; `running` once the group began it (from then on its outcome is the
   * group's: a deadline passing no longer means "not run"); `abandoned` when its caller's deadline
   * passed while it was still waiting (it is then never run).
   */
  state: 'waiting' | 'running' | 'abandoned';
}

/** The parts of the better-sqlite3 connection the group looks at. */
interface SqliteConnection {
  /** False once SQLite has rolled the transaction back by itself. */
  readonly inTransaction: boolean;
}

/**
 * The group's outer transaction was rolled back by SQLite after an error of one of its members
 * (SQLite does so by itself on SQLITE_FULL, SQLITE_IOERR, SQLITE_NOMEM, …): nothing of the group
 * was written. Carries that error as its `cause`.
 */
export class GroupRolledBackError extends Error {
  override name = 'GroupRolledBackError';
  constructor(cause: unknown) {
    super('the transaction group was rolled back by an earlier error; nothing was written', { cause });
  }
}

/**
 * Group commit for the embedded database (a sync of the log shared by many writes).
 *
 * With `synchronous = FULL` every SQLite COMMIT waits for the disk to sync the write-ahead log
 * (0.5-1 ms on the bench machine, on the event loop), so write transactions that queue for the
 * one connection paid one sync each. Here the write transactions asked for within one turn of the
 * event loop (the requests read from their sockets together) form a group: at the end of the
 * turn (`setImmediate`) one outer transaction opens (`BEGIN IMMEDIATE`, see SQLITE_IMMEDIATE in
 * src/db/sqlite.ts), each member runs in it under its own savepoint, one after another, on the
 * group's transaction itself (a member's `trx`), and one COMMIT makes the group durable. A
 * member's promise resolves only after that COMMIT: no client hears of a write before it is
 * durable, as without grouping. The write lock is held only while the group runs, as for a
 * single transaction.
 *
 * - A member whose scope throws is rolled back to its savepoint and rejects at once with its own
 *   error; the other members are unaffected (they see nothing of it). If that rollback fails,
 *   the whole group is rolled back (GroupRolledBackError for those not yet run).
 * - A member's scope must await every statement it starts: it gets the group's transaction, so
 *   a statement still running after its scope returned would belong to the next member.
 * - If the COMMIT fails, or an error made SQLite roll the outer transaction back, every member
 *   rejects (GroupRolledBackError for those not run): none of their writes happened, and all of
 *   them are retried safely (operationIds, idempotency keys).
 * - Reads outside a transaction never see a group's writes before its COMMIT (they wait for the
 *   connection as they wait for any transaction).
 * - Each member's statements run in its caller's async context, so its request's deadline bounds
 *   them; its wait for the group is bounded by that deadline too (DeadlineExceededError): a
 *   member abandoned before the group began it is not run (`connection`); one whose deadline
 *   passes after that hears that the outcome is unknown (`commit`, `outcomeUnknown`).
 * - A group takes at most {@link GROUP_COMMIT_MAX_TRANSACTIONS}; the rest form the next one.
 *
 * MySQL/MariaDB commit each transaction on its own pooled connection and are not grouped here.
 */
export class SqliteGroupCommit {
  private pending: Member[] = [];
  private scheduled = false;

  /**
   * @param db the root knex instance of an SQLite database (one connection).
   * @param begin the options of each group's transaction (createKnex passes SQLITE_IMMEDIATE:
   *   `BEGIN IMMEDIATE`, another process's write lock waited for without stalling the process).
   */
  constructor(
    private readonly db: Knex,
    private readonly begin: Record<string, unknown>,
  ) {}

  /**
   * Runs `scope` as one write transaction in the next group and resolves with its result once
   * the group's COMMIT succeeded.
   * @throws `scope`'s own error (its writes rolled back); the COMMIT's or BEGIN's error, or
   *   GroupRolledBackError (nothing written); DeadlineExceededError (`connection`) when the
   *   request's deadline passes before the group runs it (it is then not run), or (`commit`,
   *   `outcomeUnknown`) when it passes after the group began it and before the group's COMMIT
   *   answered.
   */
  run<T>(scope: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
    let member: Member | undefined;
    return beforeDeadline(
      () =>
        new Promise<T>((resolve, reject) => {
          member = {
            start: deferredScope(scope),
            resolve: resolve as (value: unknown) => void,
            reject,
            state: 'waiting',
          };
          this.pending.push(member);
          this.schedule();
        }),
      // Not begun: it never will be. Begun: its writes may be committed by the group, so the
      // outcome is unknown (a retry with the same operationId or idempotency key answers it).
      () => (member!.state === 'waiting' ? notBegun() : commitPastDeadline()),
      () => {
        if (member!.state === 'waiting') member!.state = 'abandoned';
      },
    );
  }

  /** Runs the pending members as a group at the end of this turn of the event loop. */
  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      const members = this.pending.splice(0, GROUP_COMMIT_MAX_TRANSACTIONS);
      if (this.pending.length > 0) this.schedule();
      // The COMMIT belongs to no one request: each member's deadline bounds its own statements.
      void runOutsideRequestScope(() => this.runGroup(members));
    });
  }

  /** One outer transaction: every member under a savepoint, then one COMMIT; settles each member. */
  private async runGroup(members: Member[]): Promise<void> {
    const done: { member: Member; value: unknown }[] = [];
    let broken: unknown;
    try {
      await this.db.transaction(async (outer) => {
        const conn = (await outer.client.acquireConnection()) as SqliteConnection;
        for (const member of members) {
          if (member.state === 'abandoned') continue;
          member.state = 'running';
          if (broken !== undefined) {
            member.reject(new GroupRolledBackError(broken));
            continue;
          }
          let thrown: { err: unknown } | undefined;
          try {
            await outer.raw(SAVEPOINT);
            let value: unknown;
            try {
              value = await member.start(outer);
            } catch (err) {
              thrown = { err };
              throw err;
            }
            await outer.raw(RELEASE);
            done.push({ member, value });
          } catch (err) {
            // Its own error, which a failing ROLLBACK TO SAVEPOINT must not hide.
            const own = thrown ? thrown.err : err;
            member.reject(own);
            // SQLite ended the outer transaction itself: what ran before is gone.
            if (!conn.inTransaction) broken = own;
            else
              try {
                await outer.raw(ROLLBACK_TO);
                await outer.raw(RELEASE);
              } catch (undoFailed) {
                // Its writes could not be taken back: none of the group may be committed.
                broken = undoFailed;
              }
          }
        }
        // Rolled back by SQLite: a COMMIT now could only commit what a later SAVEPOINT began.
        if (broken !== undefined) throw new GroupRolledBackError(broken);
        if (done.length > 0) databaseEvents.groupCommitted(done.length);
      }, this.begin as Knex.TransactionConfig);
    } catch (err) {
      // BEGIN or COMMIT failed, or SQLite rolled the group back (then knex's own ROLLBACK fails
      // too; the members hear why): nothing of it was written.
      const reason = broken !== undefined ? new GroupRolledBackError(broken) : err;
      for (const m of members) m.reject(reason);
      return;
    }
    for (const { member, value } of done) member.resolve(value);
  }
}

/**
 * `scope`, to be started later in the async context of this call (the caller's request scope,
 * log fields and trace span): a reaction to a promise made here, which the returned function
 * resolves with the transaction. Not `AsyncResource.bind`: its bound function (properties
 * redefined, so a dictionary-mode object of about 2.7 KB) was a quarter of the bytes a rating
 * load promoted to the old generation (issue 33, docs/benchmarks.md "Rating p99 on SQLite").
 */
function deferredScope<T>(
  scope: (trx: Knex.Transaction) => Promise<T>,
): (trx: Knex.Transaction) => Promise<T> {
  let begin!: (trx: Knex.Transaction) => void;
  const outcome = new Promise<Knex.Transaction>((resolve) => (begin = resolve)).then(scope);
  return (trx) => {
    begin(trx);
    return outcome;
  };
}

/** The group commit of each SQLite knex instance opened with `sqliteGroupCommit` (see {@link enableGroupCommit}). */
const groupCommits = new WeakMap<Knex, SqliteGroupCommit>();

/**
 * Gives the root SQLite knex instance `db` a group commit whose transactions begin with the
 * options `begin` (see {@link SqliteGroupCommit}); `createKnex` calls it with `sqliteGroupCommit` on.
 */
export function enableGroupCommit(db: Knex, begin: Record<string, unknown>): void {
  groupCommits.set(db, new SqliteGroupCommit(db, begin));
}

/**
 * The group commit of `db` (see {@link SqliteGroupCommit}): set for a root SQLite instance
 * opened by `createKnex` with `sqliteGroupCommit`; undefined on MySQL/MariaDB, with the
 * setting off, and for a transaction (its writes join it).
 */
export function groupCommitOf(db: Knex): SqliteGroupCommit | undefined {
  return groupCommits.get(db);
}

/**
 * True when the write transactions `retryingTransaction` and `lockingTransaction` (./retry.ts) run
 * on `db` go through its group commit ({@link SqliteGroupCommit}: SQLite, `SQLITE_GROUP_COMMIT`
 * on), one after another on its one connection.
 */
export function groupsCommits(db: Knex): boolean {
  return groupCommits.has(db);
}

/** The request's deadline passed while its transaction waited for its group: it is not run. */
function notBegun(): DeadlineExceededError {
  return new DeadlineExceededError('connection', {
    message: 'request deadline passed while waiting for a database connection',
  });
}

/**
 * The request's deadline passed after its transaction group had begun its transaction and
 * before the group's COMMIT answered: its writes may be committed, so the outcome is unknown
 * (as for a COMMIT past its bound), and a retry with the same operationId or idempotency key
 * answers it.
 */
function commitPastDeadline(): DeadlineExceededError {
  return new DeadlineExceededError('commit', {
    message: 'request deadline passed while its transaction group committed; the outcome is unknown',
    outcomeUnknown: true,
  });
}
