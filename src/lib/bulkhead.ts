import { DeadlineExceededError, remainingMs } from './request-scope';

interface Waiter {
  grant(): void;
}

interface Lane {
  running: number;
  queue: Waiter[];
}

/**
 * A keyed bulkhead: at most `perKey` operations for one key (e.g. one
 * subscriber) hold a database connection at a time in this process; the others wait here, off
 * the pool, until a slot frees or their request's deadline passes (read from the request scope). A locked or hot row therefore occupies
 * at most `perKey` pooled connections and cannot starve requests for other keys.
 */
export class KeyedBulkhead {
  private readonly lanes = new Map<string, Lane>();

  constructor(private readonly perKey = 1) {}

  /**
   * Runs `fn` once `key` has a free slot, waiting for it at most until the current request's
   * deadline (outside a request, without bound).
   * @throws DeadlineExceededError (`bulkhead`) when no slot freed before the deadline (`fn` did not run).
   */
  async run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    let lane = this.lanes.get(key);
    if (!lane) {
      lane = { running: 0, queue: [] };
      this.lanes.set(key, lane);
    }
    // A freed slot is handed to the next waiter directly, so arrivals cannot overtake the queue.
    if (lane.running >= this.perKey) await this.wait(lane, remainingMs());
    else lane.running++;
    try {
      return await fn();
    } finally {
      const next = lane.queue.shift();
      if (next) next.grant();
      else if (--lane.running === 0) this.lanes.delete(key);
    }
  }

  /** Keys with work running or waiting (for tests and metrics). */
  get activeKeys(): number {
    return this.lanes.size;
  }

  private wait(lane: Lane, waitMs: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        grant: () => {
          clearTimeout(timer);
          resolve();
        },
      };
      const timer = setTimeout(
        () => {
          lane.queue.splice(lane.queue.indexOf(waiter), 1);
          reject(
            new DeadlineExceededError('bulkhead', { message: 'waited past the deadline for a busy key' }),
          );
        },
        Math.max(0, Math.min(waitMs, 2 ** 31 - 1)),
      );
      lane.queue.push(waiter);
    });
  }
}
