import { Knex } from 'knex';
import { ApiClient, findClientByUsername, insertClient, updateClient } from '../auth/client.store';
import { Clock } from '../lib/clock';
import { Money } from '../lib/money';
import { normalizeMsisdn } from '../lib/msisdn';
import { upsertInfoType, upsertLocationTree } from '../modules/locations/location.service';
import { findInfoType, findLocation } from '../modules/locations/location.store';
import { WILDCARD, upsertRating } from '../modules/charging/charging.store';
import { PlanService } from '../modules/sharing/plan.service';
import { setTenantPortal } from '../modules/portal/portal.store';
import { findTenantByName, upsertTenant } from '../modules/tenants/tenant.store';
import { SubscriberService } from '../modules/subscribers/subscriber.service';
import { BalanceAdjustmentService } from '../modules/charging/balance-adjustment.service';
import { DEFAULT_BATCH_ROWS, DEFAULT_LOCK_WAIT_MS, nextBatchRows, writeBatch } from './batch';
import { atPath, unknownTenant } from './dataset-error';
import { Dataset } from './dataset.schema';
import {
  KeptValues,
  ResetOptions,
  addKeptValues,
  noKeptValues,
  putSubscriber,
  recordQuotaReset,
  remainingToWrite,
} from './kept-values';
import { PasswordCheck, checkPasswords, freshHash, passwordVerifies } from './passwords';
import { preflightDataset, subscriberPlanRefusals } from './preflight';
import { importRateLimits } from './rate-limits';
import { importTrustedDocuments } from './trusted-documents';

import { validateDatasetDocument } from './validate';

export { DatasetError } from './dataset-error';
export { validateDatasetDocument } from './validate';

/** The sections of a dataset, in the order the import writes them. */
type SectionName =
  | 'tenants'
  | 'clients'
  | 'subscribers'
  | 'ratings'
  | 'planDefinitions'
  | 'subscriberPlans'
  | 'locationInfoTypes'
  | 'locations';

/**
 * Rows created, updated and left unchanged per section; and `kept`, the existing balances and
 * plan remaining quotas that differ from the file, left as they are (`kept`) or reset through a
 * ledger entry or event (`reset`, with the options asking for it).
 */
export type ImportSummary = Record<SectionName, { created: number; updated: number; unchanged: number }> & {
  kept: KeptValues;
};

/**
 * Options of {@link importDataset}. By default a balance or a plan's remaining quota is taken
 * from the file only when its row is created (docs/cli.md "Importing into a live database").
 */
export interface ImportOptions extends Partial<ResetOptions> {
  /** Rows of a section per transaction (default {@link DEFAULT_BATCH_ROWS}). */
  batchRows?: number;
  /** How long one batch may wait for its locks, ms (default {@link DEFAULT_LOCK_WAIT_MS}). */
  lockWaitMs?: number;
}

/** The reason on the ledger entries and events of a reset when the caller gives none. */
export const DEFAULT_IMPORT_REASON = 'dataset import';

function emptySummary(): ImportSummary {
  const z = () => ({ created: 0, updated: 0, unchanged: 0 });
  return {
    tenants: z(),
    clients: z(),
    subscribers: z(),
    ratings: z(),
    planDefinitions: z(),
    subscriberPlans: z(),
    locationInfoTypes: z(),
    locations: z(),
    kept: noKeptValues(),
  };
}

async function tenantId(trx: Knex, name: string, path: string): Promise<number> {
  const t = await findTenantByName(trx, name);
  if (!t) throw unknownTenant(path, name);
  return t.id;
}

function sameClient(
  existing: ApiClient,
  tenant: number,
  c: NonNullable<Dataset['clients']>[number],
  verifies: boolean,
): boolean {
  return (
    existing.tenantId === tenant &&
    existing.enabled === (c.enabled ?? true) &&
    existing.trustedDocumentsOnly === (c.trustedDocumentsOnly ?? false) &&
    [...existing.permissions].sort().join(',') === [...c.permissions].sort().join(',') &&
    verifies
  );
}

/**
 * What every section's upsert works with: the batch's transaction, the import's clock reading,
 * the services, the options, the batch's tally, and where the batch starts in its section.
 */
