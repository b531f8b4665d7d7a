import { BulkheadTimeoutError, KeyedBulkhead } from '../../lib/bulkhead';
import { ServiceUnavailableError } from '../../errors';
import { remainingMs } from '../../lib/request-scope';

/**
 * The quota-sharing bulkhead (issue 10): one write per donor plan or per group at a time holds a
 * pooled connection in this process; the others wait off the pool until the request's deadline,
 * so a locked or hot plan or group cannot starve requests for other ones. One instance is shared
 * by every sharing service, so all writes to one group (single or bulk) queue in the same lane.
 */
export class SharingLanes {
  private readonly bulkhead = new KeyedBulkhead(1);

  /** Lane key of a donor plan's writes. */
  static plan(tenantId: number, planId: number): string {
    return `${tenantId}:plan:${planId}`;
  }

  /** Lane key of a group's writes (member adds, updates, bulk operations). */
  static group(tenantId: number, groupId: string): string {
    return `${tenantId}:group:${groupId}`;
  }

  /**
   * Runs `fn` when `key`'s turn comes.
   * @throws ServiceUnavailableError (`timeout`, HTTP 503) when the turn did not come in time.
   */
  async oneAtATime<T>(key: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await this.bulkhead.run(key, remainingMs(), fn);
    } catch (err) {
      if (err instanceof BulkheadTimeoutError) throw new ServiceUnavailableError('timeout');
      throw err;
    }
  }
}
