/**
 * Exact decimal money (CONTRACT §1 "Money"): an integer number of micro-units (10^-6 of the
 * currency unit) held in a `bigint`. No `number` ever holds an amount; storage is a BIGINT
 * column of micro-units on both SQLite and MySQL, so SQL arithmetic on it is exact too.
 *
 * Range: |amount| ≤ 9,007,199,254.740991 so that every stored value is also a safe integer in
 * the database drivers (better-sqlite3 and mysql2 hand back safe integers exactly).
 */
/**
 * The money rule as a JSON Schema / OpenAPI `pattern` (CONTRACT §1 "Money"): a non-negative
 * decimal string, at most 16 integer and 6 fractional digits. {@link Money.parse} reads the same
 * strings (and, where allowed, a leading `-`: {@link SIGNED_MONEY_PATTERN}).
 */
export const MONEY_PATTERN = '^[0-9]{1,16}(\\.[0-9]{1,6})?$';
/** {@link MONEY_PATTERN} with an optional leading `-` (balances, adjustments). */
export const SIGNED_MONEY_PATTERN = '^-?[0-9]{1,16}(\\.[0-9]{1,6})?$';
const SIGNED_MONEY = new RegExp(SIGNED_MONEY_PATTERN);

export class Money {
  /** Largest representable magnitude in micro-units (Number.MAX_SAFE_INTEGER). */
  static readonly MAX_MICROS = BigInt(Number.MAX_SAFE_INTEGER);
  static readonly ZERO = new Money(0n);

  private constructor(readonly micros: bigint) {}

  /**
   * Parses a plain decimal string: digits, an optional `.` and 1–6 fractional digits, and a
   * leading `-` only when `allowNegative`. No exponent, no spaces, no `+`.
   * @throws MoneyFormatError when the string is not such a decimal or is out of range.
   */
  static parse(text: string, opts: { allowNegative?: boolean } = {}): Money {
    if (!SIGNED_MONEY.test(text)) throw new MoneyFormatError(text);
    const negative = text.startsWith('-');
    if (negative && !opts.allowNegative) throw new MoneyFormatError(text);
    const [units, fraction = ''] = (negative ? text.slice(1) : text).split('.');
    const micros = BigInt(units) * 1_000_000n + BigInt(fraction.padEnd(6, '0'));
    return Money.fromMicros(negative ? -micros : micros);
  }

  /** True when `text` parses as a non-negative amount. */
  static isValid(text: unknown): text is string {
    if (typeof text !== 'string') return false;
    try {
      Money.parse(text);
      return true;
    } catch {
      return false;
    }
  }

  /**
   * Builds an amount from micro-units as a database driver returns them (safe integer number,
   * decimal string or bigint).
   * @throws MoneyFormatError when the value is not an integer or out of range.
   */
  static fromMicros(value: bigint | number | string): Money {
    if (typeof value === 'number' && !Number.isSafeInteger(value)) throw new MoneyFormatError(String(value));
    if (typeof value === 'string' && !/^-?\d+$/.test(value)) throw new MoneyFormatError(value);
    const micros = BigInt(value);
    if (micros > Money.MAX_MICROS || micros < -Money.MAX_MICROS) throw new MoneyFormatError(String(value));
    return new Money(micros);
  }

  add(other: Money): Money {
    return Money.fromMicros(this.micros + other.micros);
  }

  sub(other: Money): Money {
    return Money.fromMicros(this.micros - other.micros);
  }

  cmp(other: Money): -1 | 0 | 1 {
    return this.micros < other.micros ? -1 : this.micros > other.micros ? 1 : 0;
  }

  isNegative(): boolean {
    return this.micros < 0n;
  }

  isZero(): boolean {
    return this.micros === 0n;
  }

  /** Micro-units as a safe integer, for a BIGINT column. */
  toDb(): number {
    return Number(this.micros);
  }

  /** Plain decimal with at least two and at most six fractional digits: `10.00`, `0.125`, `-3.50`. */
  toString(): string {
    const neg = this.micros < 0n;
    const abs = neg ? -this.micros : this.micros;
    const units = abs / 1_000_000n;
    let frac = (abs % 1_000_000n).toString().padStart(6, '0').replace(/0+$/, '');
    if (frac.length < 2) frac = frac.padEnd(2, '0');
    return `${neg ? '-' : ''}${units}.${frac}`;
  }

  toJSON(): string {
    return this.toString();
  }
}

/** Raised for a string that is not an exact decimal amount within range. */
export class MoneyFormatError extends Error {
  override name = 'MoneyFormatError';
  constructor(readonly input: string) {
    super(`not a decimal amount with at most 6 fractional digits: ${JSON.stringify(input.slice(0, 40))}`);
  }
}
