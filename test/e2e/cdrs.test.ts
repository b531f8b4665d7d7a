import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { TestApp, startTestApp } from '../helpers/app';
import { chargingDataset, ratingBody } from '../helpers/charging';
import { withFailingBalanceWrites } from '../helpers/faults';
import { DONOR, PLAN, R, REMAINING, remainingOf, sharingDataset, sqsClient } from '../helpers/sharing';
import { LAYOUTS } from '../../src/modules/cdrs/cdr.layouts';

/**
 * CDRs (docs/contract.md §8): written in the change's transaction with the published SQS fields and
 * codes, read through GraphQL `cdrs` (ADMIN, tenant-scoped) and exported as CSV by the CLI.
 */

const BIN = path.join(__dirname, '../..', 'dist/src/cli/bin.js');
const UNKNOWN = '353870000999';

interface Cdr {
  type: string;
  recordId: string;
  serviceId: number;
  transactionType: number;
  tenantId: string;
  generated: string;
  date: string;
  time: string;
  actor: string;
  actorCause: number | null;
  donation: Record<string, unknown> | null;
  group: Record<string, unknown> | null;
  recurringDonation: Record<string, unknown> | null;
  charging: Record<string, unknown> | null;
}

const CDR_SELECTION = `type recordId serviceId transactionType tenantId generated date time actor actorCause
  donation { donationType donationErrorCode donorId donorPlanId groupId groupName planDefinitionId planDefinitionName
    planDefinitionMaxRecipients deductQuotaType deductQuotaValue deductedAmount addQuotaType addQuotaValue recipientId addedAmount }
  group { groupOwnerId groupName groupQuotaType groupMemberId groupMemberQuota }
  recurringDonation { donorPlanId groupId groupName donorId planName }
  charging { msisdn returnCode amount currency balanceAfter providerId applicationId serviceId originId bundleId }`;

let app: TestApp;
let sqs: ReturnType<typeof sqsClient>;

beforeAll(async () => {
  const ds = sharingDataset();
  ds.ratings = chargingDataset().ratings;
  ds.clients!.push({
    tenant: 'acme',
    username: 'crs',
    password: 'crs-password',
    permissions: ['CRS_RATING', 'CRS_REFUND'] as never,
  });
  app = await startTestApp({ dataset: ds });
  sqs = sqsClient(app);
});
afterAll(() => app.close());
beforeEach(async () => {
  await app.tdb.db('cdrs').delete();
});

const gql = async (as: string, query: string, variables: Record<string, unknown> = {}) =>
  (await app.request('POST', '/graphql', { as, body: { query, variables } })).json() as {
    data?: Record<string, unknown>;
    errors?: { message: string; extensions: { code: string } }[];
  };

const FROM = '2026-01-01T00:00:00Z';
const TO = '2027-01-01';

/** Every CDR of a type for `as`'s tenant, following the cursor with pages of `first`. */
async function cdrs(type: string, as = 'admin', first = 500): Promise<Cdr[]> {
  const out: Cdr[] = [];
  let after: string | null = null;
  for (;;) {
    const body = await gql(
      as,
      `query($type:CdrType!,$from:String!,$to:String!,$after:String,$first:Int){ cdrs(type:$type,from:$from,to:$to,after:$after,first:$first){ nodes { ${CDR_SELECTION} } endCursor hasNextPage } }`,
      { type, from: FROM, to: TO, after, first },
    );
    expect(body.errors).toBeUndefined();
    const page = body.data!.cdrs as { nodes: Cdr[]; endCursor: string | null; hasNextPage: boolean };
    out.push(...page.nodes);
    if (!page.hasNextPage) return out;
    after = page.endCursor;
  }
}

/** `shareQuota` with a REST-style body (`quotaType` lower case); `data.shareQuota` is the donation. */
const shareQuota = async (as: string, input: Record<string, unknown>) => {
  const res = await gql(
    as,
    'mutation($input:DonationInput!){ shareQuota(input:$input){ donation { id errorCode recipients { recipientId errorCode granted } } userErrors { code message } } }',
    { input: { ...input, quotaType: String(input.quotaType).toUpperCase() } },
  );
  const payload = res.data?.shareQuota as { donation: unknown; userErrors: unknown[] } | undefined;
  expect(payload?.userErrors ?? []).toEqual([]);
  return { ...res, data: payload && { shareQuota: payload.donation } };
};

