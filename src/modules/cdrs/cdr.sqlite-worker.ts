import { Worker } from 'node:worker_threads';
import { Knex } from 'knex';
import { dialectOf } from '../../db/dialect';
import { CDR_COLUMNS, CdrInsert, CdrValues, cdrValues } from './cdr.store';

/*
 * Why a thread (issue 33): better-sqlite3 is synchronous, so a batch INSERT and its COMMIT on
 * the gateway's connection run on the event loop, and with SQLITE_SYNCHRONOUS=full (the default)
 * the COMMIT waits for fsync, and every wal_autocheckpoint pages for a checkpoint: measured 4-10 ms
 * per 500-row batch (median), up to 45 ms, during which no request is served. Since a valid
 * introspection writes its token CDR "validate", that stall came back every batch (20 a second
 * at 10,000 introspections a second) and held REST introspection to about 0.6x of its speed
 * without CDRs, and its p99. On a SQLite file the batches are written on a second connection in a
 * worker thread instead: the main thread only posts the rows. SQLite has one writer at a time;
 * the gateway's own write transactions (group commit: BEGIN IMMEDIATE, src/db/sqlite.ts) wait for
 * the worker's lock without blocking the event loop, as they wait for another process's.
 */

/**
 * The worker's source (plain JavaScript, evaluated: the gateway also runs bundled, with no
 * worker file beside it). `workerData`: `driver` (resolved path of better-sqlite3), `file`,
 * `pragmas` (the gateway connection's settings), `insert` (the INSERT statement). Each message
 * `{ id, rows }` (rows as {@link CdrValues}) is written in one `BEGIN IMMEDIATE` transaction and
 * answered `{ id }`, or `{ id, error: { message, code } }` with nothing written.
 */
const WORKER_SOURCE = `
'use strict';
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file);
for (const p of workerData.pragmas) db.pragma(p);
const insert = db.prepare(workerData.insert);
const writeAll = db.transaction((rows) => { for (const row of rows) insert.run(row); });
parentPort.on('message', ({ id, rows }) => {
  try {
    writeAll.immediate(rows);
    parentPort.postMessage({ id });
  } catch (err) {
    parentPort.postMessage({ id, error: { message: String((err && err.message) || err), code: err && err.code } });
  }
});
`;

const INSERT_SQL = `insert into cdrs (${CDR_COLUMNS.join(', ')}) values (${CDR_COLUMNS.map(() => '?').join(', ')})`;

/** The connection settings the worker copies from the gateway's connection (src/db/sqlite.ts). */
const COPIED_PRAGMAS = ['synchronous', 'foreign_keys', 'busy_timeout', 'wal_autocheckpoint'] as const;

/**
 * Least time, ms, the worker waits for the write lock (its `busy_timeout`, when the gateway's is
 * shorter). Its wait blocks only the worker thread, and a batch refused for a busy database counts
 * as a failed attempt (3 and its CDRs are given up): so under a steady stream of the gateway's
 * group commits the thread waits for a gap rather than losing CDRs.
 */
export const CDR_THREAD_BUSY_TIMEOUT_MS = 10_000;

/** A write the worker has not answered yet. */
interface Waiting {
  resolve: () => void;
  reject: (err: Error) => void;
}

/** A failure the worker reported for a batch (nothing of it was written); `code` is SQLite's (`SQLITE_CONSTRAINT_FOREIGNKEY`). */
export class CdrWorkerError extends Error {
  override name = 'CdrWorkerError';
  constructor(
    message: string,
    readonly code?: string,
  ) {
    super(message);
  }
}

/**
 * Writes batches of CDRs to a SQLite database file from a worker thread with its own
 * connection (see the comment at the top of this file), one batch at a time, in the order
 * given. The thread starts on the first write and holds the event loop open only while a batch
 * is being written; {@link close} stops it (a later write starts it again).
 */
export class SqliteCdrWorker {
  private worker: Worker | undefined;
  private pragmas: Promise<string[]> | undefined;
  private readonly waiting = new Map<number, Waiting>();
  private nextId = 0;

  /** `file`: the database file; `db`: the gateway's knex instance on it, whose settings the worker copies. */
  constructor(
    private readonly db: Knex,
    private readonly file: string,
  ) {}

  /**
   * Writes `rows` in one transaction; resolves once committed.
   * @throws CdrWorkerError (the promise rejects) when the batch was refused or the worker failed: nothing of it was written.
   */
  async write(rows: readonly CdrInsert[]): Promise<void> {
    if (rows.length === 0) return;
    const worker = this.worker ?? (await this.start());
    const id = this.nextId++;
    const values: CdrValues[] = rows.map(cdrValues);
    const done = new Promise<void>((resolve, reject) => this.waiting.set(id, { resolve, reject }));
    worker.ref();
    worker.postMessage({ id, rows: values });
    return done;
  }

  /** Stops the worker thread (after the batch being written, which the caller awaits first). */
  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    if (worker) await worker.terminate();
  }

  /** Starts the worker with the gateway connection's settings. */
  private async start(): Promise<Worker> {
    const pragmas = await (this.pragmas ??= this.readPragmas());
    if (this.worker) return this.worker; // another write started it meanwhile
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { driver: require.resolve('better-sqlite3'), file: this.file, pragmas, insert: INSERT_SQL },
    });
    worker.unref();
    worker.on('message', (m: { id: number; error?: { message: string; code?: string } }) => {
      const w = this.waiting.get(m.id);
      this.waiting.delete(m.id);
      if (this.waiting.size === 0) worker.unref();
      if (!w) return;
      if (m.error) w.reject(new CdrWorkerError(m.error.message, m.error.code));
      else w.resolve();
    });
    const failed = (err: Error): void => {
      if (this.worker === worker) this.worker = undefined;
      for (const w of this.waiting.values())
        w.reject(new CdrWorkerError(`CDR writer thread: ${err.message}`));
      this.waiting.clear();
    };
    worker.on('error', failed);
    worker.on('exit', (code) => failed(new Error(`exited with code ${code}`)));
    this.worker = worker;
    return worker;
  }

  /**
   * `journal_mode = WAL` and the values of {@link COPIED_PRAGMAS} on the gateway's connection, as
   * pragma statements (`busy_timeout` at least {@link CDR_THREAD_BUSY_TIMEOUT_MS}).
   */
  private async readPragmas(): Promise<string[]> {
    const out = ['journal_mode = WAL'];
    for (const name of COPIED_PRAGMAS) {
      const rows = (await this.db.raw(`PRAGMA ${name}`)) as Record<string, unknown>[];
      const value = rows[0] && Object.values(rows[0])[0];
      if (name === 'busy_timeout')
        out.push(`busy_timeout = ${Math.max(Number(value) || 0, CDR_THREAD_BUSY_TIMEOUT_MS)}`);
      else if (typeof value === 'number' || typeof value === 'string') out.push(`${name} = ${value}`);
    }
    return out;
  }
}

/**
 * The database file of `db` when it is a SQLite file (not `:memory:`, which a second connection
 * cannot open), else undefined.
 */
export function sqliteFileOf(db: Knex): string | undefined {
  if (dialectOf(db) !== 'sqlite') return undefined;
  const connection = (db.client as { config?: { connection?: { filename?: string } } }).config?.connection;
  const file = connection?.filename;
  return file && file !== ':memory:' && !file.startsWith('file:') ? file : undefined;
}
