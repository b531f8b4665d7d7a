import type DataLoader from 'dataloader';
import { Arg, Args, Authorized, Ctx, FieldResolver, Mutation, Query, Resolver, Root } from 'type-graphql';
import { Permission } from '../../auth/permissions';
import { DomainError } from '../../errors';
import { assertPermissions } from '../../graphql/auth-checker';
import { GatewayContext, callerOf, perRequest } from '../../graphql/context';
import { globalId, registerNode, registerRowNode, rowIdKey } from '../../graphql/node';
import { mutationPayload } from '../../graphql/payload';
import {
  ConnectionArgs,
  connectionFromRows,
  countedOnRead,
  integerCursor,
  pageRequest,
} from '../../graphql/relay';
import { DecimalScalar, MsisdnScalar } from '../../graphql/scalars';
import { Money } from '../../lib/money';
import { normalizeMsisdn } from '../../lib/msisdn';
import { Subscriber } from '../subscribers/subscriber.store';
import { PaymentTypeValue, SubscriberStatusValue } from '../subscribers/subscriber.types';
import { ChargingCaller, RatingOutcome } from './charging-outcome';
import { ChargeRow, RatingRow } from './charging.store';
import { RatingRequestInput, TransportRefusal } from './rating-request';
import { RatingRequestInputType } from './rating.inputs';
import { ratingOutcomeOf, returnCodeName } from './return-codes';
import {
  AdjustBalanceErrorCode,
  AdjustBalancePayload,
  ChargeConnectionType,
  ChargeKindValue,
  ChargeType,
  ProcessRatingPayload,
  ProcessRefundPayload,
  RatingConnectionType,
  RatingInput,
  RatingKindValue,
  RatingType,
  SubscriberType,
  UpsertRatingErrorCode,
  UpsertRatingPayload,
} from './charging.types';

/** Cursors of `Subscriber.charges` (ledger row ids; the `charge:<id>` cursors of release 0.1.0 still work). */
const chargeCursor = integerCursor('charge');
/** Cursors of `Query.ratings` (catalogue row ids). */
const ratingCursor = integerCursor('rating');

/** GraphQL view of a subscriber; `id` is `globalId('Subscriber', msisdn)`. */
const toSubscriber = (s: Subscriber): SubscriberType => ({
  id: globalId('Subscriber', s.msisdn),
  msisdn: s.msisdn,
  status: s.status as SubscriberStatusValue,
  paymentType: s.paymentType as PaymentTypeValue,
  balance: s.balance,
  currency: s.currency,
});

/** GraphQL view of a ledger entry; `id` is `globalId('Charge', row id)`. */
const toCharge = (c: ChargeRow): ChargeType => ({
  id: globalId('Charge', c.id),
  msisdn: c.msisdn,
  kind: c.kind as ChargeKindValue,
  operationId: c.operationId,
  returnCode: c.returnCode,
  outcome: ratingOutcomeOf(c.returnCode),
  amount: c.amount,
  balanceAfter: c.balanceAfter,
  currency: c.currency,
  reason: c.reason,
  created: new Date(c.createdAt).toISOString(),
});

/** GraphQL view of a catalogue entry; `id` is `globalId('Rating', row id)`. */
const toRating = (r: RatingRow): RatingType => ({
  id: globalId('Rating', r.id),
  providerId: r.providerId,
  applicationId: r.applicationId,
  serviceId: r.serviceId,
  originId: r.originId,
  bundleId: r.bundleId,
  kind: r.kind as RatingKindValue,
  retailPrice: r.retailPrice,
  tax: r.tax,
});

/**
 * The request's subscriber loader (one `IN (…)` query per tick for `nodes(ids:)` and `_entities`);
 * it stops querying once the GraphQL deadline has passed.
 */
function subscribers(ctx: GatewayContext): DataLoader<string, Subscriber | undefined> {
  const caller = callerOf(ctx);
  return perRequest(ctx, 'subscribers', () =>
    ctx.services.charging.subscribersLoader(caller, () => ctx.budget?.check()),
  );
}