describe('donation CDRs (service ID 96)', () => {
  it('a donation with one failed recipient: start, get donor plan, deduct/add per recipient, deduct/add/rollback for the failed one, end — codes and amounts as published', async () => {
    const before = await remainingOf(app.tdb.db, PLAN.amount);
    const res = await shareQuota('admin', {
      donorId: DONOR,
      donorPlanId: PLAN.amount,
      quotaType: 'amount',
      recipients: [
        { recipientId: R(0), quota: 100 },
        { recipientId: UNKNOWN, quota: 40 },
        { recipientId: R(1), quota: 25 },
      ],
    });
    expect(res.errors).toBeUndefined();
    const donation = res.data!.shareQuota as { id: string; errorCode: number };
    const rows = await cdrs('DONATION');
    expect(
      rows.map((c) => [c.transactionType, c.donation!.recipientId ?? null, c.donation!.donationErrorCode]),
    ).toEqual([
      [0, null, 0],
      [5, null, 0],
      [2, R(0), 0],
      [3, R(0), 0],
      [2, UNKNOWN, 0],
      [3, UNKNOWN, 12],
      [4, UNKNOWN, 12],
      [2, R(1), 0],
      [3, R(1), 0],
      [1, null, donation.errorCode],
    ]);
    for (const c of rows) {
      expect(c).toMatchObject({
        type: 'DONATION',
        recordId: donation.id,
        serviceId: 96,
        tenantId: 'acme',
        actor: 'admin',
        actorCause: null,
        date: '22/11/2026',
        time: '12:00:00',
      });
      expect(c.donation).toMatchObject({ donationType: 0, donorId: DONOR, donorPlanId: PLAN.amount });
    }
    expect(rows[1].donation).toMatchObject({
      planDefinitionName: 'Gift 1000',
      planDefinitionMaxRecipients: 80,
    });
    expect(rows[4].donation).toMatchObject({
      deductQuotaType: 'VOLUME',
      deductQuotaValue: 40,
      deductedAmount: 40,
    });
    expect(rows[5].donation).toMatchObject({ addQuotaType: 'VOLUME', addQuotaValue: 40, addedAmount: 0 });
    expect(rows[6].donation).toMatchObject({ deductQuotaValue: 40, deductedAmount: 40 });
    // The ledger: Σ deducted − Σ rolled back = Σ added = what left the donor plan.
    const sum = (tx: number, key: string) =>
      rows.filter((c) => c.transactionType === tx).reduce((s, c) => s + Number(c.donation![key] ?? 0), 0);
    const moved = before - (await remainingOf(app.tdb.db, PLAN.amount));
    expect(moved).toBe(125);
    expect(sum(2, 'deductedAmount') - sum(4, 'deductedAmount')).toBe(moved);
    expect(sum(3, 'addedAmount')).toBe(moved);
  });

  it('a recipient refused for want of quota gets a failed deduct and nothing else', async () => {
    await app.tdb.db('subscriber_plans').where({ id: PLAN.amount }).update({ remaining: 10 });
    try {
      await shareQuota('admin', {
        donorId: DONOR,
        donorPlanId: PLAN.amount,
        quotaType: 'amount',
        recipients: [{ recipientId: R(2), quota: 50 }],
      });
      const rows = await cdrs('DONATION');
      expect(
        rows.map((c) => [
          c.transactionType,
          c.donation!.donationErrorCode,
          c.donation!.deductedAmount ?? null,
        ]),
      ).toEqual([
        [0, 0, null],
        [5, 0, null],
        [2, 15, 0],
        [1, 15, null],
      ]);
    } finally {
      await app.tdb
        .db('subscriber_plans')
        .where({ id: PLAN.amount })
        .update({ remaining: REMAINING[PLAN.amount] });
    }
  });

  it('a donation refused as a whole (rolled back) leaves no CDR', async () => {
    const res = await sqs.donate({
      donorId: DONOR,
      donorPlanId: 999_999,
      quotaType: 'amount',
      recipients: [{ recipientId: R(0), quota: 1 }],
    });
    expect(res.status).toBe(404);
    expect(await cdrs('DONATION')).toEqual([]);
  });
});

