import { LINK, MSISDN, MSISDN_IN, integer, named, object, text } from './schemas';

/**
 * JSON Schemas and examples of the quota-sharing bodies (CONTRACT §5),
 * used by the rows' `doc` in sqs.routes.ts.
 */

const quotaType = {
  type: 'string',
  enum: ['amount', 'share'],
  description: "must equal the plan's shareQuotaType",
};
const quota = integer(
  '`share`: 0-10000000 (percent x 100000), grants unitAmount x quota / 10^7 rounded down; `amount`: > 0 in the plan unit (bytes, seconds, credit minor units)',
  { minimum: 0 },
);
const serviceId = text('20-character URL-safe id assigned by the service');
const planId = integer('subscriber plan id (donorPlanId)', { minimum: 1 });
const time = text('UTC time in the published form 2019-08-07T15:01:58.000+0000', {
  pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}\\+0000$',
});
const errorCode = integer('quota-sharing errorCode: 0 success');

/** Donation request: explicit recipients, or a group whose members receive their member quota. */
export const DONATION_REQUEST = named('DonationRequest', {
  oneOf: [
    object({
      donorId: MSISDN_IN,
      donorPlanId: planId,
      quotaType,
      recipients: {
        type: 'array',
        minItems: 1,
        items: object({ recipientId: MSISDN_IN, quota }),
        description: 'processed in request order; each failed recipient costs the donor nothing',
      },
    }),
    object({ donorPlanId: planId, groupId: serviceId }),
  ],
});

const recipientOutcome = object({
  recipientId: MSISDN,
  errorCode: integer('0, or 1 (recipient holds MAX_PLANS_PER_SUBSCRIBER plans), 3, 12, 14, 15'),
});

/** Donation result: explicit form lists every recipient; group form only those that succeeded. */
export const DONATION_RESULT = named(
  'DonationResult',
  object(
    {
      id: { ...serviceId, description: 'the donation id (explicit-recipients form only)' },
      errorCode,
      recipients: { type: 'array', items: recipientOutcome },
    },
    ['id'],
  ),
);

export const DONATION_EXAMPLE = {
  donorId: '353871234567',
  donorPlanId: 456,
  quotaType: 'share',
  recipients: [{ recipientId: '353879876543', quota: 2500000 }],
};

export const GROUP_REQUEST = named(
  'GroupRequest',
  object(
    {
      ownerId: MSISDN_IN,
      name: text('1-64 characters, unique per owner'),
      quotaType: { ...quotaType, description: 'default share' },
    },
    ['quotaType'],
  ),
);

const groupFields = {
  id: serviceId,
  ownerId: MSISDN,
  name: text('group name'),
  created: time,
  updated: time,
};

export const GROUP = named('Group', object(groupFields));

const member = object({ memberId: MSISDN, quota });

export const GROUP_WITH_MEMBERS = named(
  'GroupWithMembers',
  object({ ...groupFields, quotaType, members: { type: 'array', items: member } }),
);

const pageLink = object({ self: LINK, next: LINK, prev: LINK }, ['next', 'prev']);

export const GROUP_PAGE = named(
  'GroupPage',
  object({
    _links: pageLink,
    _embedded: object({
      groups: { type: 'array', items: object({ ...groupFields, _links: object({ self: LINK }) }) },
    }),
    page: object({
      size: integer('100'),
      totalElements: integer('groups in all pages'),
      totalPages: integer('pages'),
      number: integer('this page, from 0'),
    }),
  }),
);

export const MEMBER_REQUEST = named('MemberRequest', object({ memberId: MSISDN_IN, quota }));

export const MEMBER = named('Member', object({ groupId: serviceId, memberId: MSISDN, quota }));

