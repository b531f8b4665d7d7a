import { Arg, Authorized, Ctx, FieldResolver, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import { Permission } from '../../auth/permissions';
import { BadUserInputError } from '../../errors';
import { GatewayContext, callerOf } from '../../graphql/context';
import { Subscriber } from '../subscribers/subscriber.store';
import { RatingOutcome } from './charging.service';
import { ChargeRow, RatingRow } from './charging.store';
import { RatingRequestInputType } from './rating.inputs';
import { returnCodeName } from './return-codes';
import {
  ChargeConnectionType,
  ChargeType,
  RatingInput,
  RatingResultType,
  RatingType,
  SubscriberType,
} from './charging.types';

const toResult = (o: RatingOutcome): RatingResultType => ({
  returnCode: o.returnCode,
  returnCodeName: returnCodeName(o.returnCode),
  operationId: o.operationId,
  chargedAmount: o.chargedAmount?.toString() ?? null,
  balance: o.balance?.toString() ?? null,
  currency: o.currency,
});

const toSubscriber = (s: Subscriber) => ({
  msisdn: s.msisdn,
  status: s.status,
  paymentType: s.paymentType,
  balance: s.balance.toString(),
  currency: s.currency,
});

const toCharge = (c: ChargeRow): ChargeType => ({
  kind: c.kind,
  operationId: c.operationId,
  returnCode: c.returnCode,
  amount: c.amount.toString(),
  balanceAfter: c.balanceAfter?.toString() ?? null,
  currency: c.currency,
  reason: c.reason,
  created: new Date(c.createdAt).toISOString(),
});

const toRating = (r: RatingRow): RatingType => ({
  ...r,
  retailPrice: r.retailPrice.toString(),
  tax: r.tax.toString(),
});

const INPUT_DOC =
  'The request (spec 2.4); amounts are decimal strings. Missing or invalid fields give their return code, as over REST.';

/** Charging operations and reads (CONTRACT §4); the rules live in ChargingService. */
@Resolver(() => SubscriberType)
export class ChargingResolver {
  @Authorized(Permission.CRS_RATING)
  @Mutation(() => RatingResultType, {
    description: 'Rates and charges a subscriber account exactly once per operationId. Needs CRS_RATING.',
  })
  async processRating(
    @Arg('input', () => RatingRequestInputType, { description: INPUT_DOC }) input: RatingRequestInputType,
    @Ctx() ctx: GatewayContext,
  ) {
    return toResult(await ctx.services.charging.processRating(callerOf(ctx), input));
  }

  @Authorized(Permission.CRS_REFUND)
  @Mutation(() => RatingResultType, {
    description:
      'Credits back the successful charge with the same operationId and msisdn, once. Needs CRS_REFUND.',
  })
  async processRefund(
    @Arg('input', () => RatingRequestInputType, { description: INPUT_DOC }) input: RatingRequestInputType,
    @Ctx() ctx: GatewayContext,
  ) {
    return toResult(await ctx.services.charging.processRefund(callerOf(ctx), input));
  }

  @Authorized(Permission.CRS_RATING)
  @Query(() => SubscriberType, {
    nullable: true,
    description: 'A subscriber of your tenant by MSISDN, or null. Needs CRS_RATING.',
  })
  async subscriber(
    @Arg('msisdn', () => String, { description: 'MSISDN, with or without `+`.' }) msisdn: string,
    @Ctx() ctx: GatewayContext,
  ) {
    const s = await ctx.services.charging.subscriber(callerOf(ctx), msisdn);
    return s ? toSubscriber(s) : null;
  }

  @FieldResolver(() => ChargeConnectionType, { description: "The subscriber's ledger, newest first." })
  async charges(
    @Root() sub: SubscriberType,
    @Arg('first', () => Int, { defaultValue: 20, description: 'Page size, 1-500.' }) first: number,
    @Arg('after', () => String, { nullable: true, description: 'endCursor of the previous page.' })
    after: string | null | undefined,
    @Ctx() ctx: GatewayContext,
  ): Promise<ChargeConnectionType> {
    let beforeId: number | undefined;
    if (after !== null && after !== undefined) {
      const m = /^charge:(\d{1,15})$/.exec(Buffer.from(after, 'base64url').toString('utf8'));
      if (!m)
        throw new BadUserInputError('invalid cursor', [
          { field: 'after', description: 'is not a cursor this service issued' },
        ]);
      beforeId = Number(m[1]);
    }
    const page = await ctx.services.charging.history(callerOf(ctx), sub.msisdn, first, beforeId);
    const last = page.rows.at(-1);
    return {
      nodes: page.rows.map(toCharge),
      hasNextPage: page.hasNextPage,
      endCursor: last ? Buffer.from(`charge:${last.id}`).toString('base64url') : null,
    };
  }

  @Authorized(Permission.CRS_RATING)
  @Query(() => [RatingType], { description: "Your tenant's rating catalogue. Needs CRS_RATING." })
  async ratings(@Ctx() ctx: GatewayContext) {
    return (await ctx.services.charging.ratings(callerOf(ctx))).map(toRating);
  }

  @Authorized(Permission.ADMIN)
  @Mutation(() => RatingType, { description: 'Creates or updates a catalogue entry. Needs ADMIN.' })
  async upsertRating(
    @Arg('input', () => RatingInput, { description: 'The entry.' }) input: RatingInput,
    @Ctx() ctx: GatewayContext,
  ) {
    return toRating(await ctx.services.charging.upsertRating(callerOf(ctx), input));
  }

  @Authorized(Permission.ADMIN)
  @Mutation(() => SubscriberType, {
    description:
      'Adds a signed decimal amount to a balance, with a reason written to the ledger. Needs ADMIN.',
  })
  async adjustBalance(
    @Arg('msisdn', () => String, { description: 'The subscriber.' }) msisdn: string,
    @Arg('amount', () => String, { description: 'Signed decimal, e.g. `5.00` or `-1.25`.' }) amount: string,
    @Arg('reason', () => String, { description: 'Why (kept in the ledger).' }) reason: string,
    @Ctx() ctx: GatewayContext,
  ) {
    return toSubscriber(await ctx.services.charging.adjustBalance(callerOf(ctx), msisdn, amount, reason));
  }
}
