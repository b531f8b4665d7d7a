import { Arg, Args, Authorized, Ctx, ID, Mutation, Query, Resolver } from 'type-graphql';
import { Permission } from '../../auth/permissions';
import { BadUserInputError } from '../../errors';
import { GatewayContext, callerOf } from '../../graphql/context';
import { registerNode } from '../../graphql/node';
import { connectionFromRows, pageRequest } from '../../graphql/relay';
import {
  CreateRecurringDonationPayload,
  DONATION_INPUT_DOC,
  DeleteRecurringDonationPayload,
  donationPayload,
} from './donation.types';
import {
  RecurringDonationConnection,
  RecurringDonationsArgs,
  recurringCursor,
} from './recurring-donation.types';
import { RecurringDonationInputType } from './sharing.inputs';
import { RecurringDonationType } from './sharing.types';
import { idempotencyKeyArg, loaders, nullIfNotFound, view } from './sharing.views';

registerNode('RecurringDonation', {
  permissions: [Permission.SQS_RECURRING_DONATION_READ_PERMISSION],
  serviceIds: true,
  async resolve(ctx, id) {
    const r = await loaders(ctx).recurring.load(id);
    return r ? view.recurring(r) : null;
  },
});

/** Recurring donations (CONTRACT §5); the rules live in RecurringDonationService. */
@Resolver(() => RecurringDonationType)
export class RecurringDonationResolver {
  @Authorized(Permission.SQS_RECURRING_DONATION_CREATE_UPDATE_PERMISSION)
  @Mutation(() => CreateRecurringDonationPayload, {
    description:
      'Sets up the donation a plan executes at every renewal (one per plan; the plan must be recurring). Refusals are `userErrors`. Needs SQS_RECURRING_DONATION_CREATE_UPDATE_PERMISSION.',
  })
  createRecurringDonation(
    @Arg('input', () => RecurringDonationInputType, {
      description: `The recurring donation. ${DONATION_INPUT_DOC}`,
    })
    input: RecurringDonationInputType,
    @idempotencyKeyArg() idempotencyKey: string | null | undefined,
    @Ctx() ctx: GatewayContext,
  ) {
    return donationPayload(
      ctx,
      () => ctx.services.sharing.createRecurring(callerOf(ctx), input, idempotencyKey),
      (r) => ({ recurringDonation: view.recurring(r) }),
    );
  }

  @Authorized(Permission.SQS_RECURRING_DONATION_READ_PERMISSION)
  @Query(() => RecurringDonationType, {
    nullable: true,
    description: 'A recurring donation by id, or null. Needs SQS_RECURRING_DONATION_READ_PERMISSION.',
  })
  async recurringDonation(
    @Arg('id', () => ID, { description: 'Recurring donation id (20 characters).' }) id: string,
    @Ctx() ctx: GatewayContext,
  ) {
    const r = await nullIfNotFound(ctx.services.sharing.recurring(callerOf(ctx), id));
    return r ? view.recurring(r) : null;
  }

  @Authorized(Permission.SQS_RECURRING_DONATION_READ_PERMISSION)
  @Query(() => RecurringDonationConnection, {
    description:
      "A donor's and/or a group's recurring donations, oldest first (give donorId, groupId or both), paged with `first`/`after` or `last`/`before`; the deprecated `page` keeps the published 100-per-page numbering. Needs SQS_RECURRING_DONATION_READ_PERMISSION.",
  })
  async recurringDonations(
    @Args() args: RecurringDonationsArgs,
    @Ctx() ctx: GatewayContext,
  ): Promise<RecurringDonationConnection> {
    const by = { donorId: args.donorId ?? null, groupId: args.groupId ?? null };
    if (args.page != null) {
      if (args.first != null || args.after != null || args.last != null || args.before != null)
        throw new BadUserInputError('page cannot be combined with first, after, last or before', [
          { field: 'page', description: 'cannot be combined with first, after, last or before' },
        ]);
      const r = await ctx.services.sharing.recurringDonations(callerOf(ctx), by, args.page);
      const nodes = r.rows.map(view.recurring);
      const c = connectionFromRows(
        nodes,
        { limit: r.size, direction: 'forward', after: null, before: null },
        recurringCursor,
        (x) => ({ createdAt: Date.parse(x.created), id: x.id }),
      );
      const more = (r.page + 1) * r.size < r.total;
      return {
        ...c,
        pageInfo: { ...c.pageInfo, hasNextPage: more, hasPreviousPage: r.page > 0 },
        totalCount: r.total,
        nodes,
        page: r.page,
        size: r.size,
        totalElements: r.total,
      };
    }
    const page = pageRequest(args, recurringCursor);
    const r = await ctx.services.sharing.recurringDonationsPage(callerOf(ctx), by, page);
    const c = connectionFromRows(r.rows.map(view.recurring), page, recurringCursor, (x) => ({
      createdAt: Date.parse(x.created),
      id: x.id,
    }));
    return {
      ...c,
      totalCount: r.total,
      nodes: c.edges.map((e) => e.node),
      page: null,
      size: null,
      totalElements: r.total,
    };
  }

  @Authorized(Permission.SQS_RECURRING_DONATION_DELETE_PERMISSION)
  @Mutation(() => DeleteRecurringDonationPayload, {
    description:
      'Cancels a recurring donation; an unknown id is a RECURRING_DONATION_NOT_FOUND user error. Needs SQS_RECURRING_DONATION_DELETE_PERMISSION.',
  })
  deleteRecurringDonation(
    @Arg('id', () => ID, { description: 'Recurring donation id (20 characters).' }) id: string,
    @Ctx() ctx: GatewayContext,
  ) {
    return donationPayload(
      ctx,
      () => ctx.services.sharing.deleteRecurring(callerOf(ctx), id),
      () => ({ deletedRecurringDonationId: id }),
      'id',
    );
  }
}
