import { Knex } from 'knex';
import { normalizeMsisdn } from '../lib/msisdn';
import { validateLocationTree } from '../modules/locations/location.service';
import { findInfoType, findInfoTypeById } from '../modules/locations/location.store';
import { SubscriberPlanField } from '../modules/sharing/plan.service';
import { findPlanDefinition, subscriberPlanTenant } from '../modules/sharing/plan.store';
import { validatePlanDefinition, validateSubscriberPlan } from '../modules/sharing/plan.validation';
import { findSubscriber } from '../modules/subscribers/subscriber.store';
import { findTenantByName } from '../modules/tenants/tenant.store';
import { DatasetError, atPath, unknownTenant } from './dataset-error';
import { Dataset } from './dataset.schema';

/** The refusals of subscriber plan row `at` (`$.subscriberPlans[i]`), one per field. */
export function subscriberPlanRefusals(
  at: string,
  p: { msisdn: string; planDefinition: string },
): Record<SubscriberPlanField, DatasetError> {
  return {
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
}

/** What the rows of a file name: a tenant's id in the database (null: only in the file), and keys in the file. */
class References {
  private readonly tenants = new Map<string, number | null>();
  private readonly inFile = new Set<string>();

  constructor(
    private readonly db: Knex,
    ds: Dataset,
  ) {
    ds.tenants?.forEach((t) => this.inFile.add(`tenant\0${t.name}`));
    ds.subscribers?.forEach((s) => this.inFile.add(`subscriber\0${s.tenant}\0${normalizeMsisdn(s.msisdn)}`));
    ds.planDefinitions?.forEach((d) => this.inFile.add(`planDefinition\0${d.tenant}\0${d.name}`));
    ds.locationInfoTypes?.forEach((t) => this.inFile.add(`infoType\0${t.tenant}\0${t.name}`));
  }

  /** Whether the file has a row with this key (see the constructor's keys). */
  has(key: string): boolean {
    return this.inFile.has(key);
  }

  /**
   * The id of tenant `name` in the database, or null when only the file has it.
   * @throws DatasetError at `path` when neither has it.
   */
  async tenant(name: string, path: string): Promise<number | null> {
    if (!this.tenants.has(name)) {
      const row = await findTenantByName(this.db, name);
      if (!row && !this.has(`tenant\0${name}`)) throw unknownTenant(path, name);
      this.tenants.set(name, row?.id ?? null);
    }
    return this.tenants.get(name)!;
  }
}

type Rows<K extends keyof Dataset> = NonNullable<Dataset[K]>;

/** Subscriber plans: the row's own rules, then its subscriber, plan definition and id, as the plan service checks them. */
async function checkSubscriberPlans(
  db: Knex,
  refs: References,
  rows: Rows<'subscriberPlans'>,
): Promise<void> {
  for (const [i, row] of rows.entries()) {
    const at = `$.subscriberPlans[${i}]`;
    const tenant = await refs.tenant(row.tenant, `${at}.tenant`);
    const p = await atPath(at, () => validateSubscriberPlan(row));
    const refuse = subscriberPlanRefusals(at, row);
    const subscriber =
      refs.has(`subscriber\0${row.tenant}\0${p.msisdn}`) ||
      (tenant !== null && !!(await findSubscriber(db, tenant, p.msisdn)));
    if (!subscriber) throw refuse.msisdn;
    const definition =
      refs.has(`planDefinition\0${row.tenant}\0${p.planDefinition}`) ||
      (tenant !== null && !!(await findPlanDefinition(db, tenant, p.planDefinition)));
    if (!definition) throw refuse.planDefinition;
    const owner = await subscriberPlanTenant(db, p.id);
    if (owner !== undefined && owner !== tenant) throw refuse.id;
  }
}

/** Location info types: an existing type keeps its id, a new one may not take another type's. */
async function checkInfoTypes(db: Knex, refs: References, rows: Rows<'locationInfoTypes'>): Promise<void> {
  for (const [i, t] of rows.entries()) {
    const at = `$.locationInfoTypes[${i}]`;
    const tenant = await refs.tenant(t.tenant, `${at}.tenant`);
    const existing = tenant === null ? undefined : await findInfoType(db, tenant, t.name);
    if (t.id === undefined) continue;
    if (existing && existing.id !== t.id) throw new DatasetError(`${at}.id`, `must be ${existing.id}`);
    if (!existing && (await findInfoTypeById(db, t.id)))
      throw new DatasetError(`${at}.id`, 'is used by another location info type');
  }
}

/** Locations: the tree's own rules, and every info's type in the file or the database. */
async function checkLocations(db: Knex, refs: References, rows: Rows<'locations'>): Promise<void> {
  for (const [i, l] of rows.entries()) {
    const at = `$.locations[${i}]`;
    const tenant = await refs.tenant(l.tenant, `${at}.tenant`);
    const nul = <T extends { description?: string | null }>(xs?: T[]) =>
      xs?.map((x) => ({ ...x, description: x.description ?? null }));
    const tree = {
      name: l.name,
      description: l.description ?? null,
      rates: nul(l.rates),
      infos: nul(l.infos),
    };
    await atPath(at, () => validateLocationTree({ ...tree, profiles: nul(l.profiles) }));
    for (const [j, info] of (l.infos ?? []).entries()) {
      const known =
        refs.has(`infoType\0${l.tenant}\0${info.type}`) ||
        (tenant !== null && !!(await findInfoType(db, tenant, info.type)));
      if (!known)
        throw new DatasetError(`${at}.infos[${j}].type`, 'names no location info type of this tenant');
    }
  }
}

/**
 * Checks, reading only, every rule the import's writes could still refuse a row for, in the
 * order the import writes (so the first error is the one a single transaction would meet):
 * each row's tenant in the file or the database; a plan definition's and a location tree's own
 * rules; a subscriber plan's subscriber, plan definition and id; a location info type's id; a
 * location info's type. The import writes in several short transactions, so this is what keeps
 * a bad file from writing anything (docs/cli.md).
 * @throws DatasetError with the JSON path of the first refused row.
 */
export async function preflightDataset(db: Knex, ds: Dataset): Promise<void> {
  const refs = new References(db, ds);
  const tenantsOf = async (section: string, rows?: { tenant: string }[]) => {
    for (const [i, r] of (rows ?? []).entries()) await refs.tenant(r.tenant, `$.${section}[${i}].tenant`);
  };
  await tenantsOf('clients', ds.clients);
  await tenantsOf('subscribers', ds.subscribers);
  await tenantsOf('ratings', ds.ratings);
  for (const [i, d] of (ds.planDefinitions ?? []).entries()) {
    await refs.tenant(d.tenant, `$.planDefinitions[${i}].tenant`);
    await atPath(`$.planDefinitions[${i}]`, () => validatePlanDefinition(d));
  }
  await checkSubscriberPlans(db, refs, ds.subscriberPlans ?? []);
  await checkInfoTypes(db, refs, ds.locationInfoTypes ?? []);
  await checkLocations(db, refs, ds.locations ?? []);
}
