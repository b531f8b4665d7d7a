import fc from 'fast-check';
import { dumpTables } from '../helpers/db';
import { DONOR, PLAN, R, SQS_AUTH, useSharingApp } from '../helpers/sharing';

const WRITES = [
  'subscriber_plans',
  'donations',
  'donation_recipients',
  'allowances',
  'sharing_groups',
  'group_members',
  'recurring_donations',
];

const good = () => ({
  donorId: DONOR,
  donorPlanId: PLAN.amount,
  quotaType: 'amount',
  recipients: [{ recipientId: R(0), quota: 10 }],
});
const withRecipient = (r: unknown) => ({ ...good(), recipients: [r] });

describe('quota sharing with bad input: 400 or 412 naming the field, never 500, nothing shared', () => {
  const t = useSharingApp();

  const donations: [string, unknown, number, string | null][] = [
    ['donorPlanId a string', { ...good(), donorPlanId: '101' }, 400, 'donorPlanId'],
    ['donorPlanId fractional', { ...good(), donorPlanId: 101.5 }, 412, 'donorPlanId'],
    ['donorPlanId negative', { ...good(), donorPlanId: -101 }, 412, 'donorPlanId'],
    ['donorPlanId huge', { ...good(), donorPlanId: 1e300 }, 412, 'donorPlanId'],
    ['donorPlanId missing', { ...good(), donorPlanId: undefined }, 412, 'donorPlanId'],
    ['donorId a number', { ...good(), donorId: 353871000001 }, 400, 'donorId'],
    ['donorId malformed', { ...good(), donorId: '12ab' }, 412, 'donorId'],
    ['donorId missing', { ...good(), donorId: null }, 412, 'donorId'],
    ['quotaType unknown', { ...good(), quotaType: 'percent' }, 412, 'quotaType'],
    ['quotaType an array', { ...good(), quotaType: ['amount'] }, 400, 'quotaType'],
    ['recipients a string', { ...good(), recipients: R(0) }, 400, 'recipients'],
    ['recipients empty', { ...good(), recipients: [] }, 412, 'recipients'],
    ['recipients missing', { ...good(), recipients: undefined }, 412, 'recipients'],
    ['a recipient a string', withRecipient(R(0)), 400, 'recipients[0]'],
    ['recipientId missing', withRecipient({ quota: 1 }), 412, 'recipients[0].recipientId'],
    [
      'recipientId a number',
      withRecipient({ recipientId: 353872000000, quota: 1 }),
      400,
      'recipients[0].recipientId',
    ],
    ['quota a string', withRecipient({ recipientId: R(0), quota: '10' }), 400, 'recipients[0].quota'],
    ['quota negative', withRecipient({ recipientId: R(0), quota: -10 }), 412, 'recipients[0].quota'],
    ['quota zero (amount)', withRecipient({ recipientId: R(0), quota: 0 }), 412, 'recipients[0].quota'],
    ['quota fractional', withRecipient({ recipientId: R(0), quota: 1.5 }), 412, 'recipients[0].quota'],
    ['quota huge', withRecipient({ recipientId: R(0), quota: 1e300 }), 412, 'recipients[0].quota'],
    ['quota past 2^53', withRecipient({ recipientId: R(0), quota: 2 ** 53 }), 412, 'recipients[0].quota'],
    [
      'share quota over 10000000',
      {
        ...good(),
        donorPlanId: PLAN.share,
        quotaType: 'share',
        recipients: [{ recipientId: R(0), quota: 10_000_001 }],
      },
      412,
      'recipients[0].quota',
    ],
    [
      'duplicate recipients (+ is not significant)',
      {
        ...good(),
        recipients: [
          { recipientId: R(0), quota: 1 },
          { recipientId: `+${R(0)}`, quota: 1 },
        ],
      },
      412,
      'recipients[1].recipientId',
    ],
    [
      '101 recipients',
      {
        ...good(),
        recipients: Array.from({ length: 101 }, (_, i) => ({
          recipientId: `35387300${String(i).padStart(4, '0')}`,
          quota: 1,
        })),
      },
      412,
      'recipients',
    ],
    ['groupId and recipients together', { ...good(), groupId: 'AAAAAAAAAAAAAAAAAAAA' }, 412, 'recipients'],
    ['groupId a number', { donorPlanId: PLAN.share, groupId: 7 }, 400, 'groupId'],
    ['groupId with a slash', { donorPlanId: PLAN.share, groupId: '../x' }, 412, 'groupId'],
    ['body an array', [good()], 400, null],
    ['body a string', 'donate', 400, null],
  ];

  it.each(donations)('donation with %s: %i on %s', async (_n, body, status, field) => {
    const before = await dumpTables(t.app.tdb.db, WRITES);
    const res = await t.sqs.donate(body);
    expect(res.status).toBe(status);
    const json = res.json();
    if (status === 412) expect((json.errors as { field: string }[]).map((e) => e.field)).toContain(field);
    else {
      expect(json).toEqual({ errorCode: 1, message: expect.any(String) });
      if (field) expect(json.message).toContain(field);
    }
    expect(await dumpTables(t.app.tdb.db, WRITES)).toEqual(before);
  });

  it('unknown fields are ignored', async () => {
    const res = await t.sqs.donate({
      ...good(),
      colour: 'blue',
      recipients: [{ recipientId: R(0), quota: 1, note: 'x' }],
    });
    expect(res.status).toBe(200);
  });

  it.each([
    ['malformed JSON', '{"donorId":', 'application/json', 400],
    ['a non-JSON content type', 'donorId=1', 'application/x-www-form-urlencoded', 415],
    [
      'a body over 1 MiB',
      JSON.stringify({ ...good(), pad: 'x'.repeat(1024 * 1024) }),
      'application/json',
      413,
    ],
  ])('%s: %i', async (_n, raw, type, status) => {
    const before = await dumpTables(t.app.tdb.db, WRITES);
    const res = await t.app.request('POST', '/sqs/api/donations', {
      auth: SQS_AUTH,
      json: true,
      headers: { tenant: 'acme', permissions: 'SQS_DONATION_PERMISSION', 'content-type': type },
      raw,
    });
    expect(res.status).toBe(status);
    expect(res.json()).toEqual({ errorCode: 1, message: expect.any(String) });
    expect(await dumpTables(t.app.tdb.db, WRITES)).toEqual(before);
  });

  it.each([
    ['ownerId missing', { name: 'x' }, 412, 'ownerId'],
    ['ownerId a number', { ownerId: 353871000001, name: 'x' }, 400, 'ownerId'],
    ['name blank', { ownerId: DONOR, name: '   ' }, 412, 'name'],
    ['name too long', { ownerId: DONOR, name: 'x'.repeat(129) }, 412, 'name'],
    ['quotaType unknown', { ownerId: DONOR, name: 'x', quotaType: 'all' }, 412, 'quotaType'],
  ] as [string, unknown, number, string][])('group with %s: %i on %s', async (_n, body, status, field) => {
    const res = await t.sqs.createGroup(body);
    expect(res.status).toBe(status);
    if (status === 412) expect(res.json()).toEqual({ errors: [{ field, description: expect.any(String) }] });
    expect(await t.app.tdb.db('sharing_groups').count({ n: '*' }).first()).toEqual({ n: 0 });
  });

  it.each([
    ['quota a string', { memberId: R(0), quota: '1' }, 400],
    ['quota negative', { memberId: R(0), quota: -1 }, 412],
    ['quota fractional', { memberId: R(0), quota: 0.5 }, 412],
    ['memberId malformed', { memberId: 'me', quota: 1 }, 412],
    ['memberId missing', { quota: 1 }, 412],
  ] as [string, unknown, number][])('member with %s: %i, nobody added', async (_n, body, status) => {
    const id = (await t.sqs.createGroup({ ownerId: DONOR, name: `g-${Math.random()}` })).json().id as string;
    const res = await t.sqs.addMember(id, body);
    expect(res.status).toBe(status);
    expect(await t.app.tdb.db('group_members').where({ group_id: id }).count({ n: '*' }).first()).toEqual({
      n: 0,
    });
  });

  it('hostile path segments and query values are 4xx, never 500', async () => {
    for (const path of [
      `/sqs/api/groups/${encodeURIComponent("' OR 1=1 --")}`,
      `/sqs/api/groups/${'x'.repeat(5000)}`,
      `/sqs/api/groups/%00/members/${R(0)}`,
      `/sqs/api/groups?ownerId=${encodeURIComponent('<a>&amp;</a>')}`,
      `/sqs/api/groups?ownerId=${DONOR}&ownerId=${DONOR}`,
      `/sqs/api/groups?ownerId=${DONOR}&page=-1`,
      `/sqs/api/groups?ownerId=${DONOR}&page=99999999999`,
      `/sqs/api/recurringDonations/${encodeURIComponent('../../etc/passwd')}`,
    ]) {
      const res = await t.sqs.call(path.includes('/members/') ? 'DELETE' : 'GET', path);
      expect([400, 404, 412]).toContain(res.status);
      expect(res.text).not.toMatch(/at .+\.(ts|js):\d+/);
    }
  });

  it('GraphQL gets userErrors INVALID naming the input fields', async () => {
    const res = await t.app.request('POST', '/graphql', {
      auth: SQS_AUTH,
      body: {
        query:
          'mutation($r: DonationInput!){ shareQuota(input: $r) { donation { id } userErrors { code field } } }',
        variables: { r: { ...withRecipient({ recipientId: R(0), quota: -1 }), quotaType: 'AMOUNT' } },
      },
    });
    expect(res.json()).toEqual({
      data: {
        shareQuota: {
          donation: null,
          userErrors: [{ code: 'INVALID', field: ['input', 'recipients', '0', 'quota'] }],
        },
      },
    });
  });

  it('property: random mutations of a donation body get 200/207/4xx with a documented body, never 500', async () => {
    const leaf = fc.oneof(
      fc.string({ maxLength: 20 }),
      fc.integer(),
      fc.double(),
      fc.boolean(),
      fc.constant(null),
      fc.constantFrom(R(1), `+${R(2)}`, DONOR, 'amount', 'share', 0, -1, 1e21, 10_000_001, '\u0000<&>'),
    );
    const json = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: 'small' },
        leaf,
        fc.array(tie('node'), { maxLength: 3 }),
        fc.dictionary(fc.string(), tie('node'), { maxKeys: 3 }),
      ),
    })).node;
    const mutation = fc.record({
      path: fc.constantFrom(
        'donorId',
        'donorPlanId',
        'quotaType',
        'recipients',
        'groupId',
        'recipients.0',
        'recipients.0.quota',
        'recipients.0.recipientId',
      ),
      value: json,
    });
    await fc.assert(
      fc.asyncProperty(fc.array(mutation, { minLength: 1, maxLength: 3 }), async (muts) => {
        const body = good() as Record<string, unknown>;
        for (const m of muts) {
          const keys = m.path.split('.');
          let target: Record<string, unknown> = body;
          for (const k of keys.slice(0, -1)) {
            const next = target[k];
            if (!next || typeof next !== 'object') break;
            target = next as Record<string, unknown>;
          }
          target[keys.at(-1)!] = m.value;
        }
        const res = await t.sqs.donate(body);
        expect([200, 207, 400, 404, 412, 422]).toContain(res.status);
        const b = res.json();
        if (res.status === 412) expect(Array.isArray(b.errors)).toBe(true);
        else if (res.status === 400) expect(b).toEqual({ errorCode: 1, message: expect.any(String) });
        else if (res.status === 404 || res.status === 422)
          expect(b).toEqual({ message: expect.any(String), errorCode: expect.any(Number) });
      }),
      { numRuns: 150 },
    );
  });
});
