import { Clock } from '../../lib/clock';
import { DonationRow, GroupRow, MemberRow, RecurringRow, SubscriberPlanRow } from '../sharing/sharing.rows';
import { EventType, QuotaReceivedPayload, occurredAt } from './event-catalogue';
import { NewOutboxEvent } from './outbox.store';

/*
 * The outbox events of quota sharing (docs/events.md "Events"), built from the rows the sharing
 * services have just written, so that each service records them with one `recordEvents` call in
 * the change's own transaction. Payload shapes: docs/events.md "Events". Quota integers are in the plan's
 * unit (`unitMeteringType`: bytes, seconds or credit minor units); times epoch seconds.
 */

/**
 * A donation's events: one `quota.received` (subject the recipient) per recipient granted quota
 * (errorCode 0), in request order, then one `donation.completed` (subject the donor) with the
 * donation's outcome. A donation refused as a whole at renewal (no recipients) gives only
 * `donation.completed` with its errorCode.
 */
export function donationEvents(
  donation: DonationRow,
  plan: SubscriberPlanRow,
  clock: Clock,
): NewOutboxEvent[] {
  const at = occurredAt(clock.nowMs());
  const unit = plan.definition.unitMeteringType;
  const received: NewOutboxEvent[] = donation.recipients
    .filter((r) => r.errorCode === 0 && r.granted > 0)
    .map((r) => {
      const payload: QuotaReceivedPayload = {
        donationId: donation.id,
        recipient: r.recipientId,
        donor: donation.donorMsisdn,
        amount: r.granted,
        unit,
        planName: plan.definition.name,
        planDefinitionId: plan.definition.id,
        donorPlanId: donation.donorPlanId,
        occurredAt: at,
      };
      return {
        tenantId: donation.tenantId,
        type: EventType.quotaReceived,
        subject: r.recipientId,
        payload: { ...payload, recurringDonationId: donation.recurringDonationId },
      };
    });
  return [
    ...received,
    {
      tenantId: donation.tenantId,
      type: EventType.donationCompleted,
      subject: donation.donorMsisdn,
      payload: {
        donationId: donation.id,
        donor: donation.donorMsisdn,
        donorPlanId: donation.donorPlanId,
        planDefinitionId: plan.definition.id,
        planName: plan.definition.name,
        unit,
        quotaType: donation.quotaType,
        groupId: donation.groupId,
        donationType: donation.recurringDonationId === null ? 'one-time' : 'recurring',
        recurringDonationId: donation.recurringDonationId,
        period: donation.period,
        errorCode: donation.errorCode,
        recipients: donation.recipients.map((r) => ({
          recipient: r.recipientId,
          quota: r.quota,
          granted: r.granted,
          errorCode: r.errorCode,
        })),
        occurredAt: at,
      },
    },
  ];
}

/** `group.created`, `group.updated` (renamed) or `group.deleted` (its members and recurring donation went with it); subject the group id. */
export function groupEvent(
  type: typeof EventType.groupCreated | typeof EventType.groupUpdated | typeof EventType.groupDeleted,
  group: GroupRow,
  clock: Clock,
): NewOutboxEvent {
  return {
    tenantId: group.tenantId,
    type,
    subject: group.id,
    payload: {
      groupId: group.id,
      owner: group.ownerMsisdn,
      name: group.name,
      quotaType: group.quotaType,
      occurredAt: occurredAt(clock.nowMs()),
    },
  };
}

/**
 * One `group.member.added|updated|removed` per member, subject the group id; `quota` is the
 * member's quota after the change (share of 10^7 or an amount in the plan unit, by the group's
 * quota type), null when removed.
 */
export function memberEvents(
  group: GroupRow,
  changes: readonly {
    member: Pick<MemberRow, 'memberMsisdn' | 'quota'>;
    change: 'added' | 'updated' | 'removed';
  }[],
  clock: Clock,
): NewOutboxEvent[] {
  const at = occurredAt(clock.nowMs());
  const types = {
    added: EventType.groupMemberAdded,
    updated: EventType.groupMemberUpdated,
    removed: EventType.groupMemberRemoved,
  } as const;
  return changes.map(({ member, change }) => ({
    tenantId: group.tenantId,
    type: types[change],
    subject: group.id,
    payload: {
      groupId: group.id,
      owner: group.ownerMsisdn,
      member: member.memberMsisdn,
      quota: change === 'removed' ? null : member.quota,
      quotaType: group.quotaType,
      occurredAt: at,
    },
  }));
}

/** `recurring-donation.created|updated|deleted`, subject the donor msisdn. */
export function recurringEvent(
  type:
    | typeof EventType.recurringDonationCreated
    | typeof EventType.recurringDonationUpdated
    | typeof EventType.recurringDonationDeleted,
  rec: RecurringRow,
  clock: Clock,
): NewOutboxEvent {
  return {
    tenantId: rec.tenantId,
    type,
    subject: rec.donorMsisdn,
    payload: {
      recurringDonationId: rec.id,
      donor: rec.donorMsisdn,
      donorPlanId: rec.donorPlanId,
      planName: rec.planName ?? null,
      quotaType: rec.quotaType,
      groupId: rec.groupId,
      recipients: rec.recipients?.map((r) => ({ recipient: r.recipientId, quota: r.quota })) ?? null,
      occurredAt: occurredAt(clock.nowMs()),
    },
  };
}

/** `plan.renewed`, subject the plan owner's msisdn: the plan after its new period started. */
export function planRenewedEvent(plan: SubscriberPlanRow, clock: Clock): NewOutboxEvent {
  return {
    tenantId: plan.tenantId,
    type: EventType.planRenewed,
    subject: plan.msisdn,
    payload: {
      planId: plan.id,
      msisdn: plan.msisdn,
      planDefinitionId: plan.definition.id,
      planName: plan.definition.name,
      unit: plan.definition.unitMeteringType,
      remaining: plan.remaining,
      period: plan.period,
      renewedAt: Math.floor(plan.renewedAt / 1000),
      occurredAt: occurredAt(clock.nowMs()),
    },
  };
}
