import { randomBytes } from 'node:crypto';

/**
 * A service-assigned identifier: 20 URL-safe random characters (CONTRACT §1 "IDs"), 120 bits.
 */
export function newId(): string {
  return randomBytes(15).toString('base64url');
}
