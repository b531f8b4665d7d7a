import { KeyedBulkhead } from '../../lib/bulkhead';
import { ServiceUnavailableError } from '../../errors';
import { DeadlineExceededError } from '../../lib/request-scope';

/**
 * The quota-sharing bulkhead: one write per donor plan or per group at a time holds a
 * pooled connection in this process; the others wait off the pool until the request's deadline,
 * so a locked or hot plan or group cannot starve requests for other ones. One instance is shared
 * by every sharing service, so all writes to one group (single or bulk) queue in the same lane.
 *
 * Not on SQLite with group commit (`serialize` false; see `groupsCommits` in src/db/knex.ts):
 * there every write transaction already waits off the one connection for its group, in arrival
 * order and bounded by its request's deadline, and the group runs its transactions one after
 * another, so one plan's donations cannot overlap anyway. A lane there would only keep them out
 * of each other's groups: 32 concurrent donations from one plan would take one COMMIT each instead
 * of sharing a few.
 */
export class SharingLanes {
  private readonly bulkhead = new KeyedBulkhead(1);

  /** @param serialize false: every write runs at once (see the class comment). */
  constructor(private readonly serialize = true) {}

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
    if (!this.serialize) return fn();
    try {
      return await this.bulkhead.run(key, fn);
    } catch (err) {
      // The turn did not come in time; any other error (a deadline stop inside `fn` too) travels on.
      if (err instanceof DeadlineExceededError && err.where === 'bulkhead')
        throw new ServiceUnavailableError('timeout');
      throw err;
    }
  }
}
