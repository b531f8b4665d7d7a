import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Knex } from 'knex';
import { Dataset } from '../../src/dataset/dataset.schema';
import { ImportSummary, importDataset } from '../../src/dataset/import';
import { TestApp, TestResponse, startTestApp } from '../helpers/app';
import { chargingDataset, ratingBody } from '../helpers/charging';
import { TestDb, createTestDb, dumpTables, reopenTestDb } from '../helpers/db';
import { FakeClock } from '../helpers/clock';
import { BalanceAdjustmentService } from '../../src/modules/charging/balance-adjustment.service';
import { DatasetError } from '../../src/dataset/import';
import { DONOR, PLAN, R, RECIPIENT_COUNT, sharingDataset, sqsClient } from '../helpers/sharing';

/** acme subscribers the load charges: S(0)..S(LOADED-1). */
const S = (i: number) => `3538950${String(i).padStart(5, '0')}`;
const LOADED = 400;
const CRS = {
  auth: 'Basic ' + Buffer.from('crs:crs-password').toString('base64'),
  json: true,
  headers: { tenant: 'acme' },
};

/** The charging and sharing fixtures together, `extra` more acme subscribers, every one at 100.00. */
function liveDataset(extra: number, from = LOADED): Dataset {
  const ds = sharingDataset();
  const charging = chargingDataset();
  ds.ratings = charging.ratings;
  ds.clients!.push(...charging.clients!.filter((c) => c.username === 'crs'));
  const sub = (msisdn: string) => ({
    tenant: 'acme',
    msisdn,
    status: 'active' as const,
    paymentType: 'prepaid' as const,
    balance: '100.00',
    currency: 'EUR',
  });
  ds.subscribers!.push(...Array.from({ length: LOADED }, (_, i) => sub(S(i))));
  ds.subscribers!.push(...Array.from({ length: extra }, (_, i) => sub(S(from + i))));
  return ds;
}

/** Every acme subscriber's balance in micros. */
async function balances(db: Knex): Promise<Map<string, bigint>> {
  const rows = await db('subscribers as s')
    .join('tenants as t', 't.id', 's.tenant_id')
    .where('t.name', 'acme')
    .select('s.msisdn', 's.balance_micros');
  return new Map(
    rows.map((r: { msisdn: string; balance_micros: unknown }) => [
      r.msisdn,
      BigInt(String(r.balance_micros)),
    ]),
  );
}

/** Σ successful ledger entries per msisdn: − charges + refunds ± adjustments, in micros. */
async function ledgerMoves(db: Knex): Promise<Map<string, bigint>> {
  const rows = await db('charges')
    .where({ return_code: 0 })
    .select('msisdn', 'kind')
    .sum({ s: 'amount_micros' })
    .groupBy('msisdn', 'kind');
  const out = new Map<string, bigint>();
  for (const r of rows as { msisdn: string; kind: string; s: unknown }[]) {
    const amount = BigInt(String(r.s));
    const signed = r.kind === 'charge' ? -amount : amount;
    out.set(r.msisdn, (out.get(r.msisdn) ?? 0n) + signed);
  }
  return out;
}

/** `remaining` of a plan plus Σ quota it granted (all periods). */
async function conservedQuota(db: Knex, planId: number): Promise<number> {
  const plan = await db('subscriber_plans').where({ id: planId }).first();
  const granted = await db('allowances').sum({ s: 'amount' }).where({ donor_plan_id: planId }).first();
  return Number(plan.remaining) + Number(granted?.s ?? 0);
}

/**
 * Sends charges (with a refund of every fifth) and donations from the credit plan, `workers` at a
 * time, until `stop()` resolves; returns how many were sent and every answer that was not a success.
 */
async function loadUntil(
  app: TestApp,
  stop: Promise<unknown>,
): Promise<{ sent: number; failures: string[] }> {
  const sqs = sqsClient(app);
  let running = true;
  let sent = 0;
  const failures: string[] = [];
  const check = (what: string, r: TestResponse, ok: boolean) => {
    sent++;
    if (!ok) failures.push(`${what}: ${r.status} ${r.text}`);
  };
  const charger = async (w: number) => {
    for (let n = 0; running; n++) {
      const body = ratingBody({}, { msisdn: S((w * 97 + n * 13) % LOADED) });
      const r = await app.request('POST', '/crs-api/processRating', { ...CRS, body });
      check('charge', r, r.status === 200 && r.json().returnCode === 0);
      if (n % 5 === 0) {
        const back = await app.request('POST', '/crs-api/processRefund', { ...CRS, body });
        check('refund', back, back.status === 200 && back.json().returnCode === 0);
      }
    }
  };
  const donor = async (w: number) => {
    for (let n = 0; running; n++) {
      const r = await sqs.donate({
        donorId: DONOR,
        donorPlanId: PLAN.credit,
        quotaType: 'amount',
        recipients: [{ recipientId: R((w * 31 + n) % RECIPIENT_COUNT), quota: 7 }],
      });
      const codes = r.status === 200 ? (r.json().recipients as { errorCode: number }[]) : [];
      check('donation', r, codes.length === 1 && codes[0].errorCode === 0);
    }
  };
  const workers = [...[0, 1, 2, 3, 4, 5].map(charger), ...[0, 1].map(donor)];
  await stop.finally(() => {
    running = false;
  });
  await Promise.all(workers);
  return { sent, failures };
}

