import { Knex } from 'knex';
import { Dataset } from '../../src/dataset/dataset.schema';
import { TestApp, TestResponse, startTestApp } from './app';
import { baseDataset, basic } from './fixtures';

/** Basic credentials of the fixture's `sqs` client (every SQS permission) and `sqs-reader` (group reads). */
export const SQS_AUTH = basic('sqs', 'sqs-password');
export const READER_AUTH = basic('sqs-reader', 'sqs-reader-password');

/** The donor of most sharing tests. */
export const DONOR = '353871000001';
/** Another acme subscriber with a plan of its own (plan 103). */
export const OTHER_DONOR = '353871000002';
/** An inactive acme subscriber. */
export const INACTIVE = '353871000003';
/** A suspended acme subscriber. */
export const SUSPENDED = '353871000004';
/** A rival-tenant subscriber. */
export const RIVAL_SUB = '353879999999';
/** Active acme recipients R(0)..R(79). */
export const R = (i: number) => `3538720${String(i).padStart(5, '0')}`;
export const RECIPIENT_COUNT = 80;

/** Plan ids of the fixture. */
export const PLAN = {
  /** 10 GB volume, share, shareable, recurring, maxRecipients 5. */
  share: 100,
  /** 1000 bytes, amount, shareable, not recurring, maxRecipients 80. */
  amount: 101,
  /** time, not shareable. */
  voice: 102,
  /** OTHER_DONOR's share plan. */
  other: 103,
  /** 60000 minor units credit, amount, shareable, recurring, maxRecipients 80. */
  credit: 104,
  /** rival tenant. */
  rival: 200,
} as const;

/** Initial `remaining` of each plan. */
export const REMAINING: Record<number, number> = {
  100: 10_000_000_000,
  101: 1000,
  102: 30_000,
  103: 10_000_000_000,
  104: 60_000,
  200: 1000,
};

/** Every SQS permission (the `sqs` client holds them all). */
export const SQS_PERMISSIONS = [
  'SQS_DONATION_PERMISSION',
  'SQS_GROUP_CREATE_UPDATE_PERMISSION',
  'SQS_GROUP_READ_PERMISSION',
  'SQS_GROUP_DELETE_PERMISSION',
  'SQS_RECURRING_DONATION_CREATE_UPDATE_PERMISSION',
  'SQS_RECURRING_DONATION_READ_PERMISSION',
  'SQS_RECURRING_DONATION_DELETE_PERMISSION',
];

const sub = (tenant: string, msisdn: string, status: 'active' | 'inactive' | 'suspended' = 'active') => ({
  tenant,
  msisdn,
  status,
  paymentType: 'prepaid' as const,
  balance: '1.00',
  currency: 'EUR',
});

/** Fixture: donors, 80 recipients, plan definitions and plans, and an `sqs` client with every SQS permission. */
export function sharingDataset(): Dataset {
  const ds = baseDataset();
  ds.subscribers = [
    sub('acme', DONOR),
    sub('acme', OTHER_DONOR),
    sub('acme', INACTIVE, 'inactive'),
    sub('acme', SUSPENDED, 'suspended'),
    sub('rival', RIVAL_SUB),
    ...Array.from({ length: RECIPIENT_COUNT }, (_, i) => sub('acme', R(i))),
  ];
  const def = (
    name: string,
    unitMeteringType: 'volume' | 'time' | 'credit',
    unitAmount: number,
    shareQuotaType: 'amount' | 'share',
    shareable: boolean,
    recurring: boolean,
    maxRecipients: number,
    tenant = 'acme',
  ) => ({
    tenant,
    name,
    unitMeteringType,
    unitAmount,
    shareable,
    recurring,
    shareQuotaType,
    maxRecipients,
  });
  ds.planDefinitions = [
    def('Share 10GB', 'volume', 10_000_000_000, 'share', true, true, 5),
    def('Gift 1000', 'volume', 1000, 'amount', true, false, RECIPIENT_COUNT),
    def('Voice', 'time', 30_000, 'amount', false, true, 5),
    def('Credit', 'credit', 60_000, 'amount', true, true, RECIPIENT_COUNT),
    def('Rival plan', 'volume', 1000, 'amount', true, true, 5, 'rival'),
  ];
  ds.subscriberPlans = [
    {
      tenant: 'acme',
      id: PLAN.share,
      msisdn: DONOR,
      planDefinition: 'Share 10GB',
      remaining: REMAINING[100],
    },
    {
      tenant: 'acme',
      id: PLAN.amount,
      msisdn: DONOR,
      planDefinition: 'Gift 1000',
      remaining: REMAINING[101],
    },
    { tenant: 'acme', id: PLAN.voice, msisdn: DONOR, planDefinition: 'Voice', remaining: REMAINING[102] },
    {
      tenant: 'acme',
      id: PLAN.other,
      msisdn: OTHER_DONOR,
      planDefinition: 'Share 10GB',
      remaining: REMAINING[103],
    },
    { tenant: 'acme', id: PLAN.credit, msisdn: DONOR, planDefinition: 'Credit', remaining: REMAINING[104] },
    {
      tenant: 'rival',
      id: PLAN.rival,
      msisdn: RIVAL_SUB,
      planDefinition: 'Rival plan',
      remaining: REMAINING[200],
    },
  ];
  ds.clients!.push(
    {
      tenant: 'acme',
      username: 'sqs',
      password: 'sqs-password',
      permissions: SQS_PERMISSIONS as never,
    },
    {
      tenant: 'acme',
      username: 'sqs-reader',
      password: 'sqs-reader-password',
      permissions: ['SQS_GROUP_READ_PERMISSION'] as never,
    },
  );
  return ds;
}

