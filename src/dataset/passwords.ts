import { Knex } from 'knex';
import { findClientByUsername } from '../auth/client.store';
import { hashPassword, verifyPassword } from '../auth/password';

/** What hashing found for one client of the file, before any transaction. */
export interface PasswordCheck {
  /** The stored hash it was checked against (undefined: no such client then). */
  storedHash?: string;
  /** Whether the file's password verifies against `storedHash`. */
  verifies: boolean;
  /** A fresh hash of the file's password, when it does not verify (or the client is new). */
  freshHash?: string;
}

/**
 * Does the password work of the file's clients (scrypt, tens of milliseconds each) before the
 * import's transactions, so that no batch holds a lock while hashing: per username, whether the
 * file's password verifies against the stored hash, and a fresh hash when it does not.
 */
export async function checkPasswords(
  db: Knex,
  rows: { username: string; password: string }[],
): Promise<Map<string, PasswordCheck>> {
  const out = new Map<string, PasswordCheck>();
  for (const c of rows) {
    const stored = (await findClientByUsername(db, c.username))?.passwordHash;
    const verifies = stored !== undefined && (await verifyPassword(c.password, stored));
    out.set(c.username, {
      storedHash: stored,
      verifies,
      freshHash: verifies ? undefined : await hashPassword(c.password),
    });
  }
  return out;
}

/**
 * Whether `password` verifies against `stored`, from `check` when it was made against that same
 * hash (the usual case), else computed now.
 */
export async function passwordVerifies(
  check: PasswordCheck | undefined,
  password: string,
  stored: string,
): Promise<boolean> {
  if (check && check.storedHash === stored) return check.verifies;
  return verifyPassword(password, stored);
}

/** A hash of `password` to store: the one made beforehand when there is one. */
export async function freshHash(check: PasswordCheck | undefined, password: string): Promise<string> {
  return check?.freshHash ?? hashPassword(password);
}