describe('the dataset import on a live database (docs/cli.md "Importing into a live database")', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ dataset: liveDataset(0) });
  });
  afterAll(() => app.close());

  it('imports three times while charges, refunds and donations run: no request fails, the ledger identity and quota conservation hold', async () => {
    const { db } = app.tdb;
    const start = await balances(db);
    const creditStart = await conservedQuota(db, PLAN.credit);
    const importer = reopenTestDb(app.tdb);
    const summaries: ImportSummary[] = [];
    try {
      for (let round = 1; round <= 3; round++) {
        const load = loadUntil(
          app,
          (async () => {
            // Let the load reach its pace, then import 300 new subscribers beside the loaded ones.
            await new Promise((r) => setTimeout(r, 300));
            summaries.push(
              await importDataset(importer.db, liveDataset(300, LOADED + round * 300), app.clock),
            );
          })(),
        );
        const { sent, failures } = await load;
        expect(failures).toEqual([]);
        expect(sent).toBeGreaterThan(20);
      }
    } finally {
      await importer.destroy();
    }
    for (const s of summaries) {
      expect(s.subscribers.created).toBe(300);
      // The loaded balances moved since the file's 100.00, and the file did not undo it.
      expect(s.kept.balances.kept).toBeGreaterThan(0);
      expect(s.kept.balances.reset).toBe(0);
      expect(s.kept.quotas.kept).toBe(1);
    }
    const end = await balances(db);
    const moves = await ledgerMoves(db);
    for (const [msisdn, balance] of end) {
      const before = start.get(msisdn) ?? 100_000_000n;
      expect([msisdn, balance]).toEqual([msisdn, before + (moves.get(msisdn) ?? 0n)]);
    }
    expect(end.size).toBe(start.size + 900);
    expect(await conservedQuota(db, PLAN.credit)).toBe(creditStart);
    expect(await conservedQuota(db, PLAN.credit)).toBeGreaterThan(
      Number((await db('subscriber_plans').where({ id: PLAN.credit }).first()).remaining),
    );
  }, 240_000);
});

