/*
 * Preloaded into a benchmarked server (`NODE_OPTIONS=-r bench/promise-counter.js`, see
 * bench/promises.js): counts the asynchronous resources the process creates (promises, ticks,
 * timers, …) with an async_hooks `init` hook and, on SIGUSR2, writes the counts since the
 * previous signal to BENCH_PROMISE_COUNT_FILE as JSON `{ "PROMISE": n, "TickObject": n, … }`,
 * then starts again from zero. With BENCH_PROMISE_STACKS=1 it also counts each promise by the
 * first frames of the code that created it (`stacks`: frames → count, the 60 most frequent).
 *
 * The hook itself makes every promise cost more, and turns on Node's promise hooks in a program
 * that has none (the lean handler): the counts are exact, the program's speed under it is not
 * what the bench measures.
 */
'use strict';
const asyncHooks = require('node:async_hooks');
const fs = require('node:fs');

const withStacks = process.env.BENCH_PROMISE_STACKS === '1';
let counts = new Map();
let stacks = new Map();

/** The first frames of the code creating a promise, the hook's own and Node's internals left out. */
function creator() {
  return new Error().stack
    .split('\n')
    .slice(1)
    .filter((line) => !line.includes('node:internal/async_hooks') && !line.includes('promise-counter.js'))
    .slice(0, 3)
    .map((line) => line.trim().replace(/^at /, ''))
    .join(' < ');
}

asyncHooks
  .createHook({
    init(_id, type) {
      counts.set(type, (counts.get(type) ?? 0) + 1);
      if (withStacks && type === 'PROMISE') {
        const at = creator();
        stacks.set(at, (stacks.get(at) ?? 0) + 1);
      }
    },
  })
  .enable();

process.on('SIGUSR2', () => {
  const file = process.env.BENCH_PROMISE_COUNT_FILE;
  const top = [...stacks].sort((a, b) => b[1] - a[1]).slice(0, 60);
  if (file) fs.writeFileSync(file, JSON.stringify({ ...Object.fromEntries(counts), stacks: top }));
  counts = new Map();
  stacks = new Map();
});
