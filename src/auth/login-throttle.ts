import { createHash } from 'node:crypto';
import { Knex } from 'knex';
import { DEFAULT_LOGIN_THROTTLE, LoginThrottleLimits } from '../config/defaults';
import { TooManyRequestsError } from '../errors';
import { Clock, systemClock } from '../lib/clock';
import {
  LoginFailureCount,
  addLoginAttempt,
  clearLoginFailures,
  pruneLoginFailures,
  readLoginFailures,
  removeLoginAttempt,
} from './login-failure.store';

/** Brute-force limits (AUTH_* variables) and their defaults, held by the configuration. */
export { DEFAULT_LOGIN_THROTTLE };
export type { LoginThrottleLimits };

/** Failed attempts between two deletions of stale counters (per instance). */
const PRUNE_EVERY = 100;

/** Longest key part stored as it is; longer ones are stored as their SHA-256. */
const MAX_KEY_PART = 200;

const keyOf = (kind: 'user' | 'address', value: string): string =>
  value.length <= MAX_KEY_PART
    ? `${kind}:${value}`
    : `${kind}#${createHash('sha256').update(value).digest('hex')}`;

interface Keys {
  user?: string;
  address?: string;
}

/**
 * Brute-force throttling of logins (HTTP 429 with `retry-after`), with its counters in the database so that
 * every instance shares them. Each attempt that is about to verify a password is counted first,
 * against the username and against the client address, in fixed windows of `windowSeconds`;
 * when either count passes its maximum the attempt is refused with 429 before any scrypt runs,
 * so concurrent guesses cannot slip past the limit together. A successful login takes its
 * attempt back from the address and clears the username's counter (never the address's, so one
 * known password does not reset guessing at other usernames from the same address). While a
 * counter is over its limit, even right credentials (also ones remembered as verified) get 429:
 * otherwise a 200 among the 429s would reveal a right guess.
 */
export class LoginThrottle {
  private failuresSincePrune = 0;

  constructor(
    private readonly db: Knex,
    private readonly limits: LoginThrottleLimits = DEFAULT_LOGIN_THROTTLE,
    private readonly clock: Clock = systemClock,
  ) {}

  private keys(username: string, address: string | undefined): Keys {
    return {
      user: this.limits.maxFailuresPerUsername > 0 ? keyOf('user', username) : undefined,
      address: this.limits.maxFailuresPerAddress > 0 && address ? keyOf('address', address) : undefined,
    };
  }

  private get windowMs(): number {
    return this.limits.windowSeconds * 1000;
  }

  /** The counter keys of a login whose limit is on: the username's and the address's. */
  failureKeys(username: string, address: string | undefined): string[] {
    const keys = this.keys(username, address);
    return [keys.user, keys.address].filter((k): k is string => k !== undefined);
  }

  /**
   * Refuses when a counter in `counts` (of `keys`) is past its maximum (`slack` 0) or at it
   * (`slack` 1, a read before counting) in its current window.
   * @throws TooManyRequestsError with the seconds until the longest such window ends.
   */
  private check(keys: Keys, counts: LoginFailureCount[], slack: 0 | 1): void {
    const now = this.clock.nowMs();
    const maxOf = (c: LoginFailureCount) =>
      c.key === keys.user ? this.limits.maxFailuresPerUsername : this.limits.maxFailuresPerAddress;
    const over = counts.filter((c) => c.windowStart + this.windowMs > now && c.failures + slack > maxOf(c));
    if (!over.length) return;
    const endsMs = Math.max(...over.map((c) => c.windowStart + this.windowMs));
    throw new TooManyRequestsError(Math.max(1, Math.ceil((endsMs - now) / 1000)));
  }

  /**
   * For credentials already known to be right (no scrypt will run): refuses while the username
   * or address is throttled, counts nothing. `counts` are the current counters of
   * {@link failureKeys} (read with the client row).
   * @throws TooManyRequestsError
   */
  assertOpen(username: string, address: string | undefined, counts: LoginFailureCount[]): void {
    this.check(this.keys(username, address), counts, 1);
  }

  /**
   * Counts an attempt that is about to verify a password, then refuses it when the username or
   * the address has passed its maximum in the current window.
   * @throws TooManyRequestsError (the password must then not be verified).
   */
  async attempt(username: string, address: string | undefined): Promise<void> {
    const keys = this.keys(username, address);
    const now = this.clock.nowMs();
    const wanted = this.failureKeys(username, address);
    if (!wanted.length) return;
    for (const key of wanted) await addLoginAttempt(this.db, key, now, now - this.windowMs);
    this.check(keys, await readLoginFailures(this.db, wanted), 0);
  }

  /** The attempt counted by {@link attempt} was right: takes it back and clears the username's counter. */
  async succeeded(username: string, address: string | undefined): Promise<void> {
    const keys = this.keys(username, address);
    if (keys.user) await clearLoginFailures(this.db, keys.user);
    if (keys.address) await removeLoginAttempt(this.db, keys.address);
  }

  /** The attempt counted by {@link attempt} was wrong: now and then deletes counters of past windows. */
  async failed(): Promise<void> {
    if (++this.failuresSincePrune < PRUNE_EVERY) return;
    this.failuresSincePrune = 0;
    await pruneLoginFailures(this.db, this.clock.nowMs() - this.windowMs);
  }
}