describe('the import keeps existing balances and remaining quotas unless told to reset them', () => {
  let t: TestDb;
  const clock = new FakeClock();
  const DONOR_PLAN = PLAN.credit;
  beforeAll(async () => {
    t = await createTestDb();
    await importDataset(t.db, liveDataset(0), clock);
  });
  afterAll(() => t.destroy());

  const tenantId = async () => (await t.db('tenants').where({ name: 'acme' }).first()).id as number;
  const balanceOf = async (msisdn: string) =>
    String((await t.db('subscribers').where({ msisdn }).first()).balance_micros);
  const remaining = async () =>
    Number((await t.db('subscriber_plans').where({ id: DONOR_PLAN }).first()).remaining);
  const events = (type: string) => t.db('outbox_events').where({ type }).orderBy('seq');
  /** Moves S(0)'s balance by −2.50 through the ledger and the credit plan's remaining by −100, as charges and a donation would. */
  const liveChanges = async () => {
    await new BalanceAdjustmentService({ knex: t.db, clock }).adjustBalance(
      { tenantId: await tenantId() },
      S(0),
      '-2.50',
      'test charge',
    );
    await t.db('subscriber_plans').where({ id: DONOR_PLAN }).decrement('remaining', 100);
  };

  it('by default: leaves a changed balance and remaining as they are, counts them as kept, writes no ledger entry', async () => {
    await liveChanges();
    const ledger = await t.db('charges').count({ n: '*' }).first();
    const summary = await importDataset(t.db, liveDataset(1), clock, { batchRows: 7 });
    expect(summary.kept).toEqual({ balances: { kept: 1, reset: 0 }, quotas: { kept: 1, reset: 0 } });
    expect(summary.subscribers).toEqual({ created: 1, updated: 0, unchanged: LOADED + 85 });
    expect(summary.subscriberPlans.unchanged).toBe(6);
    expect(await balanceOf(S(0))).toBe('97500000');
    expect(await balanceOf(S(LOADED))).toBe('100000000');
    expect(await remaining()).toBe(60_000 - 100);
    expect(await t.db('charges').count({ n: '*' }).first()).toEqual(ledger);
  });

  it('a changed status is written while the balance is kept', async () => {
    const ds = liveDataset(1);
    ds.subscribers!.find((s) => s.msisdn === S(0))!.status = 'suspended';
    const summary = await importDataset(t.db, ds, clock);
    expect(summary.subscribers.updated).toBe(1);
    expect(summary.kept.balances).toEqual({ kept: 1, reset: 0 });
    const row = await t
      .db('subscribers')
      .where({ msisdn: S(0) })
      .first();
    expect([row.status, String(row.balance_micros)]).toEqual(['suspended', '97500000']);
  });

  it('with resetBalances: sets the file balance through an adjustment of the difference, with its ledger entry and event', async () => {
    const summary = await importDataset(t.db, liveDataset(1), clock, {
      resetBalances: true,
      reason: 'dataset import fix.json',
    });
    expect(summary.kept.balances).toEqual({ kept: 0, reset: 1 });
    expect(summary.kept.quotas).toEqual({ kept: 1, reset: 0 });
    expect(await balanceOf(S(0))).toBe('100000000');
    const entry = await t
      .db('charges')
      .where({ msisdn: S(0), kind: 'adjustment' })
      .orderBy('id', 'desc')
      .first();
    expect([String(entry.amount_micros), String(entry.balance_after_micros), entry.reason]).toEqual([
      '2500000',
      '100000000',
      'dataset import fix.json',
    ]);
    const adjusted = (await events('balance.adjusted')).map((e) => JSON.parse(e.payload));
    expect(adjusted.at(-1)).toMatchObject({
      msisdn: S(0),
      amount: '2.50',
      balance: '100.00',
      reason: 'dataset import fix.json',
    });
    expect(await importDataset(t.db, liveDataset(1), clock, { resetBalances: true })).toMatchObject({
      kept: { balances: { kept: 0, reset: 0 } },
    });
  });

  it('with resetQuotas: sets the file remaining and records a plan.quota.reset event', async () => {
    const summary = await importDataset(t.db, liveDataset(1), clock, { resetQuotas: true });
    expect(summary.kept.quotas).toEqual({ kept: 0, reset: 1 });
    expect(summary.subscriberPlans.updated).toBe(1);
    expect(await remaining()).toBe(60_000);
    const [reset] = await events('plan.quota.reset');
    expect(reset.subject).toBe(DONOR);
    expect(JSON.parse(reset.payload)).toMatchObject({
      planId: DONOR_PLAN,
      msisdn: DONOR,
      amount: 100,
      remaining: 60_000,
      reason: 'dataset import',
    });
  });

  it('the CLI (the built dist/, as an operator runs it): keeps by default and says so; --reset-balances --reason resets', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sg-import-'));
    const cli = (...args: string[]) =>
      spawnSync(process.execPath, [path.join(__dirname, '../../dist/src/cli/bin.js'), 'import', ...args], {
        cwd: dir,
        env: { PATH: process.env.PATH ?? '', DATABASE_URL: t.url, LOG_LEVEL: 'silent' },
        encoding: 'utf8',
        timeout: 60_000,
      });
    try {
      const file = path.join(dir, 'live.json');
      const ds = liveDataset(1);
      ds.subscribers!.find((s) => s.msisdn === S(1))!.balance = '42.00';
      fs.writeFileSync(file, JSON.stringify(ds));
      const kept = cli(file);
      expect([kept.status, kept.stderr]).toEqual([
        0,
        expect.stringMatching(/^kept 1 existing balance\(s\) and 0 plan remaining quota\(s\) that differ/),
      ]);
      expect(JSON.parse(kept.stdout).kept.balances).toEqual({ kept: 1, reset: 0 });
      const reset = cli(file, '--reset-balances', '--reason', 'ops ticket 7');
      expect([reset.status, reset.stderr]).toEqual([0, '']);
      expect(JSON.parse(reset.stdout).kept.balances).toEqual({ kept: 0, reset: 1 });
      const entry = await t
        .db('charges')
        .where({ msisdn: S(1), kind: 'adjustment' })
        .first();
      expect([String(entry.amount_micros), entry.reason]).toEqual(['-58000000', 'ops ticket 7']);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a file refused in a later section writes nothing, whatever the batch size', async () => {
    const tables = ['tenants', 'api_clients', 'subscribers', 'subscriber_plans', 'charges'];
    const before = await dumpTables(t.db, tables);
    const events = await t.db('outbox_events').count({ n: '*' }).first();
    const ds = liveDataset(50, 5000);
    ds.subscriberPlans!.push({
      tenant: 'acme',
      id: 999,
      msisdn: S(5000),
      planDefinition: 'Nope',
      remaining: 1,
    });
    const err = await importDataset(t.db, ds, clock, { batchRows: 1, resetBalances: true }).catch((e) => e);
    expect(err).toBeInstanceOf(DatasetError);
    expect(err.path).toBe(`$.subscriberPlans[${ds.subscriberPlans!.length - 1}].planDefinition`);
    expect(await dumpTables(t.db, tables)).toEqual(before);
    expect(await t.db('outbox_events').count({ n: '*' }).first()).toEqual(events);
  });
});
