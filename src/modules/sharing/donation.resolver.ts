import { Arg, Authorized, Ctx, Int, Mutation, Query, Resolver } from 'type-graphql';
import { Permission } from '../../auth/permissions';
import { GatewayContext, callerOf } from '../../graphql/context';
import { DonationInputType } from './sharing.inputs';
import { AllowanceType, DonationType } from './sharing.types';
import { INPUT_DOC, idempotencyKeyArg, view } from './sharing.views';

/** Donations and allowances (CONTRACT §5, §7); the rules live in DonationService. */
@Resolver(() => DonationType)
export class DonationResolver {
  @Authorized(Permission.SQS_DONATION_PERMISSION)
  @Mutation(() => DonationType, {
    description:
      "Shares quota of a donor plan with explicit recipients or with a group's members (spec 4.4/4.5). Per-recipient outcomes are data (errorCode); refusals of the whole request are errors with extensions.errorCode. Needs SQS_DONATION_PERMISSION.",
  })
  async shareQuota(
    @Arg('input', () => DonationInputType, { description: `The donation. ${INPUT_DOC}` })
    input: DonationInputType,
    @idempotencyKeyArg() idempotencyKey: string | null | undefined,
    @Ctx() ctx: GatewayContext,
  ) {
    return view.donation(await ctx.services.sharing.donate(callerOf(ctx), input, idempotencyKey));
  }

  @Authorized(Permission.SQS_DONATION_PERMISSION)
  @Query(() => DonationType, {
    nullable: true,
    description: 'A donation by id, or null. Needs SQS_DONATION_PERMISSION.',
  })
  async donation(
    @Arg('id', () => String, { description: 'Donation id.' }) id: string,
    @Ctx() ctx: GatewayContext,
  ) {
    const d = await ctx.services.sharing.donation(callerOf(ctx), id);
    return d ? view.donation(d) : null;
  }

  @Authorized(Permission.SQS_DONATION_PERMISSION)
  @Query(() => [DonationType], {
    description: "A donor's donations, newest first. Needs SQS_DONATION_PERMISSION.",
  })
  async donations(
    @Arg('donorId', () => String, { description: 'Donor MSISDN.' }) donorId: string,
    @Arg('first', () => Int, { defaultValue: 20, description: 'How many, 1-500.' }) first: number,
    @Ctx() ctx: GatewayContext,
  ) {
    return (await ctx.services.sharing.donations(callerOf(ctx), donorId, first)).map(view.donation);
  }

  @Authorized(Permission.SQS_DONATION_PERMISSION)
  @Query(() => [AllowanceType], {
    description:
      'What a subscriber received from donations, newest first (at most 500). Needs SQS_DONATION_PERMISSION.',
  })
  async allowances(
    @Arg('msisdn', () => String, { description: 'Recipient MSISDN.' }) msisdn: string,
    @Ctx() ctx: GatewayContext,
  ) {
    return (await ctx.services.sharing.allowances(callerOf(ctx), msisdn)).map(view.allowance);
  }
}