export const RECURRING_REQUEST = named('RecurringDonationRequest', {
  oneOf: [
    object({
      donorId: MSISDN_IN,
      donorPlanId: planId,
      quotaType,
      recipients: { type: 'array', minItems: 1, items: object({ recipientId: MSISDN_IN, quota }) },
    }),
    object({ donorId: MSISDN_IN, donorPlanId: planId, groupId: serviceId }, ['donorId']),
  ],
});

const recurringFields = { id: serviceId, donorId: MSISDN, donorPlanId: planId, quotaType };
const recurringTail = {
  planName: text("the plan definition's name"),
  created: time,
  updated: time,
  _links: object({ self: LINK }),
};

export const RECURRING_DONATION = named('RecurringDonation', {
  oneOf: [
    {
      ...object({
        ...recurringFields,
        recipients: { type: 'array', items: object({ recipientId: MSISDN, quota }) },
        ...recurringTail,
      }),
      additionalProperties: false,
    },
    { ...object({ ...recurringFields, groupId: serviceId, ...recurringTail }), additionalProperties: false },
  ],
});

const recurringExample = {
  id: 'c3Vic2NyaWJlci1nYXRl',
  donorId: '353871234567',
  donorPlanId: 456,
  quotaType: 'share',
  recipients: [{ recipientId: '353879876543', quota: 2500000 }],
  planName: 'Family Data 6GB',
  created: '2019-08-07T15:01:58.000+0000',
  updated: '2019-08-07T15:01:58.000+0000',
  _links: { self: { href: 'https://api.example.com/sqs/api/recurringDonations/c3Vic2NyaWJlci1nYXRl' } },
};

const pageObject = object({
  size: integer('100'),
  totalElements: integer('items in all pages'),
  totalPages: integer('pages'),
  number: integer('this page, from 0'),
});

export const RECURRING_PAGE = named(
  'RecurringDonationPage',
  object({
    _links: object({ self: LINK, next: LINK, prev: LINK }, ['next', 'prev']),
    _embedded: object({ recurringDonations: { type: 'array', items: RECURRING_DONATION } }),
    page: pageObject,
  }),
);

export const GROUP_UPDATE_REQUEST = named(
  'GroupUpdateRequest',
  object({
    id: { ...serviceId, description: "must equal the path's group id" },
    ownerId: { ...MSISDN_IN, description: "the group's owner (the owner cannot change)" },
    name: text('1-64 characters, unique per owner'),
  }),
);

export const GROUP_UPDATED = named(
  'GroupUpdated',
  object({ created: time, updated: time, id: serviceId, ownerId: MSISDN, name: text('group name') }),
);

const memberOut = object({ memberId: MSISDN, quota });

export const MEMBER_PAGE = named(
  'MemberPage',
  object({ _embedded: object({ members: { type: 'array', items: memberOut } }), page: pageObject }),
);

export const MEMBER_QUOTA = named('MemberQuota', memberOut);

export const BULK_ADD_REQUEST = named(
  'BulkAddMembersRequest',
  object({
    members: {
      type: 'array',
      minItems: 1,
      maxItems: 100,
      items: object({ memberId: MSISDN_IN, quota }),
      description: '1-100 entries, no memberId twice; all added or updated, or none',
    },
  }),
);

export const BULK_ADD_RESULT = named(
  'BulkAddMembersResult',
  object({ members: { type: 'array', items: memberOut, description: 'in request order' } }),
);

export const BULK_DELETE_REQUEST = named(
  'BulkDeleteMembersRequest',
  object({
    members: {
      type: 'array',
      minItems: 1,
      maxItems: 100,
      items: MSISDN_IN,
      description: '1-100 MSISDNs; those that are not members are ignored',
    },
  }),
);

export const RECURRING_EXAMPLE = recurringExample;

export const GROUP_EXAMPLE = {
  id: 'Z3JvdXAtaWQtZXhhbXBs',
  ownerId: '353871234567',
  name: 'family',
  created: '2019-08-07T15:01:58.000+0000',
  updated: '2019-08-07T15:01:58.000+0000',
};
