import type DataLoader from 'dataloader';
import type { KeysetPage } from '../../db/keyset';
import { Knex } from 'knex';
import { InTransaction } from '../../db/knex';
import { keyedLoader } from '../../lib/keyed-loader';
import { requireMsisdn } from '../../lib/msisdn';
import { Subscriber, findSubscriber, findSubscribers } from '../subscribers/subscriber.store';
import { ChargingCaller } from './charging-outcome';
import { ChargeRow, countCharges, findChargesByIds, listCharges } from './charging.store';

/**
 * Reads of subscribers' accounts and their ledger (ratings, refunds, adjustments), always in the
 * caller's tenant. Every read runs on the caller's transaction when given one ({@link InTransaction}).
 */
export class LedgerService {
  private readonly knex: Knex;

  constructor(deps: { knex: Knex }) {
    this.knex = deps.knex;
  }

  /**
   * A subscriber of the tenant by MSISDN (with or without `+`).
   * @throws BadUserInputError for a malformed MSISDN.
   */
  async subscriber(
    caller: ChargingCaller,
    msisdn: string,
    opts: InTransaction = {},
  ): Promise<Subscriber | undefined> {
    return findSubscriber(opts.trx ?? this.knex, caller.tenantId, requireMsisdn(msisdn, 'msisdn'));
  }

  /**
   * A DataLoader of the caller's tenant's subscribers by canonical MSISDN (undefined for one that
   * is not there): the lookups of one tick are one `WHERE msisdn IN (…)` statement, so
   * `nodes(ids:)` and `_entities` with N subscribers read them in one query, not N. Build one per
   * request (it caches what it read). `beforeQuery` runs before each batch; throwing from it (the
   * GraphQL deadline) fails that batch's loads with its error.
   */
  subscribersLoader(
    caller: ChargingCaller,
    beforeQuery: () => void = () => undefined,
  ): DataLoader<string, Subscriber | undefined> {
    return keyedLoader(
      async (msisdns) => (await findSubscribers(this.knex, caller.tenantId, msisdns)).values(),
      (s) => s.msisdn,
      beforeQuery,
    );
  }

  /**
   * One page of a subscriber's ledger (list order newest first; see src/db/keyset.ts), in the
   * caller's tenant; `msisdn` canonical. Reads `page.limit + 1` rows, the extra one saying that
   * more follow (what `connectionFromRows` expects). Empty for an unknown subscriber.
   */
  chargePage(
    caller: ChargingCaller,
    msisdn: string,
    page: KeysetPage<number>,
    opts: InTransaction = {},
  ): Promise<ChargeRow[]> {
    return listCharges(opts.trx ?? this.knex, caller.tenantId, msisdn, page);
  }

  /** How many ledger entries a subscriber of the caller's tenant has (`msisdn` canonical). */
  chargeCount(caller: ChargingCaller, msisdn: string, opts: InTransaction = {}): Promise<number> {
    return countCharges(opts.trx ?? this.knex, caller.tenantId, msisdn);
  }

  /** The caller's tenant's ledger entries with these row ids, in one statement (any order; ids naming none left out). */
  charges(caller: ChargingCaller, ids: readonly number[]): Promise<ChargeRow[]> {
    return findChargesByIds(this.knex, caller.tenantId, ids);
  }
}
