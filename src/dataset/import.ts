import Ajv, { ErrorObject } from 'ajv';
import { Knex } from 'knex';
import { ApiClient, findClientByUsername, insertClient, updateClient } from '../auth/client.store';
import { hashPassword, verifyPassword } from '../auth/password';
import { Clock } from '../lib/clock';
import { Money } from '../lib/money';
import { normalizeMsisdn } from '../lib/msisdn';
import { upsertInfoType, upsertLocationTree } from '../modules/locations/location.service';
import { findInfoType, findLocation } from '../modules/locations/location.store';
import { WILDCARD, upsertRating } from '../modules/charging/charging.store';
import { PlanService, SubscriberPlanField } from '../modules/sharing/plan.service';
import { setTenantPortal } from '../modules/portal/portal.store';
import { findTenantByName, upsertTenant } from '../modules/tenants/tenant.store';
import { importRateLimits } from './rate-limits';
import { BadUserInputError } from '../errors';
import { SubscriberService } from '../modules/subscribers/subscriber.service';
import { DATASET_SCHEMA, Dataset } from './dataset.schema';

/** A rejected dataset: `path` is the JSON path of the first error (`$.clients[0].password`). */
export class DatasetError extends Error {
  override name = 'DatasetError';
  constructor(
    readonly path: string,
    readonly reason: string,
  ) {
    super(`${path}: ${reason}`);
  }
}

/** Rows created, updated and left unchanged per section. */
export type ImportSummary = Record<
  | 'tenants'
  | 'clients'
  | 'subscribers'
  | 'ratings'
  | 'planDefinitions'
  | 'subscriberPlans'
  | 'locationInfoTypes'
  | 'locations',
  { created: number; updated: number; unchanged: number }
>;

const ajv = new Ajv({ allErrors: false, strict: true });
const validateDataset = ajv.compile(DATASET_SCHEMA);

function jsonPath(instancePath: string, extra?: string): string {
  const parts = instancePath.split('/').slice(1);
  if (extra !== undefined) parts.push(extra);
  return parts.reduce(
    (acc, p) =>
      /^\d+$/.test(p)
        ? `${acc}[${p}]`
        : /^[A-Za-z_$][\w$]*$/.test(p)
          ? `${acc}.${p}`
          : `${acc}[${JSON.stringify(p)}]`,
    '$',
  );
}

function describe(e: ErrorObject): DatasetError {
  const params = e.params as Record<string, unknown>;
  if (e.keyword === 'required')
    return new DatasetError(jsonPath(e.instancePath, String(params.missingProperty)), 'is required');
  if (e.keyword === 'additionalProperties') {
    return new DatasetError(
      jsonPath(e.instancePath, String(params.additionalProperty)),
      'is not a known field',
    );
  }
  if (e.keyword === 'enum') {
    return new DatasetError(
      jsonPath(e.instancePath),
      `must be one of ${(params.allowedValues as unknown[]).join(', ')}`,
    );
  }
  return new DatasetError(jsonPath(e.instancePath), e.message ?? 'is invalid');
}

/**
 * Validates a dataset document (CONTRACT §9) against the JSON Schema and the rules a schema
 * cannot say (duplicate natural keys, prepaid balances not negative).
 * @throws DatasetError with the JSON path of the first error.
 */
export function validateDatasetDocument(doc: unknown): Dataset {
  if (!validateDataset(doc)) throw describe(validateDataset.errors![0]);
  const ds = doc as Dataset;
  const seen = new Set<string>();
  const unique = (key: string, path: string): void => {
    if (seen.has(key)) throw new DatasetError(path, 'duplicates an earlier row with the same natural key');
    seen.add(key);
  };
  ds.tenants?.forEach((t, i) => unique(`tenant\0${t.name}`, `$.tenants[${i}].name`));
  ds.clients?.forEach((c, i) => unique(`client\0${c.username}`, `$.clients[${i}].username`));
  ds.ratings?.forEach((r, i) =>
    unique(
      `rating\0${r.tenant}\0${[r.providerId, r.applicationId, r.serviceId ?? '*', r.originId ?? '*', r.bundleId ?? '*', r.kind].join('\0')}`,
      `$.ratings[${i}]`,
    ),
  );
  ds.planDefinitions?.forEach((d, i) =>
    unique(`planDefinition\0${d.tenant}\0${d.name}`, `$.planDefinitions[${i}].name`),
  );
  ds.subscriberPlans?.forEach((p, i) => unique(`subscriberPlan\0${p.id}`, `$.subscriberPlans[${i}].id`));
  ds.locationInfoTypes?.forEach((t, i) =>
    unique(`infoType\0${t.tenant}\0${t.name}`, `$.locationInfoTypes[${i}].name`),
  );
  ds.locations?.forEach((l, i) => {
    unique(`location\0${l.tenant}\0${l.name}`, `$.locations[${i}].name`);
    l.infos?.forEach((x, j) => unique(`info\0${l.tenant}\0${x.name}`, `$.locations[${i}].infos[${j}].name`));
    for (const kind of ['rates', 'profiles'] as const) {
      l[kind]?.forEach((x, j) =>
        unique(`${kind}\0${l.tenant}\0${l.name}\0${x.name}`, `$.locations[${i}].${kind}[${j}].name`),
      );
    }
  });
  ds.subscribers?.forEach((s, i) => {
    unique(`subscriber\0${s.tenant}\0${normalizeMsisdn(s.msisdn)}`, `$.subscribers[${i}].msisdn`);
    if (s.paymentType === 'prepaid' && s.balance?.startsWith('-')) {
      throw new DatasetError(`$.subscribers[${i}].balance`, 'a prepaid balance cannot be negative');
    }
  });
  return ds;
}

