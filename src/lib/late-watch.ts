import { performance } from 'node:perf_hooks';

/** What {@link LateWatch.race} resolves to when the work outlived its delay. */
export const LATE: unique symbol = Symbol('late');

/** One watched promise: when it is due (ms, the watch's clock) and how to settle its race. */
interface Entry {
  due: number;
  /** Settles the race as late (the watch calls it when due); null once settled, by the work or the watch. */
  settle: (() => void) | null;
}

/** The entries of one delay, due in the order they were added. */
class DelayQueue {
  private entries: Entry[] = [];
  private head = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly now: () => number) {}

  add(entry: Entry): void {
    this.skipSettled();
    this.entries.push(entry);
    this.timer ??= this.arm();
  }

  /** Drops settled entries at the front (requests mostly finish in arrival order). */
  private skipSettled(): void {
    const { entries } = this;
    while (this.head < entries.length && entries[this.head].settle === null) this.head++;
    if (this.head === entries.length) {
      this.entries = [];
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > entries.length) {
      this.entries = entries.slice(this.head);
      this.head = 0;
    }
  }

  /** A timer for the oldest unsettled entry, or undefined when none is left. */
  private arm(): NodeJS.Timeout | undefined {
    this.skipSettled();
    const first = this.entries[this.head];
    if (!first) return undefined;
    return setTimeout(this.fire, Math.max(1, first.due - this.now())).unref();
  }

  private readonly fire = (): void => {
    const now = this.now();
    const { entries } = this;
    for (; this.head < entries.length; this.head++) {
      const entry = entries[this.head];
      if (entry.settle === null) continue;
      if (entry.due > now) break;
      entry.settle();
    }
    this.timer = this.arm();
  };
}

/**
 * Races many promises against a delay each, with one timer per distinct delay instead of a timer
 * and a `Promise.race` per promise (a hot path): the request safety net (src/http/deadline.ts), where
 * every request of a kind has the same delay (its budget plus DEADLINE_GRACE_MS), so the
 * promises of one delay are due in the order they were added and one timer, armed for the
 * oldest one not yet settled, serves them all. Delays are milliseconds on `now`'s clock
 * (default `performance.now()`).
 */
export class LateWatch {
  private readonly queues = new Map<number, DelayQueue>();

  constructor(private readonly now: () => number = () => performance.now()) {}

  /**
   * Settles like `work` when it settles within `delayMs` ms of this call; otherwise resolves
   * {@link LATE} once that time has passed (`work` goes on, unobserved: the caller attaches its
   * own handlers if it cares).
   */
  race<T>(work: Promise<T>, delayMs: number): Promise<T | typeof LATE> {
    return this.watch<T, T | typeof LATE>(work, delayMs, {
      settled: (value) => value,
      failed: (err) => {
        throw err;
      },
      late: () => LATE,
    });
  }

  /**
   * Watches `work` against `delayMs` ms from this call and calls exactly one of `handlers`: its
   * `settled` (with the value) or `failed` (with the error) when `work` settles in time, else
   * `late` once that time has passed (`work` goes on, unobserved). The returned promise settles
   * like that handler: its return value, or what it throws. The same as `race(...).then(...)`
   * with one promise less per call (a hot path: every admitted request, src/http/deadline.ts).
   */
  watch<T, R>(work: Promise<T>, delayMs: number, handlers: WatchHandlers<T, R>): Promise<R> {
    let queue = this.queues.get(delayMs);
    if (!queue) this.queues.set(delayMs, (queue = new DelayQueue(this.now)));
    const due = this.now() + delayMs;
    return new Promise<R>((resolve, reject) => {
      /** Calls `handler` once, unless the race is already settled, and settles the promise like it. */
      const settleWith = (handler: () => R): void => {
        if (entry.settle === null) return;
        entry.settle = null;
        try {
          resolve(handler());
        } catch (err) {
          reject(err);
        }
      };
      const entry: Entry = { due, settle: () => settleWith(handlers.late) };
      queue.add(entry);
      work.then(
        (value) => settleWith(() => handlers.settled(value)),
        (err: unknown) => settleWith(() => handlers.failed(err)),
      );
    });
  }
}

/** What {@link LateWatch.watch} calls: one of them, once. */
export interface WatchHandlers<T, R> {
  /** `work` fulfilled in time, with `value`. */
  settled(value: T): R;
  /** `work` rejected in time, with `err`. */
  failed(err: unknown): R;
  /** `work` had not settled when its delay passed. */
  late(): R;
}
