import { BadUserInputError } from '../errors';

/**
 * MSISDN rules (CONTRACT §1): an optional leading `+` then 5–15 digits. The `+` is not
 * significant; the canonical form, stored and returned, has no `+`.
 */
const MSISDN = /^\+?([0-9]{5,15})$/;

/** How a malformed MSISDN is described in field errors. */
export const MSISDN_RULE = 'must be an MSISDN: optional + then 5-15 digits';

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

/**
 * The canonical MSISDN of a path, query or argument value named `field`.
 * @throws BadUserInputError naming `field` when `value` is not an MSISDN.
 */
export function requireMsisdn(value: string, field: string): string {
  const m = normalizeMsisdn(value);
  if (!m) throw new BadUserInputError(`${field} is not an MSISDN`, [{ field, description: MSISDN_RULE }]);
  return m;
}