interface ImportRun {
  trx: Knex.Transaction;
  /** The import's one timestamp (ms since the epoch), stamped on every row it writes. */
  now: number;
  clock: Clock;
  /** The batch's own counts, added to the import's once the batch has committed. */
  summary: ImportSummary;
  plans: PlanService;
  adjustments: BalanceAdjustmentService;
  options: ResetOptions;
  /** The password work of the file's clients, done before the first batch (./passwords.ts). */
  passwords: Map<string, PasswordCheck>;
  /** Index in the file's section of the batch's first row (`$.subscribers[first + i]`). */
  first: number;
}

type Rows<K extends keyof Dataset> = NonNullable<Dataset[K]>;
type Outcome = keyof ImportSummary['tenants'];

/** The summary column of an upsert that created a row, changed one, or found it as in the file. */
function outcome(created: boolean, changed: boolean): Outcome {
  return created ? 'created' : changed ? 'updated' : 'unchanged';
}

/**
 * Tenants by name, with their portal branding when the row has `portal` (absent: the stored
 * branding stays; null or absent fields: the defaults, docs/portal.md).
 */
async function importTenants(run: ImportRun, rows: Rows<'tenants'>): Promise<void> {
  for (const t of rows) {
    const { tenant, created } = await upsertTenant(run.trx, t.name, run.now);
    const branded =
      t.portal !== undefined &&
      (await setTenantPortal(run.trx, tenant.id, {
        displayName: t.portal?.displayName ?? null,
        primaryColor: t.portal?.primaryColor ?? null,
        logoUrl: t.portal?.logoUrl ?? null,
      }));
    run.summary.tenants[outcome(created, branded)]++;
  }
}

/**
 * API clients by username. A client whose tenant, permissions, enabled and trusted-documents-only
 * flags, password and trusted documents all match is unchanged; an updated client keeps its
 * stored hash while the file's password still verifies. A client's `trustedDocuments`, when
 * given, replaces its stored list (./trusted-documents.ts).
 */
async function importClients(run: ImportRun, rows: Rows<'clients'>): Promise<void> {
  const { trx, now } = run;
  for (const [i, c] of rows.entries()) {
    const tenant = await tenantId(trx, c.tenant, `$.clients[${run.first + i}].tenant`);
    const existing = await findClientByUsername(trx, c.username);
    const check = run.passwords.get(c.username);
    const keepHash = !!existing && (await passwordVerifies(check, c.password, existing.passwordHash));
    const same = !!existing && sameClient(existing, tenant, c, keepHash);
    let id = existing?.id;
    if (!same) {
      const write = {
        tenantId: tenant,
        username: c.username,
        passwordHash: existing && keepHash ? existing.passwordHash : await freshHash(check, c.password),
        permissions: c.permissions,
        enabled: c.enabled ?? true,
        trustedDocumentsOnly: c.trustedDocumentsOnly ?? false,
      };
      if (existing) await updateClient(trx, existing.id, write, now);
      else id = await insertClient(trx, write, now);
    }
    const listChanged = await importTrustedDocuments(trx, id!, c.trustedDocuments);
    run.summary.clients[outcome(!existing, !same || listChanged)]++;
  }
}

/**
 * Subscribers by (tenant, msisdn); a missing balance is 0, and a postpaid one may be negative.
 * An existing subscriber's balance is kept, or reset by an adjustment (see putSubscriber).
 */
async function importSubscribers(run: ImportRun, rows: Rows<'subscribers'>): Promise<void> {
  const put = { trx: run.trx, nowMs: run.now, options: run.options, adjustments: run.adjustments };
  for (const [i, s] of rows.entries()) {
    const tenant = await tenantId(run.trx, s.tenant, `$.subscribers[${run.first + i}].tenant`);
    const write = {
      tenantId: tenant,
      msisdn: normalizeMsisdn(s.msisdn)!,
      status: s.status,
      paymentType: s.paymentType,
      balance: Money.parse(s.balance ?? '0', { allowNegative: true }),
      currency: s.currency,
    };
    run.summary.subscribers[await putSubscriber({ ...put, tally: run.summary.kept }, write)]++;
  }
}

