import { Knex } from 'knex';
import { lockingTransaction } from '../../db/knex';
import { ConflictError, NotFoundError, UnprocessableError, invalidField } from '../../errors';
import { Clock } from '../../lib/clock';
import { MSISDN_RULE, normalizeMsisdn, requireMsisdn } from '../../lib/msisdn';
import { CdrRecorder } from '../cdrs/cdr.recorder';
import { GroupTx } from '../cdrs/cdr.layouts';
import { EventType } from '../events/event-catalogue';
import { recordEvent, recordEvents } from '../events/outbox.store';
import { groupEvent, memberEvents } from '../events/sharing-events';
import { IdempotencyService } from '../idempotency/idempotency.service';
import { SubscriberService } from '../subscribers/subscriber.service';
import { SqsCode } from './error-codes';
import {
  deleteMembers,
  findGroup,
  insertMember,
  membersOf,
  ownerHasGroupNamed,
  renameGroup,
  updateMemberQuota,
} from './group.store';
import { SharingLanes } from './lanes';
import { SHARE_QUOTA_MAX, parseGroupUpdate, parseMemberRequest, quotaProblem } from './sharing-request';
import { GroupRow, MemberRow } from './sharing.rows';

/** The caller's tenant and API client username (`actor`, named by the CDRs; absent: `sqs`). */
export interface GroupCaller {
  tenantId: number;
  actor?: string;
}

/**
 * A member and its quota as given (`GroupMemberInput`; both required, checked here): `share`
 * 0..10^7 (percent × 100000) or an `amount` in the plan unit (> 0).
 */
export interface MemberQuota {
  memberId?: string | null;
  quota?: number | null;
}

/** Most entries one bulk member request may list (CONTRACT §5: 1–100). */
export const MAX_BULK_MEMBERS = 100;

/** Members per page of `GET /sqs/api/groups/<id>/members` (published). */
export const MEMBER_PAGE_SIZE = 100;

/**
 * How {@link GroupMemberService.writeMembers} treats a member already in the group: `add` refuses it
 * (409/1, `POST .../members`), `upsert` sets its quota (`PUT .../members/<id>`, `_bulk/add`).
 */
type WriteMode = 'add' | 'upsert';

/**
 * Groups and members (CONTRACT §5, "the wider published SQS API"): renaming a group, adding or
 * updating members one at a time or in bulk, removing several, paging members. Every write
 * takes the group's lane ({@link SharingLanes}) and locks the group row in a READ COMMITTED
 * transaction, so simultaneous writes to one group are judged one after the other and cannot
 * pass `MAX_GROUP_SIZE` (6) or the share sum (4) together; with an idempotency key a repeat
 * replays the first result ({@link IdempotencyService.run}). A refused request changes nothing.
 */
export class GroupMemberService {
  constructor(
    private readonly db: Knex,
    private readonly clock: Clock,
    private readonly limits: { maxGroupSize: number },
    private readonly idempotency: IdempotencyService,
    private readonly lanes: SharingLanes,
    private readonly subscribers: SubscriberService,
    /** Group CDRs (service ID 98, CONTRACT §8). */
    private readonly cdrs: CdrRecorder = new CdrRecorder(clock),
  ) {}

  /**
   * `PUT /sqs/api/groups/<id>` (`GroupUpdateInput`): renames a group. Checks in order: `id`,
   * `ownerId` and `name` present, `ownerId` an MSISDN, `name` 1-128 characters (412 naming each),
   * `input.id` = `id` (412 `id`), group 404/5, `ownerId` the group's owner (412 `ownerId`), the
   * owner's other group with that name 409/2.
   * @returns the group with `updated` advanced.
   */
  updateGroup(
    caller: GroupCaller,
    id: string,
    input: unknown,
    idempotencyKey?: string | null,
  ): Promise<GroupRow> {
    const { id: inputId, ownerId, name } = parseGroupUpdate(input);
    if (inputId !== id) throw invalidField('id', 'must be the group id of the path');
    return this.write(caller, id, 'updateGroup', { id, input }, idempotencyKey, async (trx, group) => {
      if (ownerId !== group.ownerMsisdn) throw invalidField('ownerId', 'the owner of a group cannot change');
      if (await ownerHasGroupNamed(trx, caller.tenantId, ownerId, name, id))
        throw new ConflictError(`owner ${ownerId} already has a group named ${name}`, {
          errorCode: SqsCode.GROUP_NOT_UNIQUE,
        });
      const now = Math.max(this.clock.nowMs(), group.updatedAt + 1);
      await renameGroup(trx, id, name, now);
      const renamed = { ...group, name, updatedAt: now };
      await this.cdrs.group(trx, caller, GroupTx.UPDATED, renamed);
      await recordEvent(trx, this.clock, groupEvent(EventType.groupUpdated, renamed, this.clock));
      return renamed;
    });
  }

