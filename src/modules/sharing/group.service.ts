import DataLoader from 'dataloader';
import { requireMsisdn } from '../../lib/msisdn';
import type { KeysetPage } from '../../db/keyset';
import { Knex } from 'knex';
import { InTransaction, isUniqueViolation, retryingTransaction } from '../../db/knex';
import { Clock } from '../../lib/clock';
import { newId } from '../../lib/ids';
import { keyedLoader } from '../../lib/keyed-loader';
import { CdrRecorder } from '../cdrs/cdr.recorder';
import { GroupTx, RecurringTx } from '../cdrs/cdr.layouts';
import { EventType } from '../events/event-catalogue';
import { recordEvent } from '../events/outbox.store';
import { groupEvent, memberEvents } from '../events/sharing-events';
import { IdempotencyService } from '../idempotency/idempotency.service';
import { SubscriberService } from '../subscribers/subscriber.service';
import { SqsCode } from './error-codes';
import { GroupCaller, GroupMemberService, checkPage } from './group-member.service';
import {
  deleteGroup,
  deleteMember,
  findGroup,
  findGroups,
  insertGroup,
  listGroups,
  listGroupsByKey,
  membersOf,
} from './group.store';
import { listRecurring } from './recurring-donation.store';
import { parseGroupRequest } from './sharing-request';
import { sqsError } from './sharing-errors';
import { GroupRow, MemberRow } from './sharing.rows';

/** Groups per page of `GET /sqs/api/groups` (CONTRACT §5). */
export const GROUP_PAGE_SIZE = 100;

/**
 * Groups (CONTRACT §5): creating, reading, listing and deleting groups, adding and
 * removing single members; member writes under the group's lane are {@link GroupMemberService}'s.
 */
export class GroupService {
  constructor(
    private readonly db: Knex,
    private readonly clock: Clock,
    private readonly idempotency: IdempotencyService,
    private readonly subscribers: SubscriberService,
    /** Renames, member writes and member pages. */
    readonly members: GroupMemberService,
    /** Group and recurring donation CDRs (service IDs 98, 99; CONTRACT §8). */
    private readonly cdrs: CdrRecorder = new CdrRecorder(clock),
  ) {}

  /** A group by id, or undefined; with `forUpdate` (inside `opts.trx`) the row is locked. */
  find(
    caller: GroupCaller,
    id: string,
    opts: InTransaction & { forUpdate?: boolean } = {},
  ): Promise<GroupRow | undefined> {
    return findGroup(opts.trx ?? this.db, caller.tenantId, id, opts.forUpdate);
  }

  /**
   * A DataLoader of the caller's tenant's groups by id (undefined for an id that names none),
   * one statement per tick; see {@link keyedLoader}. Build one per request.
   */
  groupsLoader(caller: GroupCaller): DataLoader<string, GroupRow | undefined> {
    return keyedLoader(
      (ids) => findGroups(this.db, caller.tenantId, ids),
      (g) => g.id,
    );
  }

  /** The members of the given groups, in the order they joined. */
  membersOf(groupIds: readonly string[], opts: InTransaction = {}): Promise<MemberRow[]> {
    return membersOf(opts.trx ?? this.db, groupIds);
  }

  /** A per-request DataLoader of members by group id (CONTRACT §7). */
  membersLoader(): DataLoader<string, MemberRow[]> {
    return new DataLoader<string, MemberRow[]>(async (ids) => {
      const rows = await membersOf(this.db, ids);
      return ids.map((id) => rows.filter((m) => m.groupId === id));
    });
  }

  /**
   * `POST /sqs/api/groups`: creates a group owned by an existing subscriber (unknown owner
   * 422/14); owner+name taken 409/2. `idempotencyKey` as for {@link DonationService.donate}.
   * @throws BadUserInputError (400/412), UnprocessableError, ConflictError.
   */
  createGroup(caller: GroupCaller, input: unknown, idempotencyKey?: string | null): Promise<GroupRow> {
    const g = parseGroupRequest(input);
    return this.idempotency.run(
      { tenantId: caller.tenantId, key: idempotencyKey, operation: 'createGroup', request: input },
      (scope) => retryingTransaction(this.db, scope),
      async (trx) => {
        if (!(await this.subscribers.find(caller.tenantId, g.ownerId, { trx })))
          throw sqsError.unprocessable(
            SqsCode.SUBSCRIBER_NOT_FOUND,
            `owner ${g.ownerId} is not a subscriber`,
          );
        const now = this.clock.nowMs();
        const row: GroupRow = {
          id: newId(),
          tenantId: caller.tenantId,
          ownerMsisdn: g.ownerId,
          name: g.name,
          quotaType: g.quotaType,
          createdAt: now,
          updatedAt: now,
        };
        try {
          await insertGroup(trx, row);
        } catch (err) {
          if (isUniqueViolation(err))
            throw sqsError.conflict(
              SqsCode.GROUP_NOT_UNIQUE,
              `owner ${g.ownerId} already has a group named ${g.name}`,
            );
          throw err;
        }
        await this.cdrs.group(trx, caller, GroupTx.CREATED, row);
        await recordEvent(trx, this.clock, groupEvent(EventType.groupCreated, row, this.clock));
        return row;
      },
    );
  }

