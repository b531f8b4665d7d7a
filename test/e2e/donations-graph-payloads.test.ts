import { dumpTables } from '../helpers/db';
import {
  DONOR,
  OTHER_DONOR,
  PLAN,
  R,
  REMAINING,
  SQS_AUTH,
  remainingOf,
  useSharingApp,
} from '../helpers/sharing';

const UNKNOWN = '353870000999';
const WRITES = ['subscriber_plans', 'donations', 'donation_recipients', 'allowances', 'recurring_donations'];

/**
 * The donation mutations' payloads: a refusal is a `userErrors` entry with a typed `code` (named
 * after the published errorCode, docs/contract.md §5) and nothing changes; a donation where some recipients failed is a
 * success whose recipients carry an `outcome`; malformed scalars and enums are refused by
 * coercion before any resolver runs.
 */
describe('donations on the graph: payloads, userErrors and typed inputs', () => {
  const t = useSharingApp();
  const gql = async (query: string, variables: Record<string, unknown> = {}) => {
    const res = await t.app.request('POST', '/graphql', { auth: SQS_AUTH, body: { query, variables } });
    return { status: res.status, body: res.json() as { data?: Record<string, unknown>; errors?: unknown[] } };
  };
  const SHARE = `mutation($input: DonationInput!) {
    shareQuota(input: $input) {
      donation { id errorCode recipients { recipientId granted outcome errorCode } }
      userErrors { __typename code field message }
    }
  }`;
  const CREATE = `mutation($input: RecurringDonationInput!) {
    createRecurringDonation(input: $input) {
      recurringDonation { id donorPlanId quotaType }
      userErrors { code field }
    }
  }`;
  const DELETE = `mutation($id: ID!) {
    deleteRecurringDonation(id: $id) { deletedRecurringDonationId userErrors { code field } }
  }`;
  const gift = (over: Record<string, unknown> = {}) => ({
    donorId: DONOR,
    donorPlanId: PLAN.amount,
    quotaType: 'AMOUNT',
    recipients: [{ recipientId: R(0), quota: 10 }],
    ...over,
  });

  it('a partial donation is a success: each recipient has its outcome beside errorCode', async () => {
    const res = await gql(SHARE, {
      input: gift({
        recipients: [
          { recipientId: `+${R(0)}`, quota: 10 },
          { recipientId: UNKNOWN, quota: 5 },
          { recipientId: DONOR, quota: 1 },
          { recipientId: R(1), quota: 5000 },
        ],
      }),
    });
    expect(res.body).toEqual({
      data: {
        shareQuota: {
          donation: {
            id: expect.stringMatching(/^[A-Za-z0-9_-]{20}$/),
            errorCode: 0,
            recipients: [
              { recipientId: R(0), granted: 10, outcome: 'RECEIVED', errorCode: 0 },
              { recipientId: UNKNOWN, granted: 0, outcome: 'RECIPIENT_NOT_FOUND', errorCode: 12 },
              { recipientId: DONOR, granted: 0, outcome: 'DONOR_ITSELF', errorCode: 3 },
              { recipientId: R(1), granted: 0, outcome: 'QUOTA_UNAVAILABLE', errorCode: 15 },
            ],
          },
          userErrors: [],
        },
      },
    });
    expect(await remainingOf(t.app.tdb.db, PLAN.amount)).toBe(REMAINING[PLAN.amount] - 10);
  });

  it('whole-request refusals are userErrors with spec-named codes and change nothing', async () => {
    const groupId = (await t.sqs.createGroup({ ownerId: DONOR, name: 'Family' })).json().id as string;
    const before = await dumpTables(t.app.tdb.db, WRITES);
    const cases: [Record<string, unknown>, string, string[] | null][] = [
      [gift({ donorId: UNKNOWN }), 'DONOR_NOT_FOUND', null],
      [gift({ donorPlanId: 999_999 }), 'PLAN_NOT_FOUND', null],
      [gift({ donorPlanId: PLAN.other }), 'PLAN_NOT_FOUND', null],
      [gift({ donorPlanId: PLAN.voice }), 'PLAN_NOT_SHAREABLE', null],
      [gift({ quotaType: 'SHARE' }), 'INVALID', ['input', 'quotaType']],
      [gift({ donorId: null }), 'INVALID', ['input', 'donorId']],
      [gift({ recipients: [] }), 'INVALID', ['input', 'recipients']],
      [
        gift({
          recipients: [
            { recipientId: R(0), quota: 1 },
            { recipientId: `+${R(0)}`, quota: 1 },
          ],
        }),
        'INVALID',
        ['input', 'recipients', '1', 'recipientId'],
      ],
      [{ donorPlanId: PLAN.share, groupId: 'A'.repeat(20) }, 'GROUP_NOT_FOUND', null],
      [{ donorPlanId: PLAN.share, groupId, donorId: OTHER_DONOR }, 'INVALID', ['input', 'donorId']],
      [
        gift({
          donorPlanId: PLAN.share,
          quotaType: 'SHARE',
          recipients: Array.from({ length: 6 }, (_, i) => ({ recipientId: R(i), quota: 1 })),
        }),
        'MAX_RECIPIENTS_EXCEEDED',
        null,
      ],
    ];
    for (const [input, code, field] of cases) {
      const res = await gql(SHARE, { input });
      expect([input, res.body]).toEqual([
        input,
        {
          data: {
            shareQuota: {
              donation: null,
              userErrors: [{ __typename: 'DonationUserError', code, field, message: expect.any(String) }],
            },
          },
        },
      ]);
    }
    await t.app.tdb.db('subscribers').where({ msisdn: DONOR }).update({ status: 'inactive' });
    try {
      const inactive = await gql(SHARE, { input: gift() });
      expect(inactive.body.data!.shareQuota).toMatchObject({ userErrors: [{ code: 'DONOR_NOT_ACTIVE' }] });
    } finally {
      await t.app.tdb.db('subscribers').where({ msisdn: DONOR }).update({ status: 'active' });
    }
    expect(await dumpTables(t.app.tdb.db, WRITES)).toEqual(before);
  });

  it('createRecurringDonation and deleteRecurringDonation return payloads; refusals are userErrors', async () => {
    const input = {
      donorId: DONOR,
      donorPlanId: PLAN.credit,
      quotaType: 'AMOUNT',
      recipients: [{ recipientId: R(1), quota: 5 }],
    };
    const created = await gql(CREATE, { input });
    const id = (created.body.data!.createRecurringDonation as { recurringDonation: { id: string } })
      .recurringDonation.id;
    expect(created.body.data!.createRecurringDonation).toEqual({
      recurringDonation: { id, donorPlanId: PLAN.credit, quotaType: 'AMOUNT' },
      userErrors: [],
    });
    const refusals: [Record<string, unknown>, string][] = [
      [input, 'RECURRING_DONATION_EXISTS'],
      [{ ...input, donorPlanId: PLAN.amount }, 'PLAN_NOT_RECURRING'],
      [{ ...input, donorPlanId: PLAN.voice }, 'PLAN_NOT_SHAREABLE'],
      [{ ...input, donorId: UNKNOWN }, 'DONOR_NOT_FOUND'],
    ];
    for (const [body, code] of refusals)
      expect((await gql(CREATE, { input: body })).body.data!.createRecurringDonation).toEqual({
        recurringDonation: null,
        userErrors: [{ code, field: null }],
      });
    expect((await gql(DELETE, { id })).body).toEqual({
      data: { deleteRecurringDonation: { deletedRecurringDonationId: id, userErrors: [] } },
    });
    expect((await gql(DELETE, { id })).body).toEqual({
      data: {
        deleteRecurringDonation: {
          deletedRecurringDonationId: null,
          userErrors: [{ code: 'RECURRING_DONATION_NOT_FOUND', field: null }],
        },
      },
    });
  });

  it('malformed MSISDNs, quotas, plan ids and quota types are refused by coercion before any resolver', async () => {
    const before = await dumpTables(t.app.tdb.db, WRITES);
    const bad: Record<string, unknown>[] = [
      gift({ donorId: '12ab' }),
      gift({ recipients: [{ recipientId: '+1234', quota: 1 }] }),
      gift({ recipients: [{ recipientId: R(0), quota: 1.5 }] }),
      gift({ recipients: [{ recipientId: R(0), quota: 2 ** 53 }] }),
      gift({ recipients: [{ recipientId: R(0) }] }),
      gift({ recipients: [null] }),
      gift({ donorPlanId: 101.5 }),
      gift({ donorPlanId: '101' }),
      gift({ donorPlanId: undefined }),
      gift({ quotaType: 'amount' }),
    ];
    for (const input of bad) {
      const res = await gql(SHARE, { input });
      expect([input, res.status, res.body.data]).toEqual([input, 400, undefined]);
      expect(res.body.errors).toMatchObject([{ extensions: { code: 'BAD_USER_INPUT' } }]);
    }
    const literal = await gql(`{ donations(donorId: "12ab") { edges { node { id } } } }`);
    expect([literal.status, literal.body.errors]).toEqual([400, expect.any(Array)]);
    expect(await dumpTables(t.app.tdb.db, WRITES)).toEqual(before);
  });
});