  /**
   * `POST /sqs/api/groups/<id>/members` (`mode` add: a member already there is 409/1) and
   * `PUT .../members/<memberId>` (`mode` upsert: its quota is set), input `GroupMemberInput`.
   * First, before the group is read: both fields present, `memberId` an MSISDN, `quota` a
   * non-negative integer (412 naming each); for `PUT`, `pathMemberId` the input's `memberId`
   * (412 `memberId`). Then the rules of {@link writeMembers} with the fields named `memberId`
   * and `quota`.
   */
  putMember(
    caller: GroupCaller,
    groupId: string,
    input: unknown,
    opts: { mode: WriteMode; pathMemberId?: string; operation: string; request: unknown },
    idempotencyKey?: string | null,
  ): Promise<MemberRow> {
    const member = parseMemberRequest(input, undefined);
    if (opts.pathMemberId !== undefined) {
      const path = requireMsisdn(opts.pathMemberId, 'memberId');
      if (normalizeMsisdn(member.memberId) !== path)
        throw invalidField('memberId', 'must be the memberId of the path');
    }
    return this.write(caller, groupId, opts.operation, opts.request, idempotencyKey, async (trx, group) => {
      const [row] = await this.writeMembers(trx, caller, group, [member], opts.mode, (_, f) => f);
      return row;
    });
  }

  /**
   * `PUT /sqs/api/groups/<id>/members/_bulk/add`: 1-100 entries, no memberId twice (412
   * `members[i].memberId`); each added or its quota updated, all or nothing. Limits are judged
   * on the group as it would be after the whole request.
   * @returns the members written, in request order.
   */
  addMembers(
    caller: GroupCaller,
    groupId: string,
    members: MemberQuota[] | null | undefined,
    idempotencyKey?: string | null,
  ): Promise<MemberRow[]> {
    checkBulkSize(members);
    return this.write(
      caller,
      groupId,
      'addGroupMembers',
      { groupId, members },
      idempotencyKey,
      (trx, group) =>
        this.writeMembers(trx, caller, group, members, 'upsert', (i, f) => `members[${i}].${f}`),
    );
  }

  /**
   * `PUT /sqs/api/groups/<id>/members/_bulk/delete`: 1-100 MSISDNs (412 `members[i]` for one
   * that is not); those that are members are removed, all at once; others are ignored.
   * @returns the members removed.
   */
  removeMembers(
    caller: GroupCaller,
    groupId: string,
    memberIds: string[] | null | undefined,
    idempotencyKey?: string | null,
  ): Promise<MemberRow[]> {
    checkBulkSize(memberIds);
    const msisdns = memberIds.map((m, i) => requireMsisdn(m, `members[${i}]`));
    return this.write(
      caller,
      groupId,
      'removeGroupMembers',
      { groupId, memberIds },
      idempotencyKey,
      async (trx, group) => {
        const removed = (await membersOf(trx, [groupId])).filter((m) => msisdns.includes(m.memberMsisdn));
        await deleteMembers(trx, groupId, msisdns, this.clock.nowMs());
        for (const m of removed) await this.cdrs.group(trx, caller, GroupTx.MEMBER_DELETED, group, m);
        const changes = removed.map((member) => ({ member, change: 'removed' as const }));
        await recordEvents(trx, this.clock, memberEvents(group, changes, this.clock));
        return removed;
      },
    );
  }

  /**
   * One page (0-based) of a group's members in joining order, {@link MEMBER_PAGE_SIZE} per page.
   * @throws NotFoundError (errorCode 5); BadUserInputError 412 on `page` when not 0-1000000.
   */
  async memberPage(
    caller: GroupCaller,
    groupId: string,
    page: number,
  ): Promise<{ rows: MemberRow[]; total: number; page: number; size: number }> {
    checkPage(page);
    if (!(await findGroup(this.db, caller.tenantId, groupId))) throw groupNotFound(groupId);
    const all = await membersOf(this.db, [groupId]);
    const rows = all.slice(page * MEMBER_PAGE_SIZE, (page + 1) * MEMBER_PAGE_SIZE);
    return { rows, total: all.length, page, size: MEMBER_PAGE_SIZE };
  }

  /**
   * Runs a write to group `groupId` in the group's lane, under the idempotency key, in a locking
   * transaction with the group row locked.
   * @throws NotFoundError (errorCode 5) when the group is not the tenant's.
   */
  private write<T>(
    caller: GroupCaller,
    groupId: string,
    operation: string,
    request: unknown,
    idempotencyKey: string | null | undefined,
    fn: (trx: Knex.Transaction, group: GroupRow) => Promise<T>,
  ): Promise<T> {
    return this.lanes.oneAtATime(SharingLanes.group(caller.tenantId, groupId), () =>
      this.idempotency.run(
        { tenantId: caller.tenantId, key: idempotencyKey, operation, request },
        (scope) => lockingTransaction(this.db, scope),
        async (trx) => {
          const group = await findGroup(trx, caller.tenantId, groupId, true);
          if (!group) throw groupNotFound(groupId);
          return fn(trx, group);
        },
      ),
    );
  }

