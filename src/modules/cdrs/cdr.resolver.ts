import { Arg, Authorized, Ctx, Int, Query, Resolver } from 'type-graphql';
import { Permission } from '../../auth/permissions';
import { GatewayContext, callerOf } from '../../graphql/context';
import { cdrDate, cdrTime } from './cdr.layouts';
import { MAX_CDR_PAGE } from './cdr.service';
import { CdrRow } from './cdr.store';
import {
  CdrConnectionType,
  CdrType,
  CdrTypeName,
  ChargingCdrFieldsType,
  DonationCdrFieldsType,
  GroupCdrFieldsType,
  RecurringDonationCdrFieldsType,
} from './cdr.types';

/** The GraphQL view of a stored CDR. */
function toCdr(r: CdrRow): CdrType {
  const fields: unknown = r.fields;
  return {
    type: r.type as CdrTypeName,
    recordId: r.recordId,
    serviceId: r.serviceId,
    transactionType: r.transactionType,
    tenantId: r.tenantName,
    generated: new Date(r.createdAt).toISOString(),
    date: cdrDate(r.createdAt),
    time: cdrTime(r.createdAt),
    actor: r.actor,
    actorCause: r.actorCause,
    donation: r.type === 'donation' ? (fields as DonationCdrFieldsType) : null,
    group: r.type === 'group' ? (fields as GroupCdrFieldsType) : null,
    recurringDonation: r.type === 'recurringDonation' ? (fields as RecurringDonationCdrFieldsType) : null,
    charging:
      r.type === 'charging'
        ? ({
            ...(fields as ChargingCdrFieldsType),
            serviceId: r.fields.ratingServiceId ?? null,
          } as ChargingCdrFieldsType)
        : null,
  };
}

/** CDRs (issue 12 part 5); the reading rules live in CdrService. */
@Resolver(() => CdrType)
export class CdrResolver {
  @Authorized(Permission.ADMIN)
  @Query(() => CdrConnectionType, {
    description:
      "Your tenant's CDRs of one type generated in [from, to), oldest first (by time, then the order they were written: a donation's steps in sequence). Needs ADMIN.",
  })
  async cdrs(
    @Arg('type', () => CdrTypeName, { description: 'The kind of CDR.' }) type: CdrTypeName,
    @Arg('from', () => String, {
      description:
        'Start, inclusive: ISO-8601 date-time with Z or an offset (e.g. `2026-11-24T00:00:00Z`) or a date (UTC midnight).',
    })
    from: string,
    @Arg('to', () => String, { description: 'End, exclusive: as `from`; must be after it.' }) to: string,
    @Arg('after', () => String, { nullable: true, description: 'endCursor of the previous page.' })
    after: string | null | undefined,
    @Arg('first', () => Int, { defaultValue: 100, description: `Page size, 1-${MAX_CDR_PAGE}.` })
    first: number,
    @Ctx() ctx: GatewayContext,
  ): Promise<CdrConnectionType> {
    const page = await ctx.services.cdrs.page(callerOf(ctx), { type, from, to, after, first });
    return { nodes: page.rows.map(toCdr), hasNextPage: page.hasNextPage, endCursor: page.endCursor };
  }
}
