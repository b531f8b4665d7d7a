import { Arg, Args, Authorized, Ctx, Query, Resolver } from 'type-graphql';
import { Permission } from '../../auth/permissions';
import { GatewayContext, callerOf } from '../../graphql/context';
import { globalId, registerRowNode, rowIdKey } from '../../graphql/node';
import { ConnectionArgs } from '../../graphql/relay';
import { QuotaType } from '../sharing/sharing.enums';
import { GroupQuotaType, cdrDate, cdrTime } from './cdr.layouts';
import { CdrRow } from './cdr.store';
import {
  CdrConnectionType,
  CdrType,
  CdrTypeName,
  ChargingCdrFieldsType,
  DonationCdrFieldsType,
  GroupCdrFieldsType,
  RecurringDonationCdrFieldsType,
  TokenCdrFieldsType,
} from './cdr.types';

/** The GraphQL view of a stored CDR; its field group carries `transaction`, the type number as an enum. */

/** The published number of a groups CDR's quota type (cdr.layouts.ts `GroupQuotaType`) as the enum. */
function groupQuotaTypeOf(n: unknown): QuotaType | null {
  if (n === null || n === undefined) return null;
  return n === GroupQuotaType.share ? QuotaType.SHARE : QuotaType.AMOUNT;
}

function toCdr(r: CdrRow): CdrType {
  const fields: Record<string, unknown> = r.fields;
  const transaction = r.transactionType;
  return {
    id: globalId('Cdr', r.id),
    type: r.type as CdrTypeName,
    recordId: r.recordId,
    serviceId: r.serviceId,
    transactionType: r.transactionType,
    tenantId: r.tenantName,
    generated: new Date(r.createdAt).toISOString(),
    generatedAt: new Date(r.createdAt),
    date: cdrDate(r.createdAt),
    time: cdrTime(r.createdAt),
    actor: r.actor,
    actorCause: r.actorCause,
    donation:
      r.type === 'donation'
        ? ({ ...fields, transaction, recurring: fields.donationType === 1 } as DonationCdrFieldsType)
        : null,
    group:
      r.type === 'group'
        ? ({
            ...fields,
            transaction,
            quotaType: groupQuotaTypeOf(fields.groupQuotaType),
          } as GroupCdrFieldsType)
        : null,
    recurringDonation:
      r.type === 'recurringDonation' ? ({ ...fields, transaction } as RecurringDonationCdrFieldsType) : null,
    charging:
      r.type === 'charging'
        ? ({ ...fields, transaction, serviceId: fields.ratingServiceId ?? null } as ChargingCdrFieldsType)
        : null,
    token:
      r.type === 'token' ? ({ ...fields, transaction, tokenId: r.recordId } as TokenCdrFieldsType) : null,
  };
}

/** CDRs (CONTRACT §8); the reading rules live in CdrService. */
@Resolver(() => CdrType)
export class CdrResolver {
  @Authorized(Permission.ADMIN)
  @Query(() => CdrConnectionType, {
    description:
      "Your tenant's CDRs of one type generated in [from, to), oldest first (by time, then the order they were written: a donation's steps in sequence). A Relay connection: `first`/`after` forward, `last`/`before` backward. Needs ADMIN.",
  })
  async cdrs(
    @Arg('type', () => CdrTypeName, { description: 'The kind of CDR.' }) type: CdrTypeName,
    @Arg('from', () => String, {
      description:
        'Start, inclusive: ISO-8601 date-time with Z or an offset (e.g. `2026-11-24T00:00:00Z`) or a date (UTC midnight).',
    })
    from: string,
    @Arg('to', () => String, { description: 'End, exclusive: as `from`; must be after it.' }) to: string,
    @Args(() => ConnectionArgs) paging: ConnectionArgs,
    @Ctx() ctx: GatewayContext,
  ): Promise<CdrConnectionType> {
    const page = await ctx.services.cdrs.page(callerOf(ctx), { type, from, to }, paging);
    const edges = page.edges.map((e) => ({ cursor: e.cursor, node: toCdr(e.node) }));
    return {
      edges,
      pageInfo: page.pageInfo,
      nodes: edges.map((e) => e.node),
      endCursor: page.pageInfo.endCursor,
      hasNextPage: page.pageInfo.hasNextPage,
    };
  }
}

registerRowNode('Cdr', {
  permissions: [Permission.ADMIN],
  key: rowIdKey,
  read: (ctx, ids: readonly number[]) => ctx.services.cdrs.byIds(callerOf(ctx), ids),
  keyOf: (row) => row.id,
  view: toCdr,
});
