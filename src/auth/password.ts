import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';

const scryptAsync = promisify(scrypt) as (
  password: string,
  salt: Buffer,
  keylen: number,
  options: { N: number; r: number; p: number; maxmem: number },
) => Promise<Buffer>;

const N = 16384;
const R = 8;
const P = 1;
const KEYLEN = 32;
const MAXMEM = 64 * 1024 * 1024;

/**
 * Hashes an API client's password with scrypt (node:crypto), N=16384 r=8 p=1, 16-byte salt.
 * Returns `scrypt$N$r$p$<salt b64url>$<key b64url>`.
 */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scryptAsync(password, salt, KEYLEN, { N, r: R, p: P, maxmem: MAXMEM });
  return `scrypt$${N}$${R}$${P}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

/**
 * Checks `password` against a stored hash in constant time (the derived keys are compared
 * with timingSafeEqual). A malformed stored hash verifies as false, after the same work.
 */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  const ok = parts.length === 6 && parts[0] === 'scrypt';
  const [n, r, p] = ok ? parts.slice(1, 4).map(Number) : [N, R, P];
  const salt = Buffer.from(ok ? parts[4] : '', 'base64url');
  const expected = Buffer.from(ok ? parts[5] : '', 'base64url');
  const key = await scryptAsync(password, salt.length ? salt : Buffer.alloc(16), KEYLEN, {
    N: n,
    r,
    p,
    maxmem: MAXMEM,
  });
  return ok && expected.length === key.length && timingSafeEqual(key, expected);
}
