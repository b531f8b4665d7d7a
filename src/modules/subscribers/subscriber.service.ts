import { Knex } from 'knex';
import { InTransaction } from '../../db/knex';
import { Subscriber, findSubscriber, findSubscribersForUpdate } from './subscriber.store';

export type { Subscriber } from './subscriber.store';

/**
 * Subscribers (CONTRACT §5, §9): the lookups the sharing services make (the dataset import
 * writes subscribers itself: putSubscriber in src/dataset/kept-values.ts). Every method runs on the
 * caller's transaction when given one ({@link InTransaction}).
 */
export class SubscriberService {
  constructor(private readonly db: Knex) {}

  /** A tenant's subscriber by canonical MSISDN, or undefined. */
  find(tenantId: number, msisdn: string, opts: InTransaction = {}): Promise<Subscriber | undefined> {
    return findSubscriber(opts.trx ?? this.db, tenantId, msisdn);
  }

  /**
   * A tenant's subscribers by canonical MSISDN, read in one statement inside `trx` with their
   * rows locked until it ends, in MSISDN order (MySQL/MariaDB; see findSubscribersForUpdate).
   * MSISDNs not found are absent from the map.
   */
  findManyForUpdate(
    trx: Knex.Transaction,
    tenantId: number,
    msisdns: string[],
  ): Promise<Map<string, Subscriber>> {
    return findSubscribersForUpdate(trx, tenantId, msisdns);
  }
}
