/** A portal link's path (`/portal/<access_token>`, with or without a trailing slash or query). */
const PORTAL_LINK = /^(\/portal\/)(?!assets(?:\/|$))[^/?#]+/;

/** What stands for the access token in a redacted path. */
export const REDACTED = ':token';

/**
 * A request path fit for a log line: the access token of a portal link (`/portal/<token>`)
 * replaced by {@link REDACTED}, so a log never holds a subscriber's credential; the query is
 * dropped too. Any other path comes back unchanged (without its query).
 */
export function redactPortalPath(path: string): string {
  const withoutQuery = path.replace(/[?#].*$/s, '');
  return withoutQuery.replace(PORTAL_LINK, `$1${REDACTED}`);
}

/** Whether `path` (no query) is a portal link's, `/portal/<access_token>` (not a static file's). */
export function isPortalLinkPath(path: string): boolean {
  return PORTAL_LINK.test(path);
}