/** Clears every sharing write (and idempotency key) and restores the plans' `remaining`, period 1 with no recipients counted. */
export async function resetSharing(db: Knex): Promise<void> {
  for (const t of [
    'idempotency_keys',
    'plan_period_recipients',
    'allowances',
    'donation_recipients',
    'donations',
    'recurring_donations',
    'group_members',
    'sharing_groups',
  ])
    await db(t).delete();
  for (const [id, remaining] of Object.entries(REMAINING))
    await db('subscriber_plans')
      .where({ id: Number(id) })
      .update({ remaining, period: 1, recipients_in_period: 0 });
}

/** `remaining` of a plan, read from the database. */
export async function remainingOf(db: Knex, planId: number): Promise<number> {
  return Number((await db('subscriber_plans').where({ id: planId }).first()).remaining);
}

/** Σ allowances granted from a plan (all periods). */
export async function grantedFrom(db: Knex, planId: number): Promise<number> {
  const r = await db('allowances').sum({ s: 'amount' }).where({ donor_plan_id: planId }).first();
  return Number(r?.s ?? 0);
}

/** Every SQS permission, as one `permissions` header value (the header may list several). */
export const ALL_SQS_PERMISSIONS = SQS_PERMISSIONS.join(', ');

/**
 * A REST caller for the SQS paths with the `sqs` client, tenant acme and a `permissions` header
 * naming every SQS permission (each path requires the header to name its own).
 */
export function sqsClient(app: TestApp, opts: { json?: boolean } = { json: true }) {
  const headers = { tenant: 'acme', permissions: ALL_SQS_PERMISSIONS };
  const call = (
    method: string,
    path: string,
    body?: unknown,
    extra: Record<string, string> = {},
  ): Promise<TestResponse> =>
    app.request(method, path, { auth: SQS_AUTH, json: opts.json, headers: { ...headers, ...extra }, body });
  return {
    call,
    donate: (body: unknown) => call('POST', '/sqs/api/donations', body),
    createGroup: (body: unknown) => call('POST', '/sqs/api/groups', body),
    addMember: (groupId: string, body: unknown) => call('POST', `/sqs/api/groups/${groupId}/members`, body),
    createRecurring: (body: unknown) => call('POST', '/sqs/api/recurringDonations', body),
  };
}

/**
 * Registers the hooks of a sharing test file: one app over {@link sharingDataset} (with `env`),
 * closed after the file, and every sharing write cleared before each test.
 */
export function useSharingApp(env?: Record<string, string>): {
  app: TestApp;
  sqs: ReturnType<typeof sqsClient>;
} {
  const t = {} as { app: TestApp; sqs: ReturnType<typeof sqsClient> };
  beforeAll(async () => {
    t.app = await startTestApp({ dataset: sharingDataset(), env });
    t.sqs = sqsClient(t.app);
  });
  afterAll(() => t.app.close());
  beforeEach(() => resetSharing(t.app.tdb.db));
  return t;
}
