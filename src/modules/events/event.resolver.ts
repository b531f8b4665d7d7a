import { Arg, Authorized, Resolver, Root, Subscription } from 'type-graphql';
import { SubscribeResolverData } from 'type-graphql';
import { Permission } from '../../auth/permissions';
import { GatewayContext, callerOf } from '../../graphql/context';
import { registerRowNode } from '../../graphql/node';
import { MsisdnScalar } from '../../graphql/scalars';
import { OutboxEvent } from './outbox.store';
import { BalanceChangeType, QuotaReceivedType } from './event.types';
import {
  BALANCE_EVENT_KINDS,
  QUOTA_EVENT_TYPES,
  subscribeToSubscriber,
  toBalanceChange,
  toQuotaReceived,
} from './event-subscriptions';

type SubscribeData = SubscribeResolverData<unknown, Record<string, unknown>, GatewayContext>;

/**
 * The feed of one subscription: the caller's tenant's events of `types` about the subscriber
 * `msisdn`. Runs after the `@Authorized` check; the MSISDN scalar has already
 * refused a malformed number (BAD_USER_INPUT).
 * @throws NotFoundError when `msisdn` names no subscriber of the caller's tenant.
 */
function feed(data: SubscribeData, types: readonly string[]): Promise<AsyncIterable<OutboxEvent>> {
  const caller = callerOf(data.context);
  return subscribeToSubscriber(data.context.services, caller.tenantId, data.args.msisdn as string, types);
}

/**
 * GraphQL subscriptions over graphql-ws on `/graphql` (docs/graphql.md "Subscriptions"):
 * fed from the outbox, so a change made through any gateway instance reaches subscribers of
 * every instance. Tenant-scoped (only the caller's tenant's events, about one of its subscribers)
 * and checked with the permission of the corresponding query.
 */
@Resolver()
export class EventSubscriptionResolver {
  @Authorized(Permission.CRS_RATING)
  @Subscription(() => BalanceChangeType, {
    description:
      "Every committed change of a subscriber's balance (charge, refund, adjustment) from now on, in commit order. An MSISDN that names no subscriber of your tenant is NOT_FOUND. Needs CRS_RATING (as the `subscriber` query). WebSocket only (graphql-ws, path /graphql).",
    subscribe: (data) => feed(data as SubscribeData, Object.keys(BALANCE_EVENT_KINDS)),
  })
  balanceChanged(
    @Root() event: OutboxEvent,
    @Arg('msisdn', () => MsisdnScalar, { description: 'The subscriber, a subscriber of your tenant.' })
    _msisdn: string,
  ): BalanceChangeType {
    return toBalanceChange(event);
  }

  @Authorized(Permission.SQS_DONATION_PERMISSION)
  @Subscription(() => QuotaReceivedType, {
    description:
      'Every quota grant a subscriber receives as a recipient (one-time or recurring donations) from now on. An MSISDN that names no subscriber of your tenant is NOT_FOUND. Needs SQS_DONATION_PERMISSION (as the `subscriberPlans` query). WebSocket only (graphql-ws, path /graphql).',
    subscribe: (data) => feed(data as SubscribeData, QUOTA_EVENT_TYPES),
  })
  quotaReceived(
    @Root() event: OutboxEvent,
    @Arg('msisdn', () => MsisdnScalar, { description: 'The recipient, a subscriber of your tenant.' })
    _msisdn: string,
  ): QuotaReceivedType {
    return toQuotaReceived(event);
  }
}

/** Registers an event object type with `node(id:)`: key = the event's ULID, read among `types`. */
function registerEventNode(
  typename: string,
  permission: Permission,
  types: readonly string[],
  view: (event: OutboxEvent) => object,
): void {
  registerRowNode(typename, {
    permissions: [permission],
    key: (eventId) => eventId,
    read: (ctx, eventIds: readonly string[]) =>
      ctx.services.events.events(callerOf(ctx).tenantId, eventIds, types),
    keyOf: (event) => event.eventId,
    view,
  });
}

registerEventNode('BalanceChange', Permission.CRS_RATING, Object.keys(BALANCE_EVENT_KINDS), toBalanceChange);
registerEventNode('QuotaReceived', Permission.SQS_DONATION_PERMISSION, QUOTA_EVENT_TYPES, toQuotaReceived);