// Node ids (docs/graphql.md "Ids"): resolved in the caller's tenant, so another tenant's id is null.
registerNode('Subscriber', {
  permissions: [Permission.CRS_RATING],
  async resolve(ctx, key) {
    if (normalizeMsisdn(key) !== key) return null;
    const s = await subscribers(ctx).load(key);
    return s ? toSubscriber(s) : null;
  },
});
registerRowNode('Charge', {
  permissions: [Permission.CRS_RATING],
  key: rowIdKey,
  read: (ctx, ids: readonly number[]) => ctx.services.charging.charges(callerOf(ctx), ids),
  keyOf: (c) => c.id,
  view: toCharge,
});
registerRowNode('Rating', {
  permissions: [Permission.CRS_RATING],
  key: rowIdKey,
  read: (ctx, ids: readonly number[]) => ctx.services.charging.ratingsByIds(callerOf(ctx), ids),
  keyOf: (r) => r.id,
  view: toRating,
});

/**
 * A rating or refund payload: the outcome's fields, and `subscriber` read only when selected
 * (the request's subscriber in the caller's tenant, when a balance was involved). A class, so
 * that the getter is on a shared prototype: as a getter in an object literal (a new closure per
 * request) it went into an accessor pair V8 allocates in the old generation, which kept the
 * request's whole object graph alive through young-generation collections until the next full
 * one; at 300 ratings/s that was about 4.5 KB promoted per rating (docs/benchmarks.md "Full
 * collections and what fed them").
 */
class RatingPayloadView implements ProcessRatingPayload {
  readonly outcome: ProcessRatingPayload['outcome'];
  readonly returnCode: number;
  readonly returnCodeName: string;
  readonly operationId: string | null;
  readonly chargedAmount: Money | null;
  readonly balance: Money | null;
  readonly currency: string | null;

  constructor(
    private readonly ctx: GatewayContext,
    private readonly caller: ChargingCaller,
    private readonly msisdn: string | null,
    o: RatingOutcome,
  ) {
    this.outcome = ratingOutcomeOf(o.returnCode);
    this.returnCode = o.returnCode;
    this.returnCodeName = returnCodeName(o.returnCode);
    this.operationId = o.operationId;
    this.chargedAmount = o.chargedAmount;
    this.balance = o.balance;
    this.currency = o.currency;
  }

  /** The subscriber after the operation (a promise GraphQL resolves), or null without a balance. */
  get subscriber(): SubscriberType | null {
    if (this.balance === null || this.msisdn === null) return null;
    return this.ctx.services.charging
      .subscriber(this.caller, this.msisdn)
      .then((s) => (s ? toSubscriber(s) : null)) as unknown as SubscriberType | null;
  }
}

/** The two rating operations, by their field name. */
export type RatingOperation = 'processRating' | 'processRefund';

/** The grant each rating operation needs. */
const RATING_GRANTS: Record<RatingOperation, Permission> = {
  processRating: Permission.CRS_RATING,
  processRefund: Permission.CRS_REFUND,
};

/**
 * The `processRating` / `processRefund` field: checks the caller's grant (CRS_RATING /
 * CRS_REFUND), runs the service and answers the payload. The resolvers and the REST rows'
 * `resolve` (which answers without GraphQL execution) call it, so both give the same outcome.
 * `input.msisdn` may carry its `+` (the REST edge passes it as given, so the CDR of a refused
 * request records it as the legacy body had it).
 * @throws ForbiddenError without the grant.
 */
export function ratingField(
  ctx: GatewayContext,
  field: RatingOperation,
  input: RatingRequestInput,
): Promise<ProcessRatingPayload> {
  assertPermissions(ctx, [RATING_GRANTS[field]]);
  const caller = callerOf(ctx);
  const run =
    field === 'processRating'
      ? ctx.services.charging.processRating(caller, input)
      : ctx.services.charging.processRefund(caller, input);
  return run.then((o) => new RatingPayloadView(ctx, caller, normalizeMsisdn(input.msisdn), o));
}

