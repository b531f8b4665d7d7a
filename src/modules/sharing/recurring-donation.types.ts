import { ArgsType, Field, ID, Int, ObjectType } from 'type-graphql';
import { ConnectionArgs, PageInfoType, cursorCodec } from '../../graphql/relay';
import { MsisdnScalar } from '../../graphql/scalars';
import { RecurringDonationType } from './sharing.types';

/**
 * The `recurringDonations` list (docs/graphql.md "Pagination"): a Relay connection, with the page-numbered fields of
 * the published HAL list (`page` argument, `nodes`/`page`/`size`/`totalElements`) kept beside it,
 * deprecated, for one minor release.
 */

/** Cursor of a recurring donation in its list: its creation time (epoch ms) and id. */
export const recurringCursor = cursorCodec<{ createdAt: number; id: string }>(
  'recurringDonation',
  (k) => `${k.createdAt}:${k.id}`,
  (text) => {
    const m = /^(\d{1,15}):([A-Za-z0-9_-]{20})$/.exec(text);
    return m ? { createdAt: Number(m[1]), id: m[2] } : undefined;
  },
);

/** One recurring donation of a page, with its cursor. */
@ObjectType('RecurringDonationEdge', { description: 'One RecurringDonation of a page, with its cursor.' })
export class RecurringDonationEdge {
  @Field(() => String, { description: 'Opaque cursor of this item; pass it as `after` or `before`.' })
  cursor!: string;
  @Field(() => RecurringDonationType, { description: 'The RecurringDonation.' })
  node!: RecurringDonationType;
}

/** A page of recurring donations (Relay connection, with the deprecated page-numbered fields). */
@ObjectType('RecurringDonationConnection', {
  description:
    "A page of a donor's and/or a group's recurring donations, oldest first. Page with `first`/`after` (or `last`/`before`); the page-numbered fields are deprecated.",
})
export class RecurringDonationConnection {
  @Field(() => [RecurringDonationEdge], { description: 'The items of this page, in list order.' })
  edges!: RecurringDonationEdge[];
  @Field(() => PageInfoType, { description: 'Where this page stands in the whole list.' })
  pageInfo!: PageInfoType;
  @Field(() => Int, { description: 'Recurring donations matching, all pages.' })
  totalCount!: number;
  @Field(() => [RecurringDonationType], {
    description: 'The recurring donations of this page.',
    deprecationReason: 'use `edges { node }`',
  })
  nodes!: RecurringDonationType[];
  @Field(() => Int, {
    nullable: true,
    description: 'Page number, from 0, when paged with `page`; null when paged by cursor.',
    deprecationReason: 'use `first`/`after` and `pageInfo`',
  })
  page!: number | null;
  @Field(() => Int, {
    nullable: true,
    description: 'Page size (100) when paged with `page`; null when paged by cursor.',
    deprecationReason: 'use `first`/`after` and `pageInfo`',
  })
  size!: number | null;
  @Field(() => Int, {
    description: 'Recurring donations matching, all pages.',
    deprecationReason: 'use `totalCount`',
  })
  totalElements!: number;
}

/** Arguments of `recurringDonations`: the list (donor and/or group), the paging, the old page number. */
@ArgsType()
export class RecurringDonationsArgs extends ConnectionArgs {
  @Field(() => MsisdnScalar, { nullable: true, description: 'The donor. Give donorId, groupId or both.' })
  donorId?: string | null;
  @Field(() => ID, { nullable: true, description: 'The group. Give donorId, groupId or both.' })
  groupId?: string | null;
  @Field(() => Int, {
    nullable: true,
    description:
      'Page number from 0, 100 per page (published HAL list). Not with `first`/`after`/`last`/`before`.',
    deprecationReason: 'use `first`/`after`',
  })
  page?: number | null;
}
