import { Knex } from 'knex';
import { isUniqueViolation } from '../db/knex';

/** One throttle key's failed logins in its current window (times in epoch milliseconds). */
export interface LoginFailureCount {
  key: string;
  failures: number;
  windowStart: number;
}

const TABLE = 'login_failures';

/** The counters of `keys` that have a row (any age). */
export async function readLoginFailures(db: Knex, keys: string[]): Promise<LoginFailureCount[]> {
  const rows = await db(TABLE)
    .whereIn('throttle_key', keys)
    .select('throttle_key', 'failures', 'window_start');
  return rows.map((r: Record<string, unknown>) => ({
    key: r.throttle_key as string,
    failures: Number(r.failures),
    windowStart: Number(r.window_start),
  }));
}

/**
 * Adds one attempt to `key` in one atomic statement: a window that began at or before
 * `staleBeforeMs` starts over at `nowMs` with 1. Safe under concurrency across instances (a lost
 * insert race retries the update).
 */
export async function addLoginAttempt(
  db: Knex,
  key: string,
  nowMs: number,
  staleBeforeMs: number,
): Promise<void> {
  const bump = () =>
    db(TABLE)
      .where({ throttle_key: key })
      // `failures` first: MySQL evaluates SET left to right, so it must read the old window_start.
      .update({
        failures: db.raw('case when window_start <= ? then 1 else failures + 1 end', [staleBeforeMs]),
        window_start: db.raw('case when window_start <= ? then ? else window_start end', [
          staleBeforeMs,
          nowMs,
        ]),
      });
  if ((await bump()) > 0) return;
  try {
    await db(TABLE).insert({ throttle_key: key, failures: 1, window_start: nowMs });
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    await bump();
  }
}

/** Takes back one attempt of `key` (a login that turned out right); never below zero. */
export async function removeLoginAttempt(db: Knex, key: string): Promise<void> {
  await db(TABLE)
    .where({ throttle_key: key })
    .where('failures', '>', 0)
    .update({ failures: db.raw('failures - 1') });
}

/** Forgets `key`'s counter. */
export async function clearLoginFailures(db: Knex, key: string): Promise<void> {
  await db(TABLE).where({ throttle_key: key }).delete();
}

/** Deletes counters whose window began at or before `staleBeforeMs`; returns how many. */
export async function pruneLoginFailures(db: Knex, staleBeforeMs: number): Promise<number> {
  return db(TABLE).where('window_start', '<=', staleBeforeMs).delete();
}
