import { Knex } from 'knex';
import { dialectOf, forUpdate as lock } from '../../db/knex';
import { AllowanceRow, DonationRow, UnitMeteringType, donorFieldsOf } from './sharing.rows';

/** SQL of donations and allowances (CONTRACT §5); used only by the donation service. */

const num = (v: unknown) => Number(v);

/** Locks subscriber rows (MySQL) in a fixed order so concurrent donations cannot deadlock. */
export async function lockSubscribers(db: Knex, tenantId: number, msisdns: string[]): Promise<void> {
  if (dialectOf(db) !== 'mysql' || msisdns.length === 0) return;
  await lock(
    db,
    db('subscribers')
      .select('id')
      .where({ tenant_id: tenantId })
      .whereIn('msisdn', [...new Set(msisdns)].sort())
      .orderBy('msisdn'),
  );
}

/**
 * Plans a subscriber holds: its own plans plus allowances received from distinct donor plans in
 * those plans' current periods.
 */
export async function plansHeld(
  db: Knex,
  tenantId: number,
  msisdn: string,
): Promise<{ own: number; donorPlanIds: Set<number> }> {
  const own = await db('subscriber_plans').count({ n: '*' }).where({ tenant_id: tenantId, msisdn }).first();
  const received = await db('allowances as a')
    .join('subscriber_plans as p', function () {
      this.on('p.id', '=', 'a.donor_plan_id').andOn('p.period', '=', 'a.period');
    })
    .distinct('a.donor_plan_id')
    .where({ 'a.tenant_id': tenantId, 'a.recipient_msisdn': msisdn });
  return { own: num(own?.n ?? 0), donorPlanIds: new Set(received.map((r) => num(r.donor_plan_id))) };
}

/** Distinct recipients that received from a plan in a period. */
export async function recipientsInPeriod(db: Knex, planId: number, period: number): Promise<Set<string>> {
  const rows = await db('allowances').distinct('recipient_msisdn').where({ donor_plan_id: planId, period });
  return new Set(rows.map((r) => String(r.recipient_msisdn)));
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

/** A tenant's donations by id or by donor (newest first), with their recipients' results. */
export async function findDonations(
  db: Knex,
  tenantId: number,
  by: { id?: string; donorMsisdn?: string },
  limit = 100,
): Promise<DonationRow[]> {
  const q = db('donations')
    .select('*')
    .where({ tenant_id: tenantId })
    .orderBy('created_at', 'desc')
    .orderBy('id')
    .limit(limit);
  if (by.id !== undefined) q.andWhere({ id: by.id });
  if (by.donorMsisdn !== undefined) q.andWhere({ donor_msisdn: by.donorMsisdn });
  const rows = await q;
  if (!rows.length) return [];
  const recips = await db('donation_recipients')
    .select('*')
    .whereIn(
      'donation_id',
      rows.map((r) => r.id),
    )
    .orderBy('position');
  return rows.map((r) =>
    toDonation(
      r,
      recips
        .filter((x) => x.donation_id === r.id)
        .map((x) => ({
          recipientId: String(x.recipient_msisdn),
          quota: num(x.quota),
          granted: num(x.granted),
          errorCode: num(x.error_code),
        })),
    ),
  );
}

/** Allowances a subscriber received, newest first. */
export async function listAllowances(db: Knex, tenantId: number, msisdn: string): Promise<AllowanceRow[]> {
  const rows = await db('allowances')
    .select('*')
    .where({ tenant_id: tenantId, recipient_msisdn: msisdn })
    .orderBy('id', 'desc')
    .limit(500);
  return rows.map((r) => ({
    id: num(r.id),
    recipientMsisdn: String(r.recipient_msisdn),
    donorPlanId: num(r.donor_plan_id),
    donationId: String(r.donation_id),
    unitMeteringType: r.unit_metering_type as UnitMeteringType,
    amount: num(r.amount),
    period: num(r.period),
    createdAt: num(r.created_at),
  }));
}

/** Takes `amount` from a plan's remaining quota only if it covers it (atomic); false otherwise. */
export async function debitPlan(db: Knex, planId: number, amount: number): Promise<boolean> {
  const n = await db('subscriber_plans')
    .where({ id: planId })
    .andWhere('remaining', '>=', amount)
    .update({ remaining: db.raw('remaining - ?', [amount]) });
  return n === 1;
}