describe('group and recurring donation CDRs (service IDs 98, 99)', () => {
  it('group created, member added, updated, deleted, group deleted with its recurring donation; actor is the client', async () => {
    const g = await sqs.createGroup({ ownerId: DONOR, name: 'Family', quotaType: 'share' });
    expect(g.status).toBe(201);
    const groupId = g.json().id as string;
    expect((await sqs.addMember(groupId, { memberId: R(3), quota: 1_000_000 })).status).toBe(201);
    expect(
      (
        await sqs.call('PUT', `/sqs/api/groups/${groupId}/members/${R(3)}`, {
          memberId: R(3),
          quota: 2_000_000,
        })
      ).status,
    ).toBe(201);
    expect((await sqs.addMember(groupId, { memberId: R(4), quota: 500_000 })).status).toBe(201);
    expect((await sqs.call('DELETE', `/sqs/api/groups/${groupId}/members/${R(4)}`)).status).toBe(204);
    const rec = await sqs.createRecurring({ donorPlanId: PLAN.share, groupId });
    expect(rec.status).toBe(201);
    expect((await sqs.call('DELETE', `/sqs/api/groups/${groupId}`)).status).toBe(204);

    const groups = await cdrs('GROUP');
    expect(
      groups.map((c) => [
        c.transactionType,
        c.group!.groupMemberId ?? null,
        c.group!.groupMemberQuota ?? null,
      ]),
    ).toEqual([
      [0, null, null],
      [3, R(3), 1_000_000],
      [4, R(3), 2_000_000],
      [3, R(4), 500_000],
      [5, R(4), 500_000],
      [2, null, null],
    ]);
    for (const c of groups)
      expect(c).toMatchObject({
        recordId: groupId,
        serviceId: 98,
        actor: 'sqs',
        group: { groupOwnerId: DONOR, groupName: 'Family', groupQuotaType: 0 },
      });
    const recurring = await cdrs('RECURRING_DONATION');
    expect(recurring.map((c) => [c.transactionType, c.actorCause])).toEqual([
      [0, null],
      [2, null],
    ]);
    expect(recurring[0]).toMatchObject({
      recordId: rec.json().id,
      serviceId: 99,
      recurringDonation: {
        donorPlanId: PLAN.share,
        groupId,
        groupName: 'Family',
        donorId: DONOR,
        planName: 'Share 10GB',
      },
    });
  });

  it('a renewal-triggered recurring donation is recorded with actor sqs and donation type 1', async () => {
    const rec = await sqs.createRecurring({
      donorId: DONOR,
      donorPlanId: PLAN.share,
      quotaType: 'share',
      recipients: [{ recipientId: R(5), quota: 1000 }],
    });
    expect(rec.status).toBe(201);
    const renewed = await gql(
      'admin',
      'mutation{ renewSubscriberPlan(id:100){ donation { id errorCode } } }',
    );
    expect(renewed.errors).toBeUndefined();
    const rows = await cdrs('DONATION');
    expect(rows.map((c) => c.transactionType)).toEqual([0, 5, 2, 3, 1]);
    for (const c of rows) expect(c).toMatchObject({ actor: 'sqs', donation: { donationType: 1 } });
    // The client that created it is the actor of the recurring donation CDR.
    expect((await cdrs('RECURRING_DONATION')).map((c) => [c.transactionType, c.actor])).toEqual([[0, 'sqs']]);
    await sqs.call('DELETE', `/sqs/api/recurringDonations/${rec.json().id}`);
    expect((await cdrs('RECURRING_DONATION')).map((c) => c.transactionType)).toEqual([0, 2]);
  });
});

