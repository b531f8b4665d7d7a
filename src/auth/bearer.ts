/**
 * Reads `Bearer <token>` (RFC 6750 §2.1; the scheme is case-insensitive): the captive-portal
 * access token a subscriber's page sends to /graphql (docs/portal.md). Returns the token, or null
 * when the header is absent or not a Bearer credential (then it is read as Basic).
 */
export function parseBearer(header: string | undefined): string | null {
  if (header === undefined) return null;
  const m = /^bearer[ ]+([A-Za-z0-9._~+/-]+=*)\s*$/i.exec(header);
  return m ? m[1] : null;
}