  /**
   * Adds or updates `entries` of a locked group. Each entry in order: memberId and quota present
   * (412), memberId an MSISDN, quota in range for the group's quota type (412), not listed twice (412), not the owner (422/3), a
   * subscriber (422/12); in `upsert` mode (the published PUT rows) active (422/14) — the legacy
   * POST accepts an inactive member, whose donations then report 14 — and in `add` mode not
   * already a member (409/1);
   * the first failing entry answers. Then the group as it would be: at most `MAX_GROUP_SIZE`
   * members (422/6), share quotas summing to at most 10^7 (422/4). Fields are named by `field`.
   */
  private async writeMembers(
    trx: Knex.Transaction,
    caller: GroupCaller,
    group: GroupRow,
    entries: MemberQuota[],
    mode: WriteMode,
    field: (index: number, name: 'memberId' | 'quota') => string,
  ): Promise<MemberRow[]> {
    const current = await membersOf(trx, [group.id]);
    const after = new Map(current.map((m) => [m.memberMsisdn, m.quota]));
    const listed = new Set<string>();
    const wanted: { memberId: string; quota: number }[] = [];
    for (const [i, e] of entries.entries()) {
      if (e.memberId === null || e.memberId === undefined)
        throw invalidField(field(i, 'memberId'), 'is required');
      if (e.quota === null || e.quota === undefined) throw invalidField(field(i, 'quota'), 'is required');
      const memberId = normalizeMsisdn(e.memberId);
      if (memberId === null) throw invalidField(field(i, 'memberId'), MSISDN_RULE);
      const problem = quotaProblem(e.quota, group.quotaType ?? 'share');
      if (problem !== null) throw invalidField(field(i, 'quota'), problem);
      if (listed.has(memberId)) throw invalidField(field(i, 'memberId'), 'is listed twice');
      listed.add(memberId);
      if (memberId === group.ownerMsisdn)
        throw unprocessable(SqsCode.OWNER_AS_MEMBER, 'the group owner cannot be a member');
      const sub = await this.subscribers.find(caller.tenantId, memberId, { trx });
      if (!sub) throw unprocessable(SqsCode.RECIPIENT_NOT_FOUND, `member ${memberId} is not a subscriber`);
      if (mode === 'upsert' && sub.status !== 'active')
        throw unprocessable(SqsCode.SUBSCRIBER_NOT_FOUND, `member ${memberId} is ${sub.status}`);
      if (mode === 'add' && after.has(memberId))
        throw new ConflictError(`${memberId} is already a member of group ${group.id}`, {
          errorCode: SqsCode.GENERAL,
        });
      after.set(memberId, e.quota);
      wanted.push({ memberId, quota: e.quota });
    }
    if (after.size > this.limits.maxGroupSize)
      throw unprocessable(
        SqsCode.GROUP_SIZE_EXCEEDED,
        `group ${group.id} may have ${this.limits.maxGroupSize} members`,
      );
    if (group.quotaType !== 'amount' && [...after.values()].reduce((s, q) => s + q, 0) > SHARE_QUOTA_MAX)
      throw unprocessable(SqsCode.GROUP_QUOTA_EXCEEDED, 'member share quotas would exceed 100%');
    const now = this.clock.nowMs();
    const joined = new Map(current.map((m) => [m.memberMsisdn, m.createdAt]));
    const out: MemberRow[] = [];
    const changes: Parameters<typeof memberEvents>[1][number][] = [];
    for (const w of wanted) {
      const row: MemberRow = {
        groupId: group.id,
        memberMsisdn: w.memberId,
        quota: w.quota,
        createdAt: joined.get(w.memberId) ?? now,
      };
      if (joined.has(w.memberId)) await updateMemberQuota(trx, group.id, w.memberId, w.quota, now);
      else await insertMember(trx, row);
      await this.cdrs.group(
        trx,
        caller,
        joined.has(w.memberId) ? GroupTx.MEMBER_UPDATED : GroupTx.MEMBER_ADDED,
        group,
        row,
      );
      out.push(row);
      changes.push({ member: row, change: joined.has(w.memberId) ? 'updated' : 'added' });
    }
    await recordEvents(trx, this.clock, memberEvents(group, changes, this.clock));
    return out;
  }
}

const groupNotFound = (id: string) =>
  new NotFoundError(`group ${id} not found`, { errorCode: SqsCode.GROUP_NOT_FOUND });

const unprocessable = (errorCode: number, message: string) => new UnprocessableError(message, { errorCode });

/**
 * A bulk list: present with 1-{@link MAX_BULK_MEMBERS} entries.
 * @throws BadUserInputError 412 on `members` otherwise.
 */
export function checkBulkSize<T>(list: T[] | null | undefined): asserts list is T[] {
  if (list === null || list === undefined) throw invalidField('members', 'is required');
  if (list.length < 1 || list.length > MAX_BULK_MEMBERS)
    throw invalidField('members', `must list 1-${MAX_BULK_MEMBERS} entries`);
}

/**
 * A page number of the SQS lists: 0-1000000.
 * @throws BadUserInputError 412 on `page`.
 */
export function checkPage(page: number): void {
  if (!Number.isSafeInteger(page) || page < 0 || page > 1_000_000)
    throw invalidField('page', 'must be an integer from 0');
}