/** Runs a service call, turning its field errors into a DatasetError under `base`. */
async function atPath<T>(base: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof BadUserInputError) {
      const field = err.fields[0]?.field ?? '';
      throw new DatasetError(
        field.startsWith('[') || !field ? `${base}${field}` : `${base}.${field}`,
        err.fields[0]?.description ?? err.message,
      );
    }
    throw err;
  }
}

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
  };
}

async function tenantId(trx: Knex, name: string, path: string): Promise<number> {
  const t = await findTenantByName(trx, name);
  if (!t) throw new DatasetError(path, `tenant "${name}" is neither in the file nor in the database`);
  return t.id;
}

async function sameClient(
  existing: ApiClient,
  tenant: number,
  c: NonNullable<Dataset['clients']>[number],
): Promise<boolean> {
  return (
    existing.tenantId === tenant &&
    existing.enabled === (c.enabled ?? true) &&
    [...existing.permissions].sort().join(',') === [...c.permissions].sort().join(',') &&
    (await verifyPassword(c.password, existing.passwordHash))
  );
}

/** What every section's upsert works with: the transaction, its clock reading, the services, the tally. */
interface ImportRun {
  trx: Knex.Transaction;
  /** The import's one timestamp (ms since the epoch), stamped on every row it writes. */
  now: number;
  summary: ImportSummary;
  subscribers: SubscriberService;
  plans: PlanService;
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
 * API clients by username. A client whose tenant, permissions, enabled flag and password all match
 * is unchanged; an updated client keeps its stored hash while the file's password still verifies.
 */
async function importClients(run: ImportRun, rows: Rows<'clients'>): Promise<void> {
  const { trx, now } = run;
  for (const [i, c] of rows.entries()) {
    const tenant = await tenantId(trx, c.tenant, `$.clients[${i}].tenant`);
    const existing = await findClientByUsername(trx, c.username);
    if (existing && (await sameClient(existing, tenant, c))) {
      run.summary.clients.unchanged++;
      continue;
    }
    const keepHash = existing && (await verifyPassword(c.password, existing.passwordHash));
    const write = {
      tenantId: tenant,
      username: c.username,
      passwordHash: keepHash ? existing.passwordHash : await hashPassword(c.password),
      permissions: c.permissions,
      enabled: c.enabled ?? true,
    };
    if (existing) await updateClient(trx, existing.id, write, now);
    else await insertClient(trx, write, now);
    run.summary.clients[existing ? 'updated' : 'created']++;
  }
}

/** Subscribers by (tenant, msisdn); a missing balance is 0, and a postpaid one may be negative. */
async function importSubscribers(run: ImportRun, rows: Rows<'subscribers'>): Promise<void> {
  for (const [i, s] of rows.entries()) {
    const tenant = await tenantId(run.trx, s.tenant, `$.subscribers[${i}].tenant`);
    const write = {
      tenantId: tenant,
      msisdn: normalizeMsisdn(s.msisdn)!,
      status: s.status,
      paymentType: s.paymentType,
      balance: Money.parse(s.balance ?? '0', { allowNegative: true }),
      currency: s.currency,
    };
    run.summary.subscribers[await run.subscribers.put(write, run.now, { trx: run.trx })]++;
  }
}

/** Catalogue ratings by (tenant, five lookup keys, kind); an absent key is the wildcard. */
async function importRatings(run: ImportRun, rows: Rows<'ratings'>): Promise<void> {
  for (const [i, r] of rows.entries()) {
    const tenant = await tenantId(run.trx, r.tenant, `$.ratings[${i}].tenant`);
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
    const tenant = await tenantId(run.trx, d.tenant, `$.planDefinitions[${i}].tenant`);
    const { created, changed } = await atPath(`$.planDefinitions[${i}]`, () =>
      run.plans.writePlanDefinition({ tenantId: tenant }, d, { trx: run.trx }),
    );
    run.summary.planDefinitions[outcome(created, changed)]++;
  }
}

/**
 * Subscriber plans by id. The subscriber and the plan definition must exist (in the file or the
 * database), and the id must not be another tenant's plan; each refusal names its field.
 */
async function importSubscriberPlans(run: ImportRun, rows: Rows<'subscriberPlans'>): Promise<void> {
  for (const [i, p] of rows.entries()) {
    const at = `$.subscriberPlans[${i}]`;
    const tenant = await tenantId(run.trx, p.tenant, `${at}.tenant`);
    const refusals: Record<SubscriberPlanField, DatasetError> = {
      msisdn: new DatasetError(
        `${at}.msisdn`,
        `subscriber ${normalizeMsisdn(p.msisdn)} is neither in the file nor in the database`,
      ),
      planDefinition: new DatasetError(
        `${at}.planDefinition`,
        `plan definition "${p.planDefinition}" is neither in the file nor in the database`,
      ),
      id: new DatasetError(`${at}.id`, "is the id of another tenant's plan"),
    };
    const { created, changed } = await atPath(at, () =>
      run.plans.writeSubscriberPlan({ tenantId: tenant }, p, {
        trx: run.trx,
        refuse: (field) => refusals[field],
      }),
    );
    run.summary.subscriberPlans[outcome(created, changed)]++;
  }
}

/** Location info types by (tenant, name). */
async function importLocationInfoTypes(run: ImportRun, rows: Rows<'locationInfoTypes'>): Promise<void> {
  const { trx } = run;
  for (const [i, t] of rows.entries()) {
    const tenant = await tenantId(trx, t.tenant, `$.locationInfoTypes[${i}].tenant`);
    const before = await findInfoType(trx, tenant, t.name);
    const { changed } = await atPath(`$.locationInfoTypes[${i}]`, () => upsertInfoType(trx, tenant, t));
    run.summary.locationInfoTypes[outcome(!before, changed)]++;
  }
}

/** Locations by (tenant, name) with their rates, infos and profiles; an absent description is null. */
async function importLocations(run: ImportRun, rows: Rows<'locations'>): Promise<void> {
  const { trx } = run;
  const nul = <T extends { description?: string | null }>(xs?: T[]) =>
    xs?.map((x) => ({ ...x, description: x.description ?? null }));
  for (const [i, l] of rows.entries()) {
    const tenant = await tenantId(trx, l.tenant, `$.locations[${i}].tenant`);
    const existed = !!(await findLocation(trx, tenant, l.name));
    const tree = {
      name: l.name,
      description: l.description ?? null,
      rates: nul(l.rates),
      infos: nul(l.infos),
      profiles: nul(l.profiles),
    };
    const { changed } = await atPath(`$.locations[${i}]`, () => upsertLocationTree(trx, tenant, tree, false));
    run.summary.locations[outcome(!existed, changed)]++;
  }
}

/**
 * Imports a dataset document (CONTRACT §9): validates the whole document first, then upserts
 * every row (tenants, clients, subscribers, ratings, plan definitions, subscriber plans, location
 * info types, locations with their rates, infos and profiles) by its natural key in one
 * transaction, sections in that order (each may name rows of the ones before). Importing the same
 * file twice changes nothing (a client's stored hash is kept while its password still verifies).
 * A bad file is rejected whole and nothing is written.
 * @throws DatasetError with the JSON path of the first error.
 */
export async function importDataset(db: Knex, doc: unknown, clock: Clock): Promise<ImportSummary> {
  const ds = validateDatasetDocument(doc);
  const summary = emptySummary();
  const subscribers = new SubscriberService(db);
  const plans = new PlanService(db, clock, subscribers);
  await db.transaction(async (trx) => {
    const run: ImportRun = { trx, now: clock.nowMs(), summary, subscribers, plans };
    await importTenants(run, ds.tenants ?? []);
    await importClients(run, ds.clients ?? []);
    await importRateLimits(trx, ds);
    await importSubscribers(run, ds.subscribers ?? []);
    await importRatings(run, ds.ratings ?? []);
    await importPlanDefinitions(run, ds.planDefinitions ?? []);
    await importSubscriberPlans(run, ds.subscriberPlans ?? []);
    await importLocationInfoTypes(run, ds.locationInfoTypes ?? []);
    await importLocations(run, ds.locations ?? []);
  });
  return summary;
}