describe('charging CDRs (service ID 200)', () => {
  const crs = (body: unknown, op = 'processRating') =>
    app.request('POST', `/crs-api/${op}`, {
      auth: 'Basic ' + Buffer.from('crs:crs-password').toString('base64'),
      json: true,
      headers: { tenant: 'acme' },
      body,
    });

  it('every rating and refund outcome, success or refusal, has its CDR', async () => {
    const ok = ratingBody({}, { msisdn: DONOR });
    expect((await crs(ok)).json()).toMatchObject({ returnCode: 0 });
    expect((await crs(ok)).json()).toMatchObject({ returnCode: 0 }); // a replay: nothing moves
    expect((await crs(ratingBody({}, { msisdn: UNKNOWN }))).json()).toMatchObject({ returnCode: 2000 });
    const bad = ratingBody({}, { msisdn: DONOR, lookup: { providerId: undefined } });
    expect((await crs(bad)).json()).toMatchObject({ returnCode: 2001 });
    expect((await crs(ok, 'processRefund')).json()).toMatchObject({ returnCode: 0 });
    const rows = await cdrs('CHARGING');
    const opId = (ok.ratingParams as { operationId: string }).operationId;
    expect(
      rows.map((c) => [
        c.transactionType,
        c.recordId,
        c.charging!.returnCode,
        c.charging!.amount,
        c.charging!.balanceAfter,
      ]),
    ).toEqual([
      [0, opId, 0, '0.12', '0.88'],
      [0, opId, 0, null, '0.88'],
      [0, expect.any(String), 2000, null, null],
      [0, (bad.ratingParams as { operationId: string }).operationId, 2001, null, null],
      [1, opId, 0, '0.12', '1.00'],
    ]);
    expect(rows[0]).toMatchObject({
      serviceId: 200,
      actor: 'crs',
      charging: {
        msisdn: DONOR,
        currency: 'EUR',
        providerId: '6010',
        applicationId: '50000029',
        serviceId: '30000020',
        originId: '9',
        bundleId: '1234',
      },
    });
    expect(rows[3].charging).toMatchObject({ providerId: null, applicationId: '50000029' });
  });
});

describe('charging CDRs when the operation rolls back', () => {
  it('a rating whose balance write fails answers 4000, charges nothing, and still has its CDR', async () => {
    const crsAuth = 'Basic ' + Buffer.from('crs:crs-password').toString('base64');
    const body = ratingBody({}, { msisdn: DONOR });
    const res = await withFailingBalanceWrites(app.tdb.db, app.tdb.dialect, () =>
      app.request('POST', '/crs-api/processRating', {
        auth: crsAuth,
        json: true,
        headers: { tenant: 'acme' },
        body,
      }),
    );
    expect(res.json()).toMatchObject({ returnCode: 4000 });
    const opId = (body.ratingParams as { operationId: string }).operationId;
    expect(await app.tdb.db('charges').where({ operation_id: opId })).toEqual([]);
    const rows = await cdrs('CHARGING');
    expect(rows.map((c) => [c.recordId, c.actor, c.charging!.returnCode, c.charging!.amount])).toEqual([
      [opId, 'crs', 4000, null],
    ]);
  });
});

describe('GraphQL cdrs', () => {
  it('needs ADMIN, is tenant-scoped, pages with after, and rejects a bad window', async () => {
    await sqs.createGroup({ ownerId: DONOR, name: 'A', quotaType: 'share' });
    await sqs.createGroup({ ownerId: DONOR, name: 'B', quotaType: 'share' });
    await sqs.createGroup({ ownerId: DONOR, name: 'C', quotaType: 'share' });
    const q = 'query($from:String!,$to:String!){ cdrs(type:GROUP,from:$from,to:$to){ nodes { recordId } } }';
    const denied = await gql('portal', q, { from: FROM, to: TO });
    expect(denied.errors?.[0].extensions.code).toBe('FORBIDDEN');
    expect(await cdrs('GROUP', 'rival-admin')).toEqual([]);
    const paged = await cdrs('GROUP', 'admin', 1);
    expect(paged.map((c) => c.group!.groupName)).toEqual(['A', 'B', 'C']);
    const outside = await gql('admin', q, { from: '2026-11-22T12:00:01Z', to: TO });
    expect(outside.data!.cdrs).toEqual({ nodes: [] });
    for (const [from, to] of [
      ['yesterday', TO],
      [TO, FROM],
    ]) {
      const bad = await gql('admin', q, { from, to });
      expect(bad.errors?.[0].extensions.code).toBe('BAD_USER_INPUT');
    }
    const badCursor = await gql(
      'admin',
      'query{ cdrs(type:GROUP,from:"2026-01-01",to:"2027-01-01",after:"nope"){ nodes { recordId } } }',
    );
    expect(badCursor.errors?.[0].extensions.code).toBe('BAD_USER_INPUT');
  });
});

