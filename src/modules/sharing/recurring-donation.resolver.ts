import { Arg, Authorized, Ctx, Int, Mutation, Query, Resolver } from 'type-graphql';
import { Permission } from '../../auth/permissions';
import { GatewayContext, callerOf } from '../../graphql/context';
import { RecurringDonationInputType } from './sharing.inputs';
import { RecurringDonationPageType, RecurringDonationType } from './sharing.types';
import { INPUT_DOC, idempotencyKeyArg, nullIfNotFound, view } from './sharing.views';

/** Recurring donations (CONTRACT §5); the rules live in RecurringDonationService. */
@Resolver(() => RecurringDonationType)
export class RecurringDonationResolver {
  @Authorized(Permission.SQS_RECURRING_DONATION_CREATE_UPDATE_PERMISSION)
  @Mutation(() => RecurringDonationType, {
    description:
      'Sets up the donation a plan executes at every renewal (plan not recurring 9, one per plan 11). Needs SQS_RECURRING_DONATION_CREATE_UPDATE_PERMISSION.',
  })
  async createRecurringDonation(
    @Arg('input', () => RecurringDonationInputType, { description: `The recurring donation. ${INPUT_DOC}` })
    input: RecurringDonationInputType,
    @idempotencyKeyArg() idempotencyKey: string | null | undefined,
    @Ctx() ctx: GatewayContext,
  ) {
    return view.recurring(await ctx.services.sharing.createRecurring(callerOf(ctx), input, idempotencyKey));
  }

  @Authorized(Permission.SQS_RECURRING_DONATION_READ_PERMISSION)
  @Query(() => RecurringDonationType, {
    nullable: true,
    description: 'A recurring donation by id, or null. Needs SQS_RECURRING_DONATION_READ_PERMISSION.',
  })
  async recurringDonation(
    @Arg('id', () => String, { description: 'Recurring donation id.' }) id: string,
    @Ctx() ctx: GatewayContext,
  ) {
    const r = await nullIfNotFound(ctx.services.sharing.recurring(callerOf(ctx), id));
    return r ? view.recurring(r) : null;
  }

  @Authorized(Permission.SQS_RECURRING_DONATION_READ_PERMISSION)
  @Query(() => RecurringDonationPageType, {
    description:
      "A donor's and/or a group's recurring donations, oldest first, 100 per page (published `GET /sqs/api/recurringDonations`). Give donorId, groupId or both. Needs SQS_RECURRING_DONATION_READ_PERMISSION.",
  })
  async recurringDonations(
    @Arg('donorId', () => String, { nullable: true, description: 'Donor MSISDN.' })
    donorId: string | null | undefined,
    @Arg('groupId', () => String, { nullable: true, description: 'Group id.' })
    groupId: string | null | undefined,
    @Arg('page', () => Int, { defaultValue: 0, description: 'Page number, from 0.' }) page: number,
    @Ctx() ctx: GatewayContext,
  ): Promise<RecurringDonationPageType> {
    const r = await ctx.services.sharing.recurringDonations(
      callerOf(ctx),
      { donorId: donorId ?? null, groupId: groupId ?? null },
      page,
    );
    return { nodes: r.rows.map(view.recurring), page: r.page, size: r.size, totalElements: r.total };
  }

  @Authorized(Permission.SQS_RECURRING_DONATION_DELETE_PERMISSION)
  @Mutation(() => Boolean, {
    description: 'Cancels a recurring donation. Needs SQS_RECURRING_DONATION_DELETE_PERMISSION.',
  })
  async deleteRecurringDonation(
    @Arg('id', () => String, { description: 'Recurring donation id.' }) id: string,
    @Ctx() ctx: GatewayContext,
  ) {
    await ctx.services.sharing.deleteRecurring(callerOf(ctx), id);
    return true;
  }
}
