import type { KeysetPage } from '../../db/keyset';
import { Knex } from 'knex';
import { InTransaction } from '../../db/knex';
import { BadUserInputError, FieldError } from '../../errors';
import { Clock } from '../../lib/clock';
import { Money } from '../../lib/money';
import { ChargingCaller } from './charging-outcome';
import {
  RatingRow,
  WILDCARD,
  countRatings,
  findRatingsByIds,
  listRatings,
  upsertRating,
} from './charging.store';

/** An ADMIN's catalogue entry as given: keys and kind as strings, prices as decimal strings or Money. */
export interface RatingEntryInput {
  providerId: string;
  applicationId: string;
  serviceId?: string | null;
  originId?: string | null;
  bundleId?: string | null;
  kind: string;
  /** Decimal string or Money; non-negative. */
  retailPrice: string | Money;
  /** Decimal string or Money; non-negative. */
  tax: string | Money;
}

/**
 * A catalogue entry checked field by field (absent optional keys become wildcards; prices exact).
 * @throws BadUserInputError naming the first offending field, with every offending one in its fields.
 */
export function validRatingEntry(tenantId: number, input: RatingEntryInput): Omit<RatingRow, 'id'> {
  const fields: FieldError[] = [];
  for (const k of ['providerId', 'applicationId'] as const)
    if (!/^[^\s*]{1,64}$/.test(input[k]))
      fields.push({ field: k, description: '1-64 characters, no spaces' });
  for (const k of ['serviceId', 'originId', 'bundleId'] as const) {
    const v = input[k];
    if (v !== null && v !== undefined && !/^[^\s]{1,64}$/.test(v))
      fields.push({ field: k, description: '1-64 characters or *' });
  }
  if (input.kind !== 'content' && input.kind !== 'transport')
    fields.push({ field: 'kind', description: 'content or transport' });
  const prices: Partial<Record<'retailPrice' | 'tax', Money>> = {};
  for (const k of ['retailPrice', 'tax'] as const) {
    const v = input[k];
    if (v instanceof Money ? v.isNegative() : !Money.isValid(v))
      fields.push({ field: k, description: 'non-negative decimal, at most 6 fractional digits' });
    else prices[k] = v instanceof Money ? v : Money.parse(v);
  }
  if (fields.length) throw new BadUserInputError(`invalid rating: ${fields[0].field}`, fields);
  return {
    tenantId,
    providerId: input.providerId,
    applicationId: input.applicationId,
    serviceId: input.serviceId ?? WILDCARD,
    originId: input.originId ?? WILDCARD,
    bundleId: input.bundleId ?? WILDCARD,
    kind: input.kind as RatingRow['kind'],
    retailPrice: prices.retailPrice!,
    tax: prices.tax!,
  };
}

/**
 * The caller's rating catalogue (docs/contract.md §4): paged reads and ADMIN provisioning. Every
 * method runs on the caller's transaction when given one ({@link InTransaction}).
 */
export class CatalogueService {
  private readonly knex: Knex;
  private readonly clock: Clock;

  constructor(deps: { knex: Knex; clock: Clock }) {
    this.knex = deps.knex;
    this.clock = deps.clock;
  }

  /** One page of the caller's rating catalogue (list order by id; see src/db/keyset.ts): `page.limit + 1` rows at most. */
  ratings(caller: ChargingCaller, page: KeysetPage<number>, opts: InTransaction = {}): Promise<RatingRow[]> {
    return listRatings(opts.trx ?? this.knex, caller.tenantId, page);
  }

  /** How many catalogue entries the caller's tenant has. */
  ratingCount(caller: ChargingCaller, opts: InTransaction = {}): Promise<number> {
    return countRatings(opts.trx ?? this.knex, caller.tenantId);
  }

  /** The caller's tenant's catalogue entries with these row ids, in one statement (any order; ids naming none left out). */
  ratingsByIds(caller: ChargingCaller, ids: readonly number[]): Promise<RatingRow[]> {
    return findRatingsByIds(this.knex, caller.tenantId, ids);
  }

  /**
   * ADMIN: creates or updates a catalogue entry (absent optional keys are wildcards) by its keys
   * and kind; answers the entry as stored.
   * @throws BadUserInputError naming the offending field (see {@link validRatingEntry}).
   */
  async upsertRating(
    caller: ChargingCaller,
    input: RatingEntryInput,
    opts: InTransaction = {},
  ): Promise<RatingRow> {
    const entry = validRatingEntry(caller.tenantId, input);
    return (await upsertRating(opts.trx ?? this.knex, entry, this.clock.nowMs())).row;
  }
}
