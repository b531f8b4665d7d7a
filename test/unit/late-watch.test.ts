import { LATE, LateWatch } from '../../src/lib/late-watch';
import { quietPeriod, simulatedDelay } from '../helpers/wait';

/** A promise settled from outside. */
function deferred<T>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** When `p` settled, ms after `start` (rejections count as settling). */
async function settledAfter(p: Promise<unknown>, start: number): Promise<{ ms: number; value: unknown }> {
  const value = await p.catch((err: unknown) => err);
  return { ms: performance.now() - start, value };
}

describe('LateWatch (one timer per delay for the request safety net)', () => {
  it('settles like the work when it settles in time: value, and rejection', async () => {
    const watch = new LateWatch();
    await expect(watch.race(Promise.resolve(42), 50)).resolves.toBe(42);
    const err = new Error('boom');
    await expect(watch.race(Promise.reject(err), 50)).rejects.toBe(err);
    const slow = deferred<string>();
    const raced = watch.race(slow.promise, 200);
    await simulatedDelay(20, 'the work taking 20 ms of its 200 ms');
    slow.resolve('done');
    await expect(raced).resolves.toBe('done');
  });

  it('watch calls exactly one handler, once, and settles like it (its value, or what it throws)', async () => {
    const watch = new LateWatch();
    const calls: string[] = [];
    const handlers = (tag: string) => ({
      settled: (v: number) => (calls.push(`${tag} settled ${v}`), v * 2),
      failed: (e: unknown) => {
        calls.push(`${tag} failed ${(e as Error).message}`);
        throw new Error(`handled ${(e as Error).message}`);
      },
      late: () => (calls.push(`${tag} late`), -1),
    });
    await expect(watch.watch(Promise.resolve(21), 50, handlers('a'))).resolves.toBe(42);
    await expect(watch.watch(Promise.reject(new Error('boom')), 50, handlers('b'))).rejects.toThrow(
      'handled boom',
    );
    // Late: `late` answers, and the work settling afterwards calls nothing more.
    const slow = deferred<number>();
    await expect(watch.watch(slow.promise, 30, handlers('c'))).resolves.toBe(-1);
    slow.resolve(5);
    await simulatedDelay(20, 'the late work settling after its watch');
    // A `late` that throws rejects the watch.
    const stuck = deferred<number>();
    const throwing = watch.watch(stuck.promise, 30, {
      ...handlers('d'),
      late: () => {
        throw new Error('late and failing');
      },
    });
    await expect(throwing).rejects.toThrow('late and failing');
    expect(calls).toEqual(['a settled 21', 'b failed boom', 'c late']);
  });

  it('resolves LATE at each entry’s own due time, in order, while settled entries in between stay settled', async () => {
    // On the watch's own clock with Jest's fake timers: a wall-clock version of this test
    // compared each entry with a plain timer set beside it, and on a loaded CI machine the
    // watch's second timer (re-armed when Node's cached loop time made the first fire a little
    // before the entry's due time) could come 40 ms after the plain one.
    jest.useFakeTimers({ now: 0 });
    try {
      const watch = new LateWatch(() => Date.now());
      const settled = new Map<string, { at: number; value: unknown }>();
      const track = (name: string, p: Promise<unknown>) =>
        void p.then((value) => settled.set(name, { at: Date.now(), value }));
      track('a', watch.race(deferred().promise, 80)); // due at 80
      await jest.advanceTimersByTimeAsync(30);
      const quick = deferred<string>();
      track('b', watch.race(quick.promise, 80)); // due at 110, settles in time at 60
      await jest.advanceTimersByTimeAsync(30);
      track('c', watch.race(deferred().promise, 80)); // due at 140
      quick.resolve('in time');
      await jest.advanceTimersByTimeAsync(19);
      expect([...settled]).toEqual([['b', { at: 60, value: 'in time' }]]);
      await jest.advanceTimersByTimeAsync(1);
      expect(settled.get('a')).toEqual({ at: 80, value: LATE });
      await jest.advanceTimersByTimeAsync(59);
      expect(settled.has('c')).toBe(false);
      await jest.advanceTimersByTimeAsync(1);
      expect(settled.get('c')).toEqual({ at: 140, value: LATE });
      expect(settled.get('b')).toEqual({ at: 60, value: 'in time' });
    } finally {
      jest.useRealTimers();
    }
  });

  it('keeps delays apart: a short delay is not held back by a long one added first', async () => {
    const watch = new LateWatch();
    const start = performance.now();
    const long = settledAfter(watch.race(deferred().promise, 300), start);
    const short = settledAfter(watch.race(deferred().promise, 40), start);
    const rs = await short;
    expect(rs.value).toBe(LATE);
    expect(rs.ms).toBeLessThan(200);
    const rl = await long;
    expect(rl.value).toBe(LATE);
    expect(rl.ms).toBeGreaterThanOrEqual(299);
  });

  it('a work settling after it was answered late changes nothing and raises no unhandled rejection', async () => {
    const watch = new LateWatch();
    const work = deferred<string>();
    await expect(watch.race(work.promise, 20)).resolves.toBe(LATE);
    const unhandled = jest.fn();
    process.on('unhandledRejection', unhandled);
    try {
      work.reject(new Error('after the fact'));
      await quietPeriod(
        20,
        'Node reports an unhandled rejection when the microtask queue drains after it, before any timer runs',
      );
      expect(unhandled).not.toHaveBeenCalled();
    } finally {
      process.off('unhandledRejection', unhandled);
    }
  });

  it('after thousands of entries settled in time it still answers a late one on time (the queue is trimmed)', async () => {
    const watch = new LateWatch();
    for (let i = 0; i < 5000; i++) await watch.race(Promise.resolve(i), 50);
    const start = performance.now();
    const r = await settledAfter(watch.race(deferred().promise, 50), start);
    expect(r.value).toBe(LATE);
    expect(r.ms).toBeGreaterThanOrEqual(49);
    expect(r.ms).toBeLessThan(150);
  });
});
