import { invalidField } from '../errors';

/**
 * Idempotency keys (IETF draft-ietf-httpapi-idempotency-key-header, CONTRACT §5): 1-255 visible
 * ASCII characters (0x21-0x7E), compared exactly (case-sensitive).
 */
const KEY = /^[\x21-\x7e]{1,255}$/;

/** How a malformed key is described in field errors. */
export const IDEMPOTENCY_KEY_RULE = 'must be 1-255 visible ASCII characters';

/** An RFC 8941 sf-string: printable ASCII in double quotes, `"` and `\` escaped with `\`. */
const SF_STRING = /^"((?:[\x20\x21\x23-\x5b\x5d-\x7e]|\\["\\])*)"$/;

/**
 * The key of an `Idempotency-Key` header value, or null when it is not a valid key. The draft
 * writes the value as a Structured Field String (`Idempotency-Key: "8e03978e-40d5"`); many
 * clients send the bare key (`Idempotency-Key: 8e03978e-40d5`). Both name the same key.
 */
export function parseIdempotencyKeyHeader(value: string): string | null {
  const quoted = SF_STRING.exec(value);
  const key = quoted ? quoted[1].replace(/\\(["\\])/g, '$1') : value;
  return KEY.test(key) ? key : null;
}

/**
 * Checks a key given as an argument named `field`.
 * @throws BadUserInputError (HTTP 412, as the quota-sharing paths answer field errors) naming `field`.
 */
export function requireIdempotencyKey(value: string, field: string): string {
  if (!KEY.test(value)) throw invalidField(field, IDEMPOTENCY_KEY_RULE);
  return value;
}
