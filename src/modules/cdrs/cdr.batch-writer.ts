import { Knex } from 'knex';
import { groupedWrite } from '../../db/knex';
import { runOutsideRequestScope } from '../../lib/request-scope';
import { Logger } from '../../logger';
import { SqliteCdrWorker, sqliteFileOf } from './cdr.sqlite-worker';
import { CdrInsert, insertCdrs } from './cdr.store';

/** Longest time a buffered CDR waits for its batch, ms (the loss window on a crash). */
export const CDR_FLUSH_INTERVAL_MS = 100;
/** Most CDRs one batch INSERT takes; a buffer this full is flushed at once. */
export const CDR_BATCH_MAX = 500;
/** Most CDRs buffered; past it a CDR is written before its caller goes on (back-pressure, no loss). */
export const CDR_BUFFER_MAX = 10_000;
/** Attempts at writing a CDR before it is given up, logged at error level and counted in `dropped`. */
export const CDR_WRITE_ATTEMPTS = 3;

/** A buffered CDR and the failed attempts at writing it so far. */
interface Pending {
  row: CdrInsert;
  attempts: number;
}

/** Limits of a {@link CdrBatchWriter} (the defaults are the constants above). */
export interface CdrBatchLimits {
  flushIntervalMs?: number;
  batchMax?: number;
  bufferMax?: number;
  /**
   * On a SQLite file, write the batches from a worker thread with its own connection
   * (cdr.sqlite-worker.ts), so that their COMMIT (fsync, checkpoints) never stalls the event loop.
   * Default true; false writes them on the gateway's connection (as on MySQL/MariaDB, whose
   * driver never blocks the event loop, and on an in-memory SQLite database).
   */
  thread?: boolean;
}

const DONE: Promise<void> = Promise.resolve();

/**
 * Writes CDRs that belong to no write transaction of their own (a token validated, docs/events.md
 * "Token CDR") off the request path: {@link add} appends to an in-process buffer, and a batch
 * writer inserts the buffer in order with one multi-row INSERT per batch (on SQLite sharing a
 * COMMIT, {@link groupedWrite}; on a SQLite file from a worker thread instead, see
 * {@link CdrBatchLimits.thread}), at most {@link CDR_FLUSH_INTERVAL_MS} after the first buffered
 * CDR, at once when {@link CDR_BATCH_MAX} are waiting. Batches run one at a time, outside any
 * request's scope (no request deadline), so CDR ids follow the order of `add`/`writeNow` calls.
 *
 * - A batch that fails goes back to the front of the buffer and is retried at the next flush; a
 *   CDR that failed {@link CDR_WRITE_ATTEMPTS} times is given up: logged at error level with the
 *   count, and counted in {@link dropped}. Nothing is lost without an error log.
 * - With {@link CDR_BUFFER_MAX} CDRs waiting (the database behind or failing) `add` returns the
 *   flush that writes its CDR: the caller waits, as it would for a write of its own.
 * - {@link flush} writes everything buffered (the app's `close` calls it on shutdown). A crash
 *   (SIGKILL, out of memory) loses what was buffered: at most the last flush interval's CDRs
 *   while the database keeps up.
 */
export class CdrBatchWriter {
  private buffer: Pending[] = [];
  private timer: NodeJS.Timeout | null = null;
  private chain: Promise<void> = DONE;
  private readonly flushIntervalMs: number;
  private readonly batchMax: number;
  private readonly bufferMax: number;
  private readonly thread: SqliteCdrWorker | undefined;
  /** CDRs given up after {@link CDR_WRITE_ATTEMPTS} failed attempts (each logged at error level). */
  dropped = 0;

  constructor(
    private readonly db: Knex,
    private readonly logger?: Logger,
    limits: CdrBatchLimits = {},
  ) {
    this.flushIntervalMs = limits.flushIntervalMs ?? CDR_FLUSH_INTERVAL_MS;
    this.batchMax = limits.batchMax ?? CDR_BATCH_MAX;
    this.bufferMax = limits.bufferMax ?? CDR_BUFFER_MAX;
    const file = limits.thread === false ? undefined : sqliteFileOf(db);
    this.thread = file === undefined ? undefined : new SqliteCdrWorker(db, file);
  }

