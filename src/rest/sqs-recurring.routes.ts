import { Permission } from '../auth/permissions';
import { requireMsisdn } from '../lib/msisdn';
import { checkPage } from '../modules/sharing/group-member.service';

import { RestRoute, defineRoute, optionalQueryString } from './route';
import * as S from './sqs.schemas';
import {
  RECURRING_SELECTION,
  RecurringData,
  halPage,
  pageOf,
  recurringBody,
  sqs,
  sqsDoc,
} from './sqs.shared';

/**
 * GET /sqs/api/recurringDonations?donorId=&groupId=[&page=] (CONTRACT §5, published): at least one
 * of the two (412 on `donorId` otherwise); HAL `{_links: {self, next?, prev?}, _embedded:
 * {recurringDonations: [...]}, page: {size: 100, totalElements, totalPages, number}}`, each item
 * a recurring donation body with `planName` and `_links.self`.
 */
const listRecurring = defineRoute<{
  recurringDonations: { nodes: RecurringData[]; page: number; size: number; totalElements: number };
}>({
  ...sqs,
  method: 'GET',
  path: '/sqs/api/recurringDonations',
  doc: sqsDoc('SQS_RECURRING_DONATION_READ_PERMISSION', {
    operationId: 'listRecurringDonations',
    summary: "A donor's or a group's recurring donations (HAL page)",
    query: {
      donorId: { description: 'recurring donations of this donor MSISDN', schema: { type: 'string' } },
      groupId: { description: 'recurring donations to this group', schema: { type: 'string' } },
      page: { description: 'page number from 0, 100 a page', schema: { type: 'integer', minimum: 0 } },
    },
    responses: {
      200: { description: 'one page', schema: S.RECURRING_PAGE },
      412: { description: 'neither `donorId` nor `groupId` given, or `page` not an integer from 0' },
    },
  }),
  permissionHeader: Permission.SQS_RECURRING_DONATION_READ_PERMISSION,
  document: `query RecurringDonations($donorId: MSISDN, $groupId: ID, $page: Int!) {
    recurringDonations(donorId: $donorId, groupId: $groupId, page: $page) {
      nodes { ${RECURRING_SELECTION} } page size totalElements
    }
  }`,
  // The MSISDN scalar would refuse a malformed donorId as a coercion error: the legacy 412 on
  // `donorId` is answered here, after the 412 on `page`, in the order the service checked them.
  variables: ({ query }) => {
    const page = pageOf(query);
    const donorId = optionalQueryString(query, 'donorId');
    if (donorId !== null) checkPage(page);
    return {
      donorId: donorId === null ? null : requireMsisdn(donorId, 'donorId'),
      groupId: optionalQueryString(query, 'groupId'),
      page,
    };
  },
  result: ({ recurringDonations: r }, { query, baseUrl }) => ({
    status: 200,
    body: halPage(
      { baseUrl, path: '/sqs/api/recurringDonations', query, filters: ['donorId', 'groupId'] },
      r,
      'recurringDonations',
      r.nodes.map((x) => recurringBody(x, baseUrl)),
    ),
  }),
});

/** The recurring donation rows of the wider SQS API. */
export const SQS_RECURRING_ROUTES = [listRecurring] as ReadonlyArray<RestRoute<never>>;