/** Catalogue ratings by (tenant, five lookup keys, kind); an absent key is the wildcard. */
async function importRatings(run: ImportRun, rows: Rows<'ratings'>): Promise<void> {
  for (const [i, r] of rows.entries()) {
    const tenant = await tenantId(run.trx, r.tenant, `$.ratings[${run.first + i}].tenant`);
    const { created, changed } = await upsertRating(
      run.trx,
      {
        tenantId: tenant,
        providerId: r.providerId,
        applicationId: r.applicationId,
        serviceId: r.serviceId ?? WILDCARD,
        originId: r.originId ?? WILDCARD,
        bundleId: r.bundleId ?? WILDCARD,
        kind: r.kind,
        retailPrice: Money.parse(r.retailPrice),
        tax: Money.parse(r.tax),
      },
      run.now,
    );
    run.summary.ratings[outcome(created, changed)]++;
  }
}

/** Plan definitions by (tenant, name), through the plan service's own rules. */
async function importPlanDefinitions(run: ImportRun, rows: Rows<'planDefinitions'>): Promise<void> {
  for (const [i, d] of rows.entries()) {
    const tenant = await tenantId(run.trx, d.tenant, `$.planDefinitions[${run.first + i}].tenant`);
    const { created, changed } = await atPath(`$.planDefinitions[${run.first + i}]`, () =>
      run.plans.writePlanDefinition({ tenantId: tenant }, d, { trx: run.trx }),
    );
    run.summary.planDefinitions[outcome(created, changed)]++;
  }
}

/**
 * Subscriber plans by id. The subscriber and the plan definition must exist (in the file or the
 * database), and the id must not be another tenant's plan; each refusal names its field. An
 * existing plan's `remaining` is kept, or reset with a `plan.quota.reset` event (see remainingToWrite).
 */
async function importSubscriberPlans(run: ImportRun, rows: Rows<'subscriberPlans'>): Promise<void> {
  for (const [i, p] of rows.entries()) {
    const at = `$.subscriberPlans[${run.first + i}]`;
    const tenant = await tenantId(run.trx, p.tenant, `${at}.tenant`);
    const refusals = subscriberPlanRefusals(at, p);
    const { remaining, existing } = await remainingToWrite(run.trx, tenant, p, run.options, run.summary.kept);
    const { created, changed } = await atPath(at, () =>
      run.plans.writeSubscriberPlan(
        { tenantId: tenant },
        { ...p, remaining },
        { trx: run.trx, refuse: (field) => refusals[field] },
      ),
    );
    if (existing && existing.remaining !== remaining)
      await recordQuotaReset(run.trx, run.clock, existing, remaining, run.options.reason);
    run.summary.subscriberPlans[outcome(created, changed)]++;
  }
}

/** Location info types by (tenant, name). */
async function importLocationInfoTypes(run: ImportRun, rows: Rows<'locationInfoTypes'>): Promise<void> {
  const { trx } = run;
  for (const [i, t] of rows.entries()) {
    const tenant = await tenantId(trx, t.tenant, `$.locationInfoTypes[${run.first + i}].tenant`);
    const before = await findInfoType(trx, tenant, t.name);
    const { changed } = await atPath(`$.locationInfoTypes[${run.first + i}]`, () =>
      upsertInfoType(trx, tenant, t),
    );
    run.summary.locationInfoTypes[outcome(!before, changed)]++;
  }
}

/** Locations by (tenant, name) with their rates, infos and profiles; an absent description is null. */
async function importLocations(run: ImportRun, rows: Rows<'locations'>): Promise<void> {
  const { trx } = run;
  const nul = <T extends { description?: string | null }>(xs?: T[]) =>
    xs?.map((x) => ({ ...x, description: x.description ?? null }));
  for (const [i, l] of rows.entries()) {
    const tenant = await tenantId(trx, l.tenant, `$.locations[${run.first + i}].tenant`);
    const existed = !!(await findLocation(trx, tenant, l.name));
    const tree = {
      name: l.name,
      description: l.description ?? null,
      rates: nul(l.rates),
      infos: nul(l.infos),
      profiles: nul(l.profiles),
    };
    const { changed } = await atPath(`$.locations[${run.first + i}]`, () =>
      upsertLocationTree(trx, tenant, tree, false),
    );
    run.summary.locations[outcome(!existed, changed)]++;
  }
}

