import 'reflect-metadata';
import { GraphQLSchema, lexicographicSortSchema, printSchema } from 'graphql';
import { PubSub, buildSchema } from 'type-graphql';
import { CdrResolver } from '../modules/cdrs/cdr.resolver';
import { ChargingResolver } from '../modules/charging/charging.resolver';
import { EventSubscriptionResolver } from '../modules/events/event.resolver';
import { LocationInfoResolver, LocationResolver } from '../modules/locations/location.resolver';
import { GroupResolver, GroupWriteResolver } from '../modules/sharing/group.resolver';
import { DonationResolver } from '../modules/sharing/donation.resolver';
import { PlanResolver, SubscriberPlanResolver } from '../modules/sharing/plan.resolver';
import { RecurringDonationResolver } from '../modules/sharing/recurring-donation.resolver';
import { PortalResolver } from '../modules/portal/portal.resolver';
import { TokenResolver } from '../modules/tokens/token.resolver';
import { authChecker } from './auth-checker';
import { subgraphSchema } from './federation';
import { NodeResolver } from './node';

/** Every resolver class of the gateway. */
export const RESOLVERS = [
  NodeResolver,
  TokenResolver,
  LocationResolver,
  LocationInfoResolver,
  ChargingResolver,
  DonationResolver,
  GroupResolver,
  RecurringDonationResolver,
  PlanResolver,
  SubscriberPlanResolver,
  GroupWriteResolver,
  CdrResolver,
  EventSubscriptionResolver,
  PortalResolver,
] as const;

/**
 * type-graphql refuses to build subscription fields without a `pubSub`, even when every
 * `@Subscription` has its own `subscribe` function, as the gateway's do (they read the outbox
 * feed, see src/modules/events/event-feed.ts). This one fails loudly if anything ever uses topics.
 */
const NO_TOPICS: PubSub = {
  publish: () => {
    throw new Error('subscriptions are fed by the outbox, not by pub/sub topics');
  },
  subscribe: () => {
    throw new Error('subscriptions are fed by the outbox, not by pub/sub topics');
  },
};

let built: Promise<GraphQLSchema> | undefined;

/**
 * The gateway schema, built once per process: type-graphql builds it from the resolver classes,
 * then it becomes an Apollo Federation 2 subgraph (src/graphql/federation.ts: the same fields
 * plus `_service` and `_entities`). `skipCheck` (start-up time, issue
 * 16): type-graphql would run the whole introspection query over the new schema only to find an
 * invalid one; Apollo Server asserts the schema valid (graphql-js) when it is created, so an
 * invalid schema still stops start-up and fails every e2e test.
 */
export function gatewaySchema(): Promise<GraphQLSchema> {
  built ??= buildSchema({
    resolvers: [...RESOLVERS],
    authChecker,
    validate: false,
    pubSub: NO_TOPICS,
    skipCheck: true,
  }).then(subgraphSchema);
  return built;
}

/** The SDL committed as `schema/schema.graphql` (sorted, so diffs are stable). */
export async function printGatewaySchema(): Promise<string> {
  return `${printSchema(lexicographicSortSchema(await gatewaySchema()))}\n`;
}