describe('cdr export (CLI)', () => {
  let tmp: string;
  beforeEach(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sg-cdr-'));
  });
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  const exportCdrs = (args: string[]) =>
    spawnSync(process.execPath, [BIN, 'cdr', 'export', ...args], {
      cwd: tmp,
      env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'silent', DATABASE_URL: app.tdb.url },
      encoding: 'utf8',
      timeout: 60_000,
    });

  it('writes CSV in the published field order with DD/MM/YYYY dates and hh:mm:ss times', async () => {
    await shareQuota('admin', {
      donorId: DONOR,
      donorPlanId: PLAN.amount,
      quotaType: 'amount',
      recipients: [
        { recipientId: R(6), quota: 7 },
        { recipientId: UNKNOWN, quota: 3 },
      ],
    });
    const g = await sqs.createGroup({ ownerId: DONOR, name: 'Say "hi", all', quotaType: 'share' });
    const r = exportCdrs(['--type', 'donation', '--from', '2026-11-22', '--to', '2026-11-23']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const lines = r.stdout.split('\r\n');
    expect(lines.pop()).toBe('');
    expect(lines[0]).toBe(LAYOUTS.donation.map((f) => f.name).join(','));
    expect(lines[0].split(',').slice(0, 10)).toEqual([
      'donation ID',
      'service ID',
      'transaction type',
      'tenant ID',
      'cdr generation date',
      'cdr generation time',
      'actor',
      'actor cause',
      'donation type',
      'donation error code',
    ]);
    const cells = lines.slice(1).map((l) => l.split(','));
    expect(cells.map((c) => c[2])).toEqual(['0', '5', '2', '3', '2', '3', '4', '1']);
    const add = cells[3];
    expect(add).toHaveLength(31);
    const col = (name: string) => LAYOUTS.donation.findIndex((f) => f.name === name);
    expect([add[1], add[3], add[4], add[5], add[6], add[7], add[8], add[9]]).toEqual([
      '96',
      'acme',
      '22/11/2026',
      '12:00:00',
      'admin',
      '',
      '0',
      '0',
    ]);
    expect([add[col('donor ID')], add[col('recipient ID')], add[col('added unit amount')]]).toEqual([
      DONOR,
      R(6),
      '7',
    ]);
    expect(cells[6][col('donation error code')]).toBe('12');

    // Quotes and commas are escaped (RFC 4180); --out writes a file; the window is [from, to).
    const out = path.join(tmp, 'groups.csv');
    const r2 = exportCdrs([
      '--type',
      'group',
      '--from',
      '2026-11-22T12:00:00Z',
      '--to',
      '2026-11-22T12:00:01Z',
      '--out',
      out,
      '--no-header',
    ]);
    expect(r2.status).toBe(0);
    expect(fs.readFileSync(out, 'utf8')).toBe(
      `${g.json().id},98,0,acme,22/11/2026,12:00:00,sqs,,${DONOR},"Say ""hi"", all",0,,\r\n`,
    );
    const empty = exportCdrs([
      '--type',
      'group',
      '--from',
      '2026-11-22T12:00:01Z',
      '--to',
      '2027-01-01',
      '--no-header',
    ]);
    expect(empty.stdout).toBe('');
  });

  it('rejects a bad type or window with one line on stderr', () => {
    for (const args of [
      ['--type', 'nope', '--from', '2026-01-01', '--to', '2027-01-01'],
      ['--type', 'group', '--from', '01/01/2026', '--to', '2027-01-01'],
      ['--type', 'group', '--from', '2027-01-01', '--to', '2026-01-01'],
    ]) {
      const r = exportCdrs(args);
      expect(r.status).toBe(1);
      expect(r.stderr).toMatch(/^error: --(type|from|to): /);
      expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    }
  });
});
