import { invalidField } from '../errors';
import { RestInput, RouteDoc, optionalQueryString } from './route';

/**
 * Shapes shared by the quota-sharing rows (CONTRACT §5): the row defaults, the group
 * and recurring donation bodies with the published time form, and HAL pages.
 */

/** A group as the rows select it (times ISO-8601 UTC, as GraphQL gives them). */
export interface GroupData {
  id: string;
  ownerId: string;
  name: string;
  quotaType: string;
  created: string;
  updated: string;
}

/** A recurring donation as the rows select it. */
export interface RecurringData {
  id: string;
  donorId: string;
  donorPlanId: number;
  /** The GraphQL enum value, `AMOUNT` or `SHARE` (legacy bodies: lower case). */
  quotaType: string;
  groupId: string | null;
  recipients: { recipientId: string; quota: number }[] | null;
  planName: string | null;
  created: string;
  updated: string;
}

/** The GraphQL selection of {@link GroupData}. */
export const GROUP_SELECTION = 'id ownerId name quotaType created updated';
/** The GraphQL selection of {@link RecurringData}. */
export const RECURRING_SELECTION =
  'id donorId donorPlanId quotaType groupId recipients { recipientId quota } planName created updated';

/** Every SQS row: `sqs` error bodies, `tenant` header required. */
export const sqs = { style: 'sqs' as const, tenantHeader: 'required' as const };

/** A quota-sharing row's OpenAPI doc: the CONTRACT section and its grant named in the description. */
export const sqsDoc = (grant: string, doc: Omit<RouteDoc, 'tag'>): RouteDoc => ({
  tag: 'quota sharing',
  ...doc,
  description: `${doc.description ?? ''} Needs the \`${grant}\` grant (CONTRACT §5).`.trim(),
});

/** The `:id` path parameter of the group rows. */
export const ID_PARAM = { id: 'group id' };

/** The 412 of a row whose body fields are validated (CONTRACT §5). */
export const VALIDATION = { description: 'a field fails validation (each listed)' };

/** A 404 `{message, errorCode}` body. */
export const notFound = (message: string, errorCode: number) => ({
  status: 404,
  body: { message, errorCode },
});

/**
 * `created`/`updated` in SQS bodies: the published form `2019-08-07T15:01:58.000+0000` (UTC,
 * milliseconds, `+0000`; CONTRACT §1), from the ISO-8601 UTC string GraphQL returns.
 */
export function sqsTime(iso: string): string {
  return new Date(iso).toISOString().replace(/Z$/, '+0000');
}

/** Group self link. */
export const groupHref = (base: string, id: string) => `${base}/sqs/api/groups/${encodeURIComponent(id)}`;

/** Recurring donation self link. */
export const recurringHref = (base: string, id: string) =>
  `${base}/sqs/api/recurringDonations/${encodeURIComponent(id)}`;

/** The group body of spec/CONTRACT §5 (`{id, ownerId, name, created, updated}`). */
export const groupBody = (g: GroupData) => ({
  id: g.id,
  ownerId: g.ownerId,
  name: g.name,
  created: sqsTime(g.created),
  updated: sqsTime(g.updated),
});

/**
 * A recurring donation body (create, get, list): `recipients` or `groupId`, whichever
 * it has, the plan definition's `planName`, the published times and `_links.self`.
 */
export function recurringBody(r: RecurringData, baseUrl: string) {
  return {
    id: r.id,
    donorId: r.donorId,
    donorPlanId: r.donorPlanId,
    quotaType: r.quotaType.toLowerCase(),
    ...(r.groupId !== null ? { groupId: r.groupId } : { recipients: r.recipients ?? [] }),
    planName: r.planName,
    created: sqsTime(r.created),
    updated: sqsTime(r.updated),
    _links: { self: { href: recurringHref(baseUrl, r.id) } },
  };
}

/**
 * The `page` query parameter of the SQS lists: absent 0.
 * @throws BadUserInputError 412 on `page` when not an integer from 0.
 */
export function pageOf(query: RestInput['query']): number {
  const raw = optionalQueryString(query, 'page');
  if (raw === null) return 0;
  if (!/^\d{1,7}$/.test(raw)) throw invalidField('page', 'must be an integer from 0');
  return Number(raw);
}

/** One page of a list as GraphQL returns it. */
export interface PageData {
  page: number;
  size: number;
  totalElements: number;
}

/** The published `page` object `{size, totalElements, totalPages, number}`. */
export function pageObject(p: PageData) {
  return {
    size: p.size,
    totalElements: p.totalElements,
    totalPages: Math.ceil(p.totalElements / p.size),
    number: p.page,
  };
}

/**
 * A HAL page (published): `_links` self/next/prev (absolute, keeping the `filters` query
 * parameters given), `_embedded.<name>` the items, and the {@link pageObject}.
 */
export function halPage(
  at: { baseUrl: string; path: string; query: RestInput['query']; filters: string[] },
  p: PageData,
  name: string,
  items: unknown[],
) {
  const page = pageObject(p);
  const link = (n: number) => {
    const qs = new URLSearchParams();
    for (const k of at.filters) {
      const v = optionalQueryString(at.query, k);
      if (v !== null) qs.set(k, v);
    }
    qs.set('page', String(n));
    return { href: `${at.baseUrl}${at.path}?${qs.toString()}` };
  };
  return {
    _links: {
      self: link(p.page),
      ...(p.page + 1 < page.totalPages ? { next: link(p.page + 1) } : {}),
      ...(p.page > 0 ? { prev: link(p.page - 1) } : {}),
    },
    _embedded: { [name]: items },
    page,
  };
}
