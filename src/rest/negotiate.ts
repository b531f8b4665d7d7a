import Negotiator from 'negotiator';
import { memoByString } from '../lib/memo';

/** The two response formats of the REST layer. */
export type Format = 'xml' | 'json';

// XML first: on a tie (`*/*`, `application/*`) the legacy default wins.
const OFFERED = ['application/xml', 'application/json'];

/**
 * Keeps only the media range and its q-value of each accept entry: a client asking for
 * `application/json; charset=utf-8` wants JSON, and negotiator would otherwise require the
 * offered type to carry the same parameter.
 */
function withoutParameters(accept: string): string {
  return accept
    .split(',')
    .map((entry) => {
      const [range, ...params] = entry.split(';');
      const q = params.find((p) => /^\s*q\s*=/i.test(p));
      return q ? `${range.trim()};${q.trim()}` : range.trim();
    })
    .join(',');
}

/**
 * Content negotiation (CONTRACT §1): JSON only when it is the client's best acceptable type
 * (media types case-insensitive, q-values honoured); XML for everything else, including no
 * `accept`, `*\/*`, `text/xml` and unsupported types.
 */
export function negotiateFormat(accept: string | undefined): Format {
  return accept ? negotiated(accept) : 'xml';
}

/** {@link negotiateFormat} of a non-empty `accept`, memoised per value (clients send few distinct values). */
const negotiated = memoByString((accept): Format => {
  const best = new Negotiator({ headers: { accept: withoutParameters(accept) } }).mediaType(OFFERED);
  return best === 'application/json' ? 'json' : 'xml';
});