/**
 * A rating or refund request refused at the transport (a legacy REST body that cannot be a
 * typed request; the REST edge decided `refusal`, CONTRACT §4), recorded by the service as the
 * operation's outcome (charging CDR, metrics) and answered as its payload. Checks the grant as
 * {@link ratingField} does.
 * @throws ForbiddenError without the grant.
 */
export function transportRefusalField(
  ctx: GatewayContext,
  field: RatingOperation,
  refusal: TransportRefusal,
): Promise<ProcessRatingPayload> {
  assertPermissions(ctx, [RATING_GRANTS[field]]);
  const caller = callerOf(ctx);
  return ctx.services.charging
    .recordTransportRefusal(caller, field === 'processRating' ? 'rating' : 'refund', refusal)
    .then((o) => new RatingPayloadView(ctx, caller, null, o));
}

const INPUT_DOC =
  'The request (docs/contract.md §4); amounts are decimal strings. A missing required field or a malformed MSISDN is BAD_USER_INPUT; a value the rules refuse is an outcome with its return code, as over REST.';

/** The code of an upsertRating refusal by the input field it names. */
const upsertRatingCode = (field: string[] | null): UpsertRatingErrorCode =>
  field && ['retailPrice', 'tax'].includes(field.at(-1)!)
    ? UpsertRatingErrorCode.NEGATIVE_AMOUNT
    : UpsertRatingErrorCode.INVALID_KEY;

/** The code of an adjustBalance refusal. */
function adjustBalanceCode(err: DomainError): AdjustBalanceErrorCode {
  if (err.code === 'NOT_FOUND') return AdjustBalanceErrorCode.SUBSCRIBER_NOT_FOUND;
  const fields = (err.extensions.fields as { field: string }[] | undefined) ?? [];
  return fields[0]?.field === 'reason'
    ? AdjustBalanceErrorCode.INVALID_REASON
    : AdjustBalanceErrorCode.PREPAID_BALANCE_EXCEEDED;
}

/** Charging operations and reads (CONTRACT §4); the rules live in the services of charging.service.ts. */
@Resolver(() => SubscriberType)
export class ChargingResolver {
  // No `@Authorized`: ratingField checks the grant itself (for the REST rows' `resolve`, which
  // runs without GraphQL execution), so the check lives in one place.
  @Mutation(() => ProcessRatingPayload, {
    description:
      'Rates and charges a subscriber account exactly once per operationId; every business outcome is in the payload. Needs CRS_RATING.',
  })
  async processRating(
    @Arg('input', () => RatingRequestInputType, { description: INPUT_DOC }) input: RatingRequestInputType,
    @Ctx() ctx: GatewayContext,
  ): Promise<ProcessRatingPayload> {
    return ratingField(ctx, 'processRating', input);
  }

  @Mutation(() => ProcessRefundPayload, {
    description:
      'Credits back the successful charge with the same operationId and msisdn, once; every business outcome is in the payload. Needs CRS_REFUND.',
  })
  async processRefund(
    @Arg('input', () => RatingRequestInputType, { description: INPUT_DOC }) input: RatingRequestInputType,
    @Ctx() ctx: GatewayContext,
  ): Promise<ProcessRefundPayload> {
    return ratingField(ctx, 'processRefund', input);
  }

  @Authorized(Permission.CRS_RATING)
  @Query(() => SubscriberType, {
    nullable: true,
    description: 'A subscriber of your tenant by MSISDN, or null. Needs CRS_RATING.',
  })
  async subscriber(
    @Arg('msisdn', () => MsisdnScalar, { description: 'The MSISDN, with or without `+`.' }) msisdn: string,
    @Ctx() ctx: GatewayContext,
  ): Promise<SubscriberType | null> {
    const s = await ctx.services.charging.subscriber(callerOf(ctx), msisdn);
    return s ? toSubscriber(s) : null;
  }

