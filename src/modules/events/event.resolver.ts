import { Arg, Authorized, Resolver, Root, Subscription } from 'type-graphql';
import { SubscribeResolverData } from 'type-graphql';
import { Permission } from '../../auth/permissions';
import { GatewayContext, callerOf } from '../../graphql/context';
import { requireMsisdn } from '../../lib/msisdn';
import { OutboxEvent } from './outbox.store';
import { BalanceChangeType, QuotaReceivedType } from './event.types';

/** The outbox event types `balanceChanged` delivers, with the `kind` each is shown as. */
const BALANCE_KINDS: Record<string, string> = {
  'charge.completed': 'charge',
  'refund.completed': 'refund',
  'balance.adjusted': 'adjustment',
};

const MSISDN_DOC = 'MSISDN, with or without `+`.';

/**
 * The feed of one subscription: the caller's tenant's events of `types` about `msisdn`
 * (issue 12 part 6). Runs after the `@Authorized` check.
 * @throws BadUserInputError when `msisdn` is not an MSISDN.
 */
async function feed(
  data: SubscribeResolverData<unknown, Record<string, unknown>, GatewayContext>,
  types: readonly string[],
): Promise<AsyncIterable<OutboxEvent>> {
  const caller = callerOf(data.context);
  const subject = requireMsisdn(String(data.args.msisdn ?? ''), 'msisdn');
  return data.context.services.events.subscribe({ tenantId: caller.tenantId, types, subject });
}

const text = (v: unknown): string => (v === null || v === undefined ? '' : String(v));
const int = (v: unknown): number => Number(v);

/**
 * GraphQL subscriptions over graphql-ws on `/graphql` (issue 12 part 6; README "Subscriptions"):
 * fed from the outbox, so a change made through any gateway instance reaches subscribers of
 * every instance. Tenant-scoped (only the caller's tenant's events) and checked with the
 * permission of the corresponding query.
 */
@Resolver()
export class EventSubscriptionResolver {
  @Authorized(Permission.CRS_RATING)
  @Subscription(() => BalanceChangeType, {
    description:
      "Every committed change of a subscriber's balance (charge, refund, adjustment) from now on, in commit order. Needs CRS_RATING (as the `subscriber` query). WebSocket only (graphql-ws, path /graphql).",
    subscribe: (data) =>
      feed(
        data as SubscribeResolverData<unknown, Record<string, unknown>, GatewayContext>,
        Object.keys(BALANCE_KINDS),
      ),
  })
  balanceChanged(
    @Root() event: OutboxEvent,
    @Arg('msisdn', () => String, { description: MSISDN_DOC }) _msisdn: string,
  ): BalanceChangeType {
    const p = event.payload;
    return {
      eventId: event.eventId,
      kind: BALANCE_KINDS[event.type],
      operationId: p.operationId === undefined || p.operationId === null ? null : text(p.operationId),
      msisdn: text(p.msisdn),
      amount: text(p.amount),
      balance: text(p.balance),
      currency: text(p.currency),
      occurredAt: int(p.occurredAt),
    };
  }

  @Authorized(Permission.SQS_DONATION_PERMISSION)
  @Subscription(() => QuotaReceivedType, {
    description:
      'Every quota grant a subscriber receives as a recipient (one-time or recurring donations) from now on. Needs SQS_DONATION_PERMISSION (as the `subscriberPlans` query). WebSocket only (graphql-ws, path /graphql).',
    subscribe: (data) =>
      feed(data as SubscribeResolverData<unknown, Record<string, unknown>, GatewayContext>, [
        'quota.received',
      ]),
  })
  quotaReceived(
    @Root() event: OutboxEvent,
    @Arg('msisdn', () => String, { description: `The recipient's ${MSISDN_DOC}` }) _msisdn: string,
  ): QuotaReceivedType {
    const p = event.payload;
    return {
      eventId: event.eventId,
      donationId: text(p.donationId),
      recipient: text(p.recipient),
      donor: text(p.donor),
      amount: int(p.amount),
      unit: text(p.unit),
      planName: text(p.planName),
      planDefinitionId: text(p.planDefinitionId),
      donorPlanId: text(p.donorPlanId),
      occurredAt: int(p.occurredAt),
    };
  }
}
