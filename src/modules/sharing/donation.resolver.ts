import { Arg, Args, Authorized, Ctx, ID, Mutation, Query, Resolver } from 'type-graphql';
import { Permission } from '../../auth/permissions';
import { GatewayContext, callerOf } from '../../graphql/context';
import { registerNode, registerRowNode, rowIdKey } from '../../graphql/node';
import { Connection, connectionFromRows, pageRequest } from '../../graphql/relay';
import {
  AllowanceConnections,
  AllowancesArgs,
  DonationConnections,
  DonationsArgs,
  DONATION_INPUT_DOC,
  ShareQuotaPayload,
  allowanceCursor,
  donationCursor,
  donationPayload,
} from './donation.types';
import { DonationInputType } from './sharing.inputs';
import { AllowanceType, DonationType } from './sharing.types';
import { idempotencyKeyArg, loaders, view } from './sharing.views';

registerNode('Donation', {
  permissions: [Permission.SQS_DONATION_PERMISSION],
  serviceIds: true,
  async resolve(ctx, id) {
    const d = await loaders(ctx).donations.load(id);
    return d ? view.donation(d) : null;
  },
});

registerRowNode('Allowance', {
  permissions: [Permission.SQS_DONATION_PERMISSION],
  key: rowIdKey,
  read: (ctx, ids: readonly number[]) => ctx.services.sharing.allowancesByIds(callerOf(ctx), ids),
  keyOf: (a) => a.id,
  view: (a) => view.allowance(a),
});

/** Donations and allowances (CONTRACT §5, §7); the rules live in DonationService. */
@Resolver(() => DonationType)
export class DonationResolver {
  @Authorized(Permission.SQS_DONATION_PERMISSION)
  @Mutation(() => ShareQuotaPayload, {
    description:
      "Shares quota of a donor plan with explicit recipients or with a group's members. A donation where some recipients failed is a success: each recipient's `outcome` says what happened to it. A request refused as a whole returns `userErrors` and changes nothing. Needs SQS_DONATION_PERMISSION.",
  })
  shareQuota(
    @Arg('input', () => DonationInputType, { description: `The donation. ${DONATION_INPUT_DOC}` })
    input: DonationInputType,
    @idempotencyKeyArg() idempotencyKey: string | null | undefined,
    @Ctx() ctx: GatewayContext,
  ) {
    return donationPayload(
      ctx,
      () => ctx.services.sharing.donate(callerOf(ctx), input, idempotencyKey),
      (d) => ({ donation: view.donation(d) }),
    );
  }

  @Authorized(Permission.SQS_DONATION_PERMISSION)
  @Query(() => DonationType, {
    nullable: true,
    description: 'A donation by id, or null. Needs SQS_DONATION_PERMISSION.',
  })
  async donation(
    @Arg('id', () => ID, { description: 'Donation id (20 characters).' }) id: string,
    @Ctx() ctx: GatewayContext,
  ) {
    const d = await ctx.services.sharing.donation(callerOf(ctx), id);
    return d ? view.donation(d) : null;
  }

  @Authorized(Permission.SQS_DONATION_PERMISSION)
  @Query(() => DonationConnections.Connection, {
    description:
      "A donor's donations, newest first, every one reachable by paging (`first`/`after` or `last`/`before`). Needs SQS_DONATION_PERMISSION.",
  })
  async donations(
    @Args() args: DonationsArgs,
    @Ctx() ctx: GatewayContext,
  ): Promise<Connection<DonationType>> {
    const page = pageRequest(args, donationCursor);
    const rows = await ctx.services.sharing.donations(callerOf(ctx), args.donorId, page);
    return connectionFromRows(rows.map(view.donation), page, donationCursor, (d) => ({
      createdAt: Date.parse(d.created),
      id: d.id,
    }));
  }

  @Authorized(Permission.SQS_DONATION_PERMISSION)
  @Query(() => AllowanceConnections.Connection, {
    description:
      'What a subscriber received from donations, newest first (`first`/`after` or `last`/`before`). Needs SQS_DONATION_PERMISSION.',
  })
  async allowances(
    @Args() args: AllowancesArgs,
    @Ctx() ctx: GatewayContext,
  ): Promise<Connection<AllowanceType>> {
    const page = pageRequest(args, allowanceCursor);
    const rows = await ctx.services.sharing.allowances(callerOf(ctx), args.msisdn, page);
    const c = connectionFromRows(rows, page, allowanceCursor, (a) => a.id);
    return { ...c, edges: c.edges.map((e) => ({ cursor: e.cursor, node: view.allowance(e.node) })) };
  }
}
