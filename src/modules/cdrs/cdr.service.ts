import { Knex } from 'knex';
import { BadUserInputError } from '../../errors';
import { csvRecord } from '../../lib/csv';
import { CDR_KINDS, CdrKind, CdrValue, LAYOUTS, cdrDate, cdrDateYmd, cdrTime } from './cdr.layouts';
import { CdrRow, findCdrs, listCdrs } from './cdr.store';
import {
  Connection,
  ConnectionArgs,
  connectionFromRows,
  integerCursor,
  pageRequest,
} from '../../graphql/relay';

/** Rows the CSV export reads per statement. */
const EXPORT_BATCH = 1000;

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * A time bound of a CDR query or export: ISO-8601 UTC as the schema writes times
 * (`2026-11-24T10:00:00Z`, an offset such as `+01:00`, or a date `2026-11-24` meaning its UTC
 * midnight). Returns epoch milliseconds.
 * @throws BadUserInputError naming `field` otherwise.
 */
export function parseTimeBound(value: string, field: string): number {
  const v = value.trim();
  const ms = ISO_DATE.test(v) ? Date.parse(`${v}T00:00:00Z`) : ISO_DATE_TIME.test(v) ? Date.parse(v) : NaN;
  if (!Number.isFinite(ms))
    throw new BadUserInputError(`${field} is not an ISO-8601 time`, [
      { field, description: 'ISO-8601 date or date-time with Z or an offset, e.g. 2026-11-24T10:00:00Z' },
    ]);
  return ms;
}

/**
 * The `[from, to)` window of a query, in epoch milliseconds.
 * @throws BadUserInputError when a bound is malformed or `to` is not after `from`.
 */
export function parseWindow(from: string, to: string): { fromMs: number; toMs: number } {
  const fromMs = parseTimeBound(from, 'from');
  const toMs = parseTimeBound(to, 'to');
  if (toMs <= fromMs)
    throw new BadUserInputError('to must be after from', [
      { field: 'to', description: 'must be after from' },
    ]);
  return { fromMs, toMs };
}

/**
 * A CDR type as the CLI names it (`donation`, `group`, `recurringDonation`, `charging` or `token`).
 * @throws BadUserInputError naming `type` otherwise.
 */
export function parseCdrKind(value: string): CdrKind {
  if ((CDR_KINDS as readonly string[]).includes(value)) return value as CdrKind;
  throw new BadUserInputError(`type must be one of ${CDR_KINDS.join(', ')}`, [
    { field: 'type', description: `one of ${CDR_KINDS.join(', ')}` },
  ]);
}

/**
 * The values of a CDR in its layout's published field order (dates `DD/MM/YYYY`, the token CDR's
 * `YYYY/MM/DD`, times `hh:mm:ss`, UTC).
 */
export function cdrValues(row: CdrRow): CdrValue[] {
  const common: Record<string, CdrValue> = {
    recordId: row.recordId,
    serviceId: row.serviceId,
    transactionType: row.transactionType,
    tenantId: row.tenantName,
    date: cdrDate(row.createdAt),
    dateYmd: cdrDateYmd(row.createdAt),
    time: cdrTime(row.createdAt),
    actor: row.actor,
    actorCause: row.actorCause,
  };
  return LAYOUTS[row.type].map(({ key }) => (key in common ? common[key] : (row.fields[key] ?? null)));
}

/** The CSV header line of a type: its published field names in order. */
export function cdrHeader(type: CdrKind): string {
  return csvRecord(LAYOUTS[type].map((f) => f.name));
}

/**
 * The cursors of the `cdrs` connection: a CDR's row id (base64url of `cdr:<id>`, the format the
 * `cdrs` query has always issued, so earlier cursors keep working).
 */
export const CDR_CURSOR = integerCursor('cdr');

/**
 * Reading CDRs (CONTRACT §8): the GraphQL `cdrs` page (ADMIN, the caller's tenant) and the
 * CLI's CSV export (every tenant, or one).
 */
export class CdrService {
  constructor(private readonly db: Knex) {}

  /**
   * One page of the caller's tenant's CDRs of `type` generated in `[from, to)` (ISO-8601), in
   * list order (oldest first: by time, then write order), paged by `paging` (Relay: `first`/`after`
   * forward, `last`/`before` backward; the one page bound of src/graphql/relay.ts).
   * @throws BadUserInputError for a malformed bound or window, a page size out of bounds, or a
   *   cursor the `cdrs` list did not issue.
   */
  async page(
    caller: { tenantId: number },
    q: { type: CdrKind; from: string; to: string },
    paging: ConnectionArgs,
  ): Promise<Connection<CdrRow>> {
    const page = pageRequest(paging, CDR_CURSOR);
    const window = parseWindow(q.from, q.to);
    const rows = await listCdrs(
      this.db,
      {
        type: q.type,
        ...window,
        tenantId: caller.tenantId,
        afterId: page.after ?? undefined,
        beforeId: page.before ?? undefined,
        order: page.direction === 'forward' ? 'asc' : 'desc',
      },
      page.limit + 1,
    );
    return connectionFromRows(rows, page, CDR_CURSOR, (r) => r.id);
  }

  /**
   * The caller's tenant's CDRs with these row ids, in one statement (any order; ids naming none,
   * another tenant's included, left out).
   */
  byIds(caller: { tenantId: number }, ids: readonly number[]): Promise<CdrRow[]> {
    return findCdrs(this.db, caller.tenantId, ids);
  }

  /**
   * Writes the CDRs of `type` generated in `[fromMs, toMs)` (of one tenant, or all) as CSV
   * (RFC 4180) to `out`, oldest first, in the published field order; a header line of the
   * published field names first unless `header` is false. Reads {@link EXPORT_BATCH} rows per
   * statement. Returns the number of CDRs written.
   */
  async exportCsv(
    filter: { type: CdrKind; fromMs: number; toMs: number; tenantId?: number },
    out: (chunk: string) => Promise<void> | void,
    header = true,
  ): Promise<number> {
    if (header) await out(cdrHeader(filter.type));
    let afterId: number | undefined;
    let n = 0;
    for (;;) {
      const rows = await listCdrs(this.db, { ...filter, afterId }, EXPORT_BATCH);
      if (rows.length === 0) return n;
      await out(rows.map((r) => csvRecord(cdrValues(r))).join(''));
      n += rows.length;
      afterId = rows[rows.length - 1].id;
    }
  }
}