  @FieldResolver(() => ChargeConnectionType, {
    description:
      "The subscriber's ledger, newest first (Relay connection: `first`/`after` or `last`/`before`).",
  })
  async charges(
    @Root() sub: SubscriberType,
    @Args(() => ConnectionArgs) paging: ConnectionArgs,
    @Ctx() ctx: GatewayContext,
  ): Promise<ChargeConnectionType> {
    const page = pageRequest(paging, chargeCursor);
    const caller = callerOf(ctx);
    const conn = connectionFromRows(
      await ctx.services.charging.chargePage(caller, sub.msisdn, page),
      page,
      chargeCursor,
      (row) => row.id,
    );
    const edges = conn.edges.map((e) => ({ cursor: e.cursor, node: toCharge(e.node) }));
    return countedOnRead(
      {
        edges,
        pageInfo: conn.pageInfo,
        nodes: edges.map((e) => e.node),
        endCursor: conn.pageInfo.endCursor,
        hasNextPage: conn.pageInfo.hasNextPage,
      },
      () => ctx.services.charging.chargeCount(caller, sub.msisdn),
    );
  }

  @Authorized(Permission.CRS_RATING)
  @Query(() => RatingConnectionType, {
    description:
      "Your tenant's rating catalogue in the order entries were created (Relay connection). Needs CRS_RATING.",
  })
  async ratings(
    @Args(() => ConnectionArgs) paging: ConnectionArgs,
    @Ctx() ctx: GatewayContext,
  ): Promise<RatingConnectionType> {
    const page = pageRequest(paging, ratingCursor);
    const caller = callerOf(ctx);
    const conn = connectionFromRows(
      await ctx.services.charging.ratings(caller, page),
      page,
      ratingCursor,
      (row) => row.id,
    );
    return countedOnRead(
      {
        edges: conn.edges.map((e) => ({ cursor: e.cursor, node: toRating(e.node) })),
        pageInfo: conn.pageInfo,
      },
      () => ctx.services.charging.ratingCount(caller),
    );
  }

  @Authorized(Permission.ADMIN)
  @Mutation(() => UpsertRatingPayload, {
    description: 'Creates or updates a catalogue entry by its keys and kind. Needs ADMIN.',
  })
  async upsertRating(
    @Arg('input', () => RatingInput, { description: 'The entry.' }) input: RatingInput,
    @Ctx() ctx: GatewayContext,
  ): Promise<UpsertRatingPayload> {
    const payload = await mutationPayload(
      ctx,
      () => ctx.services.charging.upsertRating(callerOf(ctx), input),
      (row) => ({ rating: toRating(row) }),
      'UpsertRatingUserError',
      (): UpsertRatingErrorCode => UpsertRatingErrorCode.INVALID_KEY,
    );
    for (const e of payload.userErrors) e.code = upsertRatingCode(e.field);
    return payload;
  }

  @Authorized(Permission.ADMIN)
  @Mutation(() => AdjustBalancePayload, {
    description:
      'Adds a signed amount to a balance, with a reason written to the ledger (kind ADJUSTMENT). Needs ADMIN.',
  })
  async adjustBalance(
    @Arg('msisdn', () => MsisdnScalar, { description: 'The subscriber, with or without `+`.' })
    msisdn: string,
    @Arg('amount', () => DecimalScalar, {
      description: "Signed amount in the subscriber's currency, e.g. `5.00` or `-1.25`.",
    })
    amount: Money,
    @Arg('reason', () => String, { description: 'Why, 1-255 characters (kept in the ledger).' })
    reason: string,
    @Ctx() ctx: GatewayContext,
  ): Promise<AdjustBalancePayload> {
    return mutationPayload(
      ctx,
      () => ctx.services.charging.adjustBalance(callerOf(ctx), msisdn, amount, reason),
      (r) => ({ subscriber: toSubscriber(r.subscriber), charge: toCharge(r.charge) }),
      'AdjustBalanceUserError',
      adjustBalanceCode,
      null,
    );
  }
}
