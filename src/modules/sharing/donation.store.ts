import { Knex } from 'knex';
import { KeysetPage, byCreated, byId, keysetPage } from '../../db/keyset';
import { tenantRowsByIds } from '../../db/by-ids';
import { AllowanceRow, DonationRow, UnitMeteringType, donorFieldsOf } from './sharing.rows';

/** SQL of donations and allowances (CONTRACT §5); used only by the donation service. */

const num = (v: unknown) => Number(v);

/**
 * Of `msisdns`, those already counted among the distinct recipients of a plan in a period
 * (`plan_period_recipients`): one primary-key lookup per listed MSISDN in one statement,
 * whatever the plan's history.
 */
export async function recipientsAlreadyInPeriod(
  db: Knex,
  planId: number,
  period: number,
  msisdns: string[],
): Promise<Set<string>> {
  if (msisdns.length === 0) return new Set();
  const rows = await db('plan_period_recipients')
    .select('recipient_msisdn')
    .where({ donor_plan_id: planId, period })
    .whereIn('recipient_msisdn', msisdns);
  return new Set(rows.map((r) => String(r.recipient_msisdn)));
}

/** The plans a subscriber holds, for the `MAX_PLANS_PER_SUBSCRIBER` check (CONTRACT §5). */
export interface PlansHeld {
  /** Its own subscriber plans. */
  own: number;
  /** Donor plans it received an allowance from in those plans' current periods. */
  donorPlanIds: Set<number>;
}

/**
 * Plans each of `msisdns` holds (see {@link PlansHeld}), in two statements whatever their
 * number: own plans counted per MSISDN, and the donor plans of `plan_period_recipients` rows in
 * their plan's current period (a renewal deletes a plan's older rows, so this reads at most one
 * row per donor plan that gave to the recipient in its current period). Every MSISDN is in the map.
 */
export async function plansHeld(
  db: Knex,
  tenantId: number,
  msisdns: string[],
): Promise<Map<string, PlansHeld>> {
  const held = new Map<string, PlansHeld>(
    msisdns.map((m) => [m, { own: 0, donorPlanIds: new Set<number>() }]),
  );
  if (msisdns.length === 0) return held;
  const own: Array<{ msisdn: string; n: number | string }> = await db('subscriber_plans')
    .select('msisdn')
    .count({ n: '*' })
    .where({ tenant_id: tenantId })
    .whereIn('msisdn', msisdns)
    .groupBy('msisdn');
  for (const r of own) {
    const h = held.get(String(r.msisdn));
    if (h) h.own = num(r.n);
  }
  const received = await db('plan_period_recipients as r')
    .join('subscriber_plans as p', function () {
      this.on('p.id', '=', 'r.donor_plan_id').andOn('p.period', '=', 'r.period');
    })
    .select('r.recipient_msisdn', 'r.donor_plan_id')
    .where({ 'r.tenant_id': tenantId })
    .whereIn('r.recipient_msisdn', msisdns);
  for (const r of received) held.get(String(r.recipient_msisdn))?.donorPlanIds.add(num(r.donor_plan_id));
  return held;
}

/**
 * Adds recipients to the distinct recipients of a plan's period (`plan_period_recipients`), one
 * multi-row INSERT. The caller holds the plan row's lock and passes only MSISDNs not yet there
 * (see {@link recipientsAlreadyInPeriod}).
 */
export async function addPeriodRecipients(
  db: Knex,
  tenantId: number,
  planId: number,
  period: number,
  msisdns: string[],
): Promise<void> {
  if (msisdns.length === 0) return;
  await db('plan_period_recipients').insert(
    msisdns.map((m) => ({ donor_plan_id: planId, period, recipient_msisdn: m, tenant_id: tenantId })),
  );
}

/** Records a donation with its recipients' results and the allowances granted. */
export async function insertDonation(db: Knex, d: DonationRow, unit: UnitMeteringType): Promise<void> {
  await db('donations').insert({
    id: d.id,
    tenant_id: d.tenantId,
    donor_msisdn: d.donorMsisdn,
    donor_plan_id: d.donorPlanId,
    quota_type: d.quotaType,
    group_id: d.groupId,
    recurring_donation_id: d.recurringDonationId,
    period: d.period,
    error_code: d.errorCode,
    created_at: d.createdAt,
  });
  if (d.recipients.length) {
    await db('donation_recipients').insert(
      d.recipients.map((r, position) => ({
        donation_id: d.id,
        position,
        recipient_msisdn: r.recipientId,
        quota: r.quota,
        granted: r.granted,
        error_code: r.errorCode,
      })),
    );
  }
  const granted = d.recipients.filter((r) => r.errorCode === 0);
  if (granted.length) {
    await db('allowances').insert(
      granted.map((r) => ({
        tenant_id: d.tenantId,
        recipient_msisdn: r.recipientId,
        donor_plan_id: d.donorPlanId,
        donation_id: d.id,
        unit_metering_type: unit,
        amount: r.granted,
        period: d.period,
        created_at: d.createdAt,
      })),
    );
  }
}