  /** CDRs buffered and not yet written. */
  get pending(): number {
    return this.buffer.length;
  }

  /**
   * Buffers `row` for the next batch. Returns undefined (nothing to wait for: a hot path, no
   * promise), unless the buffer is full: then a promise that resolves once a flush has written
   * (or given up) the buffer up to `row`. Never rejects.
   */
  add(row: CdrInsert): Promise<void> | undefined {
    this.buffer.push({ row, attempts: 0 });
    if (this.buffer.length >= this.bufferMax) return this.flush();
    if (this.buffer.length >= this.batchMax) void this.flush();
    else this.schedule();
    return undefined;
  }

  /**
   * Writes `row` now, after every CDR buffered before it: resolves once it is written, or
   * logged as not written. Never rejects. For the rare CDRs whose order against a write of their
   * caller matters (a validation followed by the token's CDR "expire").
   */
  writeNow(row: CdrInsert): Promise<void> {
    this.buffer.push({ row, attempts: 0 });
    return this.flush();
  }

  /**
   * Writes every CDR buffered so far, in batches of at most {@link CDR_BATCH_MAX}, after any batch
   * already being written. Resolves when the buffer is empty or a batch failed (its CDRs stay
   * buffered for the next flush, and the timer is set again). Never rejects.
   */
  flush(): Promise<void> {
    return runOutsideRequestScope(() => {
      this.chain = this.chain.then(() => this.drain());
      return this.chain;
    });
  }

  /**
   * Writes every CDR buffered (as {@link flush}), then stops the worker thread, if any (a later
   * CDR starts it again). The app's `close` calls it on shutdown, before the database closes.
   * Never rejects.
   */
  async close(): Promise<void> {
    await this.flush();
    await this.thread?.close();
  }

  /** Sets the flush timer, unless set; it does not keep the process alive. */
  private schedule(): void {
    if (this.timer) return;
    runOutsideRequestScope(() => {
      this.timer = setTimeout(() => {
        this.timer = null;
        void this.flush();
      }, this.flushIntervalMs);
      this.timer.unref();
    });
  }

  /** Writes batches until the buffer is empty; stops at the first failed batch. */
  private async drain(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    while (this.buffer.length > 0) {
      const batch = this.buffer.splice(0, this.batchMax);
      try {
        const rows = batch.map((p) => p.row);
        await (this.thread ? this.thread.write(rows) : groupedWrite(this.db, (db) => insertCdrs(db, rows)));
      } catch (err) {
        this.failed(batch, err);
        return;
      }
    }
  }

  /** A batch failed: its CDRs go back to the front, those out of attempts are given up. */
  private failed(batch: Pending[], err: unknown): void {
    const retry = batch.filter((p) => ++p.attempts < CDR_WRITE_ATTEMPTS);
    const given = batch.length - retry.length;
    this.buffer.unshift(...retry);
    this.dropped += given;
    this.logger?.error(
      { err, cdrs: batch.length, retried: retry.length, dropped: given },
      given > 0 ? 'CDRs not written and given up' : 'CDRs not written; retried at the next flush',
    );
    if (this.buffer.length > 0) this.schedule();
  }
}

const shared = new WeakMap<Knex, CdrBatchWriter>();

/**
 * The one {@link CdrBatchWriter} of database `db` in this process (created on first use with
 * `logger` and `limits`, which later calls do not change): every service writing buffered CDRs
 * to one database shares it, so their CDRs keep one order.
 */
export function sharedCdrWriter(db: Knex, logger?: Logger, limits?: CdrBatchLimits): CdrBatchWriter {
  let writer = shared.get(db);
  if (!writer) {
    writer = new CdrBatchWriter(db, logger, limits);
    shared.set(db, writer);
  }
  return writer;
}
