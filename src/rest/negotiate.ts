import Negotiator from 'negotiator';

/** The two response formats of the REST layer. */
export type Format = 'xml' | 'json';

// XML first: on a tie (`*/*`, `application/*`) the legacy default wins.
const OFFERED = ['application/xml', 'application/json'];

/**
 * Content negotiation (CONTRACT §1): JSON only when it is the client's best acceptable type
 * (media types case-insensitive, q-values honoured); XML for everything else, including no
 * `accept`, `*\/*`, `text/xml` and unsupported types.
 */
export function negotiateFormat(accept: string | undefined): Format {
  if (!accept) return 'xml';
  const best = new Negotiator({ headers: { accept } }).mediaType(OFFERED);
  return best === 'application/json' ? 'json' : 'xml';
}
