import { Knex } from 'knex';
import { z } from 'zod';
import { isUniqueViolation, lockingTransaction } from '../../db/knex';
import { domainErrorOf } from '../../errors';
import { Clock } from '../../lib/clock';
import { PlanRenewalService, RenewalOutcome } from '../sharing/plan-renewal.service';
import { PlanCaller } from '../sharing/plan.service';
import { findTenantByName } from '../tenants/tenant.store';

/**
 * The routing-key pattern the renewal queue is bound with on the `AMQP_EXCHANGE` topic exchange
 * (docs/events.md "Plan-renewal events"): a billing system publishes each renewal with
 * routing key `<tenant>.billing.plan-renewed`. Deliberately not the gateway's own outbound
 * `<tenant>.plan.renewed` event, so the gateway never consumes what it publishes.
 */
export const RENEWAL_BINDING_KEY = '*.billing.plan-renewed';

/**
 * The actor recorded for changes the renewal consumer makes: internal
 * changes are made as the quota-sharing service, `sqs`, not as an API client. CDRs that
 * record an actor read it from the caller passed to the services.
 */
export const RENEWAL_ACTOR = 'sqs';

/**
 * The JSON payload of a plan-renewal event (docs/events.md "Plan-renewal events"):
 * - `eventId`: the producer's unique id of this event, 1-128 characters of `[A-Za-z0-9._:-]`;
 *   the renewal runs once per event id, however often the event is delivered;
 * - `tenant`: the tenant's name (tenants.name), as in the routing key;
 * - `subscriberPlanId`: the subscriber plan to renew (the `id` of `subscriberPlan`), a positive
 *   integer (a JSON number, or a string of digits);
 * - `renewedAt`: when the producer renewed the plan, epoch seconds (recorded, not acted on).
 * Unknown fields are ignored.
 */
export const renewalEventSchema = z.object({
  eventId: z.string().regex(/^[A-Za-z0-9._:-]{1,128}$/, 'must be 1-128 characters of A-Z a-z 0-9 . _ : -'),
  tenant: z.string().min(1).max(64),
  subscriberPlanId: z.union([
    z.number().int().positive().max(Number.MAX_SAFE_INTEGER),
    z
      .string()
      .regex(/^[1-9][0-9]{0,14}$/, 'must be a positive integer')
      .transform((v) => Number(v)),
  ]),
  renewedAt: z.number().int().nonnegative().max(253_402_300_799),
});

/** A decoded, valid plan-renewal event (see {@link renewalEventSchema}). */
export type RenewalEvent = z.output<typeof renewalEventSchema>;

/** Why an event can never be applied: the consumer dead-letters it with this reason. */
export class RenewalRejectedError extends Error {
  override name = 'RenewalRejectedError';
}

/**
 * Decodes a message body (UTF-8 JSON) into a renewal event.
 * @throws RenewalRejectedError naming what is wrong: not JSON, or each field that breaks the schema.
 */
export function decodeRenewalEvent(body: Buffer): RenewalEvent {
  let json: unknown;
  try {
    json = JSON.parse(body.toString('utf8'));
  } catch (err) {
    throw new RenewalRejectedError(`malformed JSON: ${(err as Error).message}`);
  }
  const parsed = renewalEventSchema.safeParse(json);
  if (!parsed.success)
    throw new RenewalRejectedError(
      `invalid payload: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(body)'}: ${i.message}`).join('; ')}`,
    );
  return parsed.data;
}

/** What applying an event did: renewed the plan now, or nothing (already applied before). */
export type RenewalEventOutcome = { status: 'renewed'; renewal: RenewalOutcome } | { status: 'duplicate' };

/**
 * Applies plan-renewal events exactly once per event id (CONTRACT §5 renewal,
 * §11): one transaction inserts the event id into `renewal_events` (its primary key) and runs the
 * renewal, so a committed renewal always has its event id recorded and a rolled-back one never
 * does. A second delivery of the same event (redelivery, another gateway) finds the id taken and
 * changes nothing; on MariaDB a concurrent second delivery waits on the first one's key lock.
 */
export class RenewalEventService {
  constructor(
    private readonly db: Knex,
    private readonly renewals: PlanRenewalService,
    private readonly clock: Clock,
  ) {}

  /**
   * Applies one event.
   * @throws RenewalRejectedError when the tenant or the plan is unknown (or the renewal refuses
   *   the event as invalid): the event can never succeed.
   * @throws the database's error (see `databaseFailureOf`) when it is down, slow or locked:
   *   nothing was changed, the event may be retried.
   */
  async apply(event: RenewalEvent): Promise<RenewalEventOutcome> {
    const tenant = await findTenantByName(this.db, event.tenant);
    if (!tenant) throw new RenewalRejectedError(`unknown tenant: ${event.tenant}`);
    // Internal change: the actor is the quota-sharing service (RENEWAL_ACTOR), not an API client.
    const caller: PlanCaller & { actor: typeof RENEWAL_ACTOR } = {
      tenantId: tenant.id,
      actor: RENEWAL_ACTOR,
    };
    return lockingTransaction(this.db, async (trx) => {
      try {
        await trx('renewal_events').insert({
          event_id: event.eventId,
          tenant_id: tenant.id,
          subscriber_plan_id: event.subscriberPlanId,
          renewed_at: event.renewedAt,
          donation_id: null,
          processed_at: this.clock.nowMs(),
        });
      } catch (err) {
        if (isUniqueViolation(err)) return { status: 'duplicate' } as const;
        throw err;
      }
      let renewal: RenewalOutcome;
      try {
        renewal = await this.renewals.renewPlan(caller, event.subscriberPlanId, { trx });
      } catch (err) {
        const refused = domainErrorOf(err);
        if (refused && refused.code !== 'SERVICE_UNAVAILABLE')
          throw new RenewalRejectedError(
            refused.code === 'NOT_FOUND'
              ? `unknown plan: ${event.subscriberPlanId} of tenant ${event.tenant}`
              : `renewal refused: ${refused.message}`,
          );
        throw err;
      }
      if (renewal.donation)
        await trx('renewal_events')
          .where({ event_id: event.eventId })
          .update({ donation_id: renewal.donation.id });
      return { status: 'renewed', renewal } as const;
    });
  }
}
