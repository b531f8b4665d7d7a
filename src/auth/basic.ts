/** Credentials read from an HTTP Basic header. */
export interface BasicCredentials {
  username: string;
  password: string;
}

/**
 * Reads `Basic base64(username:password)` (CONTRACT §2). The scheme is case-insensitive.
 * Returns `null` for an absent header and `'invalid'` for one that is not Basic credentials.
 */
export function parseBasic(header: string | undefined): BasicCredentials | null | 'invalid' {
  if (header === undefined || header === '') return null;
  const m = /^basic[ ]+([A-Za-z0-9+/=_-]+)\s*$/i.exec(header);
  if (!m) return 'invalid';
  const decoded = Buffer.from(m[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) return 'invalid';
  return { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}
