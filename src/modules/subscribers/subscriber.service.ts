import { Knex } from 'knex';
import { InTransaction } from '../../db/knex';
import {
  Subscriber,
  SubscriberWrite,
  findSubscriber,
  findSubscribersForUpdate,
  insertSubscriber,
  updateSubscriber,
} from './subscriber.store';

export type { Subscriber } from './subscriber.store';

/** Whether a dataset row created, changed or left a subscriber as it was. */
export type SubscriberImportOutcome = 'created' | 'updated' | 'unchanged';

/**
 * Subscribers (CONTRACT §5, §9): the lookups the sharing services make and the dataset import's
 * write. Every method runs on the caller's transaction when given one ({@link InTransaction}).
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

  /**
   * Creates a subscriber, or updates its status, payment type, currency and balance when any
   * differs (the dataset import, by tenant and MSISDN).
   */
  async put(
    write: SubscriberWrite,
    nowMs: number,
    opts: InTransaction = {},
  ): Promise<SubscriberImportOutcome> {
    const db = opts.trx ?? this.db;
    const existing = await findSubscriber(db, write.tenantId, write.msisdn);
    if (!existing) {
      await insertSubscriber(db, write, nowMs);
      return 'created';
    }
    if (
      existing.status === write.status &&
      existing.paymentType === write.paymentType &&
      existing.currency === write.currency &&
      existing.balance.cmp(write.balance) === 0
    )
      return 'unchanged';
    await updateSubscriber(db, existing.id, write, nowMs);
    return 'updated';
  }
}