function toDonation(r: Record<string, unknown>, recipients: DonationRow['recipients']): DonationRow {
  return {
    ...donorFieldsOf(r),
    recurringDonationId: (r.recurring_donation_id as string | null) ?? null,
    period: num(r.period),
    errorCode: num(r.error_code),
    createdAt: num(r.created_at),
    recipients,
  };
}

/** The recipients' results of `rows` (donations), in position order, by donation id. */
async function withRecipients(db: Knex, rows: Record<string, unknown>[]): Promise<DonationRow[]> {
  if (!rows.length) return [];
  const recips = await db('donation_recipients')
    .select('*')
    .whereIn(
      'donation_id',
      rows.map((r) => String(r.id)),
    )
    .orderBy('position');
  const byDonation = new Map<string, DonationRow['recipients']>();
  for (const x of recips) {
    const id = String(x.donation_id);
    let list = byDonation.get(id);
    if (!list) byDonation.set(id, (list = []));
    list.push({
      recipientId: String(x.recipient_msisdn),
      quota: num(x.quota),
      granted: num(x.granted),
      errorCode: num(x.error_code),
    });
  }
  return rows.map((r) => toDonation(r, byDonation.get(String(r.id)) ?? []));
}

/** A tenant's donation by id, with its recipients' results, or undefined. */
export async function findDonation(db: Knex, tenantId: number, id: string): Promise<DonationRow | undefined> {
  return (await findDonations(db, tenantId, [id]))[0];
}

/**
 * A tenant's donations with these ids, with their recipients' results, in two statements
 * whatever their number (the batch behind `nodes(ids:)` and `_entities`); ids that name none of
 * the tenant's donations are absent. No order.
 */
export async function findDonations(
  db: Knex,
  tenantId: number,
  ids: readonly string[],
): Promise<DonationRow[]> {
  if (!ids.length) return [];
  return withRecipients(
    db,
    await db('donations')
      .select('*')
      .where({ tenant_id: tenantId })
      .whereIn('id', [...ids]),
  );
}

/** Position of a donation in a donor's list (newest first, ties by id): its cursor key. */
export interface DonationKey {
  /** `created_at`, epoch milliseconds. */
  createdAt: number;
  id: string;
}

/**
 * One page of a donor's donations in list order (newest first, ties by id, both descending),
 * keyset-paged (src/db/keyset.ts: up to `limit + 1` rows in the paging direction), with their
 * recipients' results.
 * One range read of the (tenant, donor, created_at, id) index whatever the donor's history
 * (migration 20261126000100), then one read of the page's recipients.
 */
export async function donationsPage(
  db: Knex,
  tenantId: number,
  donorMsisdn: string,
  page: KeysetPage<DonationKey>,
): Promise<DonationRow[]> {
  const q = db('donations').select('*').where({ tenant_id: tenantId, donor_msisdn: donorMsisdn });
  return withRecipients(db, await keysetPage(q, page, byCreated(), 'desc'));
}

function toAllowance(r: Record<string, unknown>): AllowanceRow {
  return {
    id: num(r.id),
    recipientMsisdn: String(r.recipient_msisdn),
    donorPlanId: num(r.donor_plan_id),
    donationId: String(r.donation_id),
    unitMeteringType: r.unit_metering_type as UnitMeteringType,
    amount: num(r.amount),
    period: num(r.period),
    createdAt: num(r.created_at),
  };
}

/**
 * One page of the allowances a subscriber received, in list order (newest first: descending
 * row id), keyset-paged by row id like {@link donationsPage}.
 */
export async function allowancesPage(
  db: Knex,
  tenantId: number,
  msisdn: string,
  page: KeysetPage<number>,
): Promise<AllowanceRow[]> {
  const q = db('allowances').select('*').where({ tenant_id: tenantId, recipient_msisdn: msisdn });
  return (await keysetPage(q, page, byId(), 'desc')).map(toAllowance);
}

/** A tenant's allowances by row id, in one statement (see tenantRowsByIds). */
export async function findAllowances(
  db: Knex,
  tenantId: number,
  ids: readonly number[],
): Promise<AllowanceRow[]> {
  return (await tenantRowsByIds(db, 'allowances', tenantId, ids)).map(toAllowance);
}

/**
 * Takes `amount` from a plan's remaining quota and counts `newRecipients` more distinct
 * recipients in its period, in one UPDATE, only if `remaining` covers `amount` (atomic); false
 * otherwise (nothing changed).
 */
export async function debitPlan(
  db: Knex,
  planId: number,
  amount: number,
  newRecipients: number,
): Promise<boolean> {
  const n = await db('subscriber_plans')
    .where({ id: planId })
    .andWhere('remaining', '>=', amount)
    .update({
      remaining: db.raw('remaining - ?', [amount]),
      recipients_in_period: db.raw('recipients_in_period + ?', [newRecipients]),
    });
  return n === 1;
}
