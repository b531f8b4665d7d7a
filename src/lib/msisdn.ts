/**
 * MSISDN rules (CONTRACT §1): an optional leading `+` then 5–15 digits. The `+` is not
 * significant; the canonical form, stored and returned, has no `+`.
 */
const MSISDN = /^\+?([0-9]{5,15})$/;

/** Returns the canonical MSISDN (digits only), or `null` when `value` is not an MSISDN. */
export function normalizeMsisdn(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const m = MSISDN.exec(value);
  return m ? m[1] : null;
}

/** True when `value` is a syntactically valid MSISDN. */
export function isMsisdn(value: unknown): boolean {
  return normalizeMsisdn(value) !== null;
}