/** Adds a committed batch's counts to the import's. */
function addSummary(into: ImportSummary, from: ImportSummary): void {
  for (const k of Object.keys(from) as (keyof ImportSummary)[]) {
    if (k === 'kept') addKeptValues(into.kept, from.kept);
    else for (const o of ['created', 'updated', 'unchanged'] as const) into[k][o] += from[k][o];
  }
}

/** One section's upsert of a batch of its rows. */
type Section<T> = (run: ImportRun, rows: T[]) => Promise<void>;

/**
 * Writes `rows` through `section` in batches of at most `batchRows`, each in its own short
 * transaction (writeBatch, ./batch.ts: waits for the lock, reruns a conflict whole), each sized
 * from how long the one before held its locks (nextBatchRows); a batch's counts join `summary`
 * once it has committed.
 */
async function inBatches<T>(
  db: Knex,
  rows: T[],
  section: Section<T>,
  run: Omit<ImportRun, 'trx' | 'summary' | 'first'>,
  summary: ImportSummary,
  options: ImportOptions,
): Promise<void> {
  const maxRows = Math.max(1, options.batchRows ?? DEFAULT_BATCH_ROWS);
  let size = Math.min(maxRows, 20);
  for (let first = 0; first < rows.length;) {
    const { batch, elapsedMs } = await writeBatch(
      db,
      async (trx) => {
        const started = performance.now();
        const counts = emptySummary();
        await section({ ...run, trx, first, summary: counts }, rows.slice(first, first + size));
        return { batch: counts, elapsedMs: performance.now() - started };
      },
      options.lockWaitMs ?? DEFAULT_LOCK_WAIT_MS,
    );
    addSummary(summary, batch);
    first += size;
    size = nextBatchRows(size, elapsedMs, maxRows);
  }
}

/**
 * Imports a dataset document (CONTRACT §9) into a database that may be serving: validates the
 * whole document first (the JSON Schema, then, reading only, every reference and rule a write
 * could refuse: preflightDataset), then upserts every row (tenants, clients, subscribers,
 * ratings, plan definitions, subscriber plans, location info types, locations with their rates,
 * infos and profiles) by its natural key, sections in that order (each may name rows of the
 * ones before), in short transactions of `batchRows` rows that wait their turn for the locks
 * (./batch.ts), so a gateway's own writes keep flowing between them.
 * A subscriber's balance and a plan's remaining quota are taken from the file only when the row
 * is created; an existing one is kept (counted in `summary.kept`) unless `resetBalances` /
 * `resetQuotas` ask to set it through a ledger entry or event (./kept-values.ts).
 * Importing the same file twice changes nothing (a client's stored hash is kept while its
 * password still verifies). A bad file is rejected whole and nothing is written; should the
 * database fail between batches, the batches before stay written, and importing the file again
 * completes it.
 * @throws DatasetError with the JSON path of the first error; the database's error once a
 *   batch's waits are spent (see writeBatch).
 */
export async function importDataset(
  db: Knex,
  doc: unknown,
  clock: Clock,
  options: ImportOptions = {},
): Promise<ImportSummary> {
  const ds = validateDatasetDocument(doc);
  await preflightDataset(db, ds);
  const summary = emptySummary();
  const run = {
    now: clock.nowMs(),
    clock,
    plans: new PlanService(db, clock, new SubscriberService(db)),
    adjustments: new BalanceAdjustmentService({ knex: db, clock }),
    passwords: await checkPasswords(db, ds.clients ?? []),
    options: {
      resetBalances: options.resetBalances ?? false,
      resetQuotas: options.resetQuotas ?? false,
      reason: options.reason ?? DEFAULT_IMPORT_REASON,
    },
  };
  const batches = <T>(rows: T[] | undefined, section: Section<T>) =>
    inBatches(db, rows ?? [], section, run, summary, options);
  await batches(ds.tenants, importTenants);
  await batches(ds.clients, importClients);
  await writeBatch(db, (trx) => importRateLimits(trx, ds), options.lockWaitMs);
  await batches(ds.subscribers, importSubscribers);
  await batches(ds.ratings, importRatings);
  await batches(ds.planDefinitions, importPlanDefinitions);
  await batches(ds.subscriberPlans, importSubscriberPlans);
  await batches(ds.locationInfoTypes, importLocationInfoTypes);
  await batches(ds.locations, importLocations);
  return summary;
}