  /**
   * A group by id.
   * @throws NotFoundError (errorCode 5).
   */
  async group(caller: GroupCaller, id: string): Promise<GroupRow> {
    const g = await findGroup(this.db, caller.tenantId, id);
    if (!g) throw sqsError.groupNotFound(id);
    return g;
  }

  /**
   * Groups owned by `ownerId` and/or having `memberId` as member, oldest first, page `page`
   * (0-based) of {@link GROUP_PAGE_SIZE}.
   * @throws BadUserInputError 412 when neither is given, or one is not an MSISDN or page is invalid.
   */
  async groups(
    caller: GroupCaller,
    by: { ownerId: string | null; memberId: string | null },
    page: number,
  ): Promise<{ rows: GroupRow[]; total: number; page: number; size: number }> {
    if (by.ownerId === null && by.memberId === null)
      throw sqsError.invalid('ownerId', 'give ownerId or memberId');
    checkPage(page);
    const r = await listGroups(
      this.db,
      caller.tenantId,
      groupFilter(by),
      page * GROUP_PAGE_SIZE,
      GROUP_PAGE_SIZE,
    );
    return { ...r, page, size: GROUP_PAGE_SIZE };
  }

  /**
   * One keyset page (GraphQL `groups` connection) of the groups owned by `ownerId` and/or having
   * `memberId` as member, oldest first: up to `page.limit + 1` rows in paging order past the
   * page's cursor key, and how many groups match in all.
   * @throws BadUserInputError 412 when neither is given or one is not an MSISDN.
   */
  groupsByKey(
    caller: GroupCaller,
    by: { ownerId: string | null; memberId: string | null },
    page: KeysetPage<{ createdAt: number; id: string }>,
  ): Promise<{ rows: GroupRow[]; total: number }> {
    return listGroupsByKey(this.db, caller.tenantId, groupFilter(by), page);
  }

  /**
   * Deletes a group with its members and its recurring donation; quota already shared stays.
   * CDRs: group deleted, and recurring donation deleted for the one cancelled with it.
   * @throws NotFoundError (errorCode 5).
   */
  async deleteGroup(caller: GroupCaller, id: string): Promise<void> {
    await retryingTransaction(this.db, async (trx) => {
      const group = await findGroup(trx, caller.tenantId, id, true);
      if (!group) throw sqsError.groupNotFound(id);
      const cancelled = (await listRecurring(trx, caller.tenantId, { groupId: id }, 0, 100)).rows;
      await deleteGroup(trx, id);
      await this.cdrs.group(trx, caller, GroupTx.DELETED, group);
      for (const rec of cancelled)
        await this.cdrs.recurring(trx, caller, RecurringTx.DELETED, rec, group.name);
      await recordEvent(trx, this.clock, groupEvent(EventType.groupDeleted, group, this.clock));
    });
  }

  /**
   * `POST /sqs/api/groups/<id>/members`: group 404/5; quota range by the group's quota type 412;
   * the owner 422/3; not a subscriber 422/12; already a member 409/1; group full
   * (MAX_GROUP_SIZE) 422/6; share quotas over 10^7 in total 422/4. The group row is locked, so
   * simultaneous additions cannot pass either limit. `idempotencyKey` as for {@link DonationService.donate}.
   */
  addMember(
    caller: GroupCaller,
    groupId: string,
    input: unknown,
    idempotencyKey?: string | null,
  ): Promise<MemberRow> {
    const opts = { mode: 'add' as const, operation: 'addGroupMember', request: { groupId, body: input } };
    return this.members.putMember(caller, groupId, input, opts, idempotencyKey);
  }

  /**
   * Removes a member: group 404/5, member not in the group 404/14.
   * @returns the member removed.
   */
  async removeMember(caller: GroupCaller, groupId: string, memberId: string): Promise<MemberRow> {
    const m = requireMsisdn(memberId, 'memberId');
    return retryingTransaction(this.db, async (trx) => {
      const group = await findGroup(trx, caller.tenantId, groupId, true);
      if (!group) throw sqsError.groupNotFound(groupId);
      const member = (await membersOf(trx, [groupId])).find((x) => x.memberMsisdn === m);
      if (!(await deleteMember(trx, groupId, m, this.clock.nowMs())))
        throw sqsError.notFound(SqsCode.SUBSCRIBER_NOT_FOUND, `${m} is not a member of group ${groupId}`);
      const removed = member ?? { memberMsisdn: m, quota: 0 };
      await this.cdrs.group(trx, caller, GroupTx.MEMBER_DELETED, group, removed);
      await recordEvent(
        trx,
        this.clock,
        memberEvents(group, [{ member: removed, change: 'removed' }], this.clock)[0],
      );
      return { groupId, createdAt: 0, ...removed };
    });
  }
}

/**
 * The store filter of a group list: `ownerId` and/or `memberId`, canonical.
 * @throws BadUserInputError 412 when neither is given or one is not an MSISDN.
 */
function groupFilter(by: { ownerId: string | null; memberId: string | null }): {
  ownerMsisdn?: string;
  memberMsisdn?: string;
} {
  if (by.ownerId === null && by.memberId === null)
    throw sqsError.invalid('ownerId', 'give ownerId or memberId');
  return {
    ownerMsisdn: by.ownerId === null ? undefined : requireMsisdn(by.ownerId, 'ownerId'),
    memberMsisdn: by.memberId === null ? undefined : requireMsisdn(by.memberId, 'memberId'),
  };
}
