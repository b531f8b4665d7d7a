import { invalidField } from '../errors';
import { MSISDN_RULE, normalizeMsisdn, requireMsisdn } from '../lib/msisdn';
import { checkBulkSize } from '../modules/sharing/group-member.service';
import {
  Checker,
  Json,
  MAX_RECIPIENTS_PER_REQUEST,
  jsonTypeOf,
  parseGroupRequest,
  parseGroupUpdate,
  parseMemberRequest,
  parseDonationRequest,
} from '../modules/sharing/sharing-request';

/**
 * Legacy SQS bodies → the typed GraphQL inputs (CONTRACT §7), at the edge. Only the JSON
 * types are judged here: a field of the wrong JSON type is 400 `{errorCode: 1, message}` with
 * the legacy message (`invalid donation: donorId must be a JSON string`: the first such field in
 * the order the legacy parser read them), because GraphQL coercion could not carry it. Unknown
 * fields are dropped (CONTRACT §1). Presence, ranges and every business rule are the service's
 * (412, 404, 409, 422), on the typed input, so REST and GraphQL answer alike.
 */

type TypeOf = 'string' | 'number' | 'array' | 'object';

/** Reads `key` of `obj` when it has JSON type `type`; null when absent; notes a type error otherwise. */
const take = (c: Checker, obj: Json, key: string, type: TypeOf, field = key): unknown =>
  c.read(obj, key, type, field, false) ?? (obj[key] === undefined ? undefined : null);

/** The checker's verdict: 400 on the first wrongly typed field. */
function finish<T>(c: Checker, what: string, value: T): T {
  c.done(what);
  return value;
}

/**
 * `{memberId, quota}` at `at` (`''` for a body, `members[i].` in a list) → `GroupMemberInput`.
 */
export function memberFields(c: Checker, obj: Json, at = ''): Json {
  return {
    memberId: take(c, obj, 'memberId', 'string', `${at}memberId`),
    quota: take(c, obj, 'quota', 'number', `${at}quota`),
  };
}

/**
 * A donation or recurring donation body → `DonationInput` / `RecurringDonationInput`. With a
 * `groupId` the group form, read `groupId, donorPlanId, donorId, quotaType` (a `recipients` there
 * is refused by the service whatever its type, so any is passed as `[]`); otherwise `donorId,
 * donorPlanId, quotaType, recipients[i].recipientId, recipients[i].quota` for the first 100
 * recipients (more are refused as too many, so they pass unread as `{}`).
 * @throws BadUserInputError 400 naming the first wrongly typed field.
 */
export function donationInputOf(body: Json, what: string): Json {
  const c = new Checker();
  if (body.groupId !== undefined && body.groupId !== null) {
    const groupId = take(c, body, 'groupId', 'string');
    const donorPlanId = take(c, body, 'donorPlanId', 'number');
    const donorId = take(c, body, 'donorId', 'string');
    const quotaType = take(c, body, 'quotaType', 'string');
    const recipients = body.recipients === undefined || body.recipients === null ? body.recipients : [];
    return finish(c, what, { groupId, donorPlanId, donorId, quotaType, recipients });
  }
  const donorId = take(c, body, 'donorId', 'string');
  const donorPlanId = take(c, body, 'donorPlanId', 'number');
  const quotaType = take(c, body, 'quotaType', 'string');
  const list = take(c, body, 'recipients', 'array') as unknown[] | null | undefined;
  const recipients = list?.map((item, i) => {
    if (i >= MAX_RECIPIENTS_PER_REQUEST || item === null) return i >= MAX_RECIPIENTS_PER_REQUEST ? {} : null;
    if (jsonTypeOf(item) !== 'object') return take(c, { item }, 'item', 'object', `recipients[${i}]`);
    const r = item as Json;
    return {
      recipientId: take(c, r, 'recipientId', 'string', `recipients[${i}].recipientId`),
      quota: take(c, r, 'quota', 'number', `recipients[${i}].quota`),
    };
  });
  return finish(c, what, { donorId, donorPlanId, quotaType, recipients });
}

/**
 * A donation or recurring donation body → the `input` variable of `shareQuota` /
 * `createRecurringDonation`. The inputs are typed (MSISDN, Int, SafeInt, the
 * QuotaType enum, non-null donorPlanId and recipient fields), so a legacy body the graph would
 * refuse by coercion is answered here as the legacy path answered it: 400 on the first wrongly
 * typed field ({@link donationInputOf}), then the legacy parser's 412 naming every missing,
 * malformed or out-of-range field, before the operation runs. A body that passes is valid for
 * the graph's types, except a `donorPlanId` above 2147483647 (no plan has one), which GraphQL's
 * Int refuses. `quotaType` becomes its enum name (`AMOUNT`, `SHARE`).
 * @throws BadUserInputError 400 (wrong JSON type) or 412 (CONTRACT §5, each field listed).
 */
export function donationVariablesOf(body: Json, recurring: boolean): Json {
  const input = donationInputOf(body, recurring ? 'invalid recurring donation' : 'invalid donation');
  parseDonationRequest(input, recurring);
  const quotaType = input.quotaType;
  return { ...input, quotaType: typeof quotaType === 'string' ? quotaType.toUpperCase() : quotaType };
}

/** A body of string fields `keys`, read in that order. */
function stringsOf(body: Json, keys: string[], what: string): Json {
  const c = new Checker();
  return finish(c, what, Object.fromEntries(keys.map((k) => [k, take(c, body, k, 'string')])));
}

/**
 * `POST /sqs/api/groups` `{ownerId, name, quotaType?}` → `GroupInput`.
 * @throws BadUserInputError 400 naming the first wrongly typed field.
 */
export const groupInputOf = (body: Json): Json =>
  stringsOf(body, ['ownerId', 'name', 'quotaType'], 'invalid group');

/**
 * `PUT /sqs/api/groups/<id>` `{id, ownerId, name}` → `GroupUpdateInput`.
 * @throws BadUserInputError 400 naming the first wrongly typed field.
 */
export const groupUpdateInputOf = (body: Json): Json =>
  stringsOf(body, ['id', 'ownerId', 'name'], 'invalid group');

/**
 * A member body `{memberId, quota}` → `GroupMemberInput`.
 * @throws BadUserInputError 400 naming the first wrongly typed field.
 */
export function memberInputOf(body: Json): Json {
  const c = new Checker();
  return finish(c, 'invalid member', memberFields(c, body));
}

/**
 * A bulk body `{members: [...]}` → its list, each item read by `item` (400 when `members` is
 * not a JSON array, or an item not of the item's type).
 */
export function bulkInputOf<T>(
  body: Json,
  item: (c: Checker, value: unknown, at: string) => T,
): T[] | null | undefined {
  const c = new Checker();
  const list = take(c, body, 'members', 'array') as unknown[] | null | undefined;
  return finish(
    c,
    'invalid members',
    list?.map((v, i) => item(c, v, `members[${i}]`)),
  );
}

/**
 * A bulk add item: `{memberId, quota}`; null passes as `{}` (the service names its missing
 * `members[i].memberId`); another JSON type is 400.
 */
export const bulkMember = (c: Checker, v: unknown, at: string): unknown => {
  if (v === null) return {};
  if (jsonTypeOf(v) !== 'object') return take(c, { v }, 'v', 'object', at);
  return memberFields(c, v as Json, `${at}.`);
};

/**
 * A bulk delete item: an MSISDN string; null passes as `''` (the service refuses it on
 * `members[i]` as no MSISDN); another JSON type is 400.
 */
export const bulkMsisdn = (c: Checker, v: unknown, at: string): unknown =>
  v === null ? '' : take(c, { v }, 'v', 'string', at);

/*
 * The group rows' variables: GraphQL's group inputs are typed (MSISDN, SafeInt,
 * QuotaType, non-null), so a legacy body that lacks a field or holds a malformed one is answered
 * here, at the edge, with the error the service's parser gave for it before: 400 for a wrong JSON
 * type, then 412 naming every missing or invalid field. Each check runs where the service ran it
 * (before any read), so the answers do not change; the one exception is named at
 * {@link bulkMemberVariablesOf}.
 */

/**
 * `POST /sqs/api/groups` → `GroupInput` variables (MSISDN canonical, quotaType as the enum name,
 * absent when the body has none).
 * @throws BadUserInputError 400 (wrong JSON type) or 412 (missing or invalid), naming each field.
 */
export function groupVariablesOf(body: Json): Json {
  const input = groupInputOf(body);
  const g = parseGroupRequest(input);
  // An absent quotaType stays absent (not null), so the idempotency fingerprint of the request is
  // the one the same body had before the input was typed.
  const quotaType = input.quotaType === null || input.quotaType === undefined ? input.quotaType : g.quotaType;
  return { ownerId: g.ownerId, name: g.name, quotaType: quotaType?.toUpperCase() ?? quotaType };
}

/**
 * `PUT /sqs/api/groups/<id>` → `GroupUpdateInput` variables.
 * @throws BadUserInputError 400 or 412, naming each field.
 */
export function groupUpdateVariablesOf(body: Json): Json {
  return parseGroupUpdate(groupUpdateInputOf(body));
}

/**
 * A member body → `GroupMemberInput` variables (the quota's range is the group's, judged by the
 * service).
 * @throws BadUserInputError 400 or 412, naming each field.
 */
export function memberVariablesOf(body: Json): Json {
  const m = parseMemberRequest(memberInputOf(body), undefined);
  return { memberId: m.memberId, quota: m.quota };
}

/**
 * A member MSISDN of a path (`/members/<memberId>`), canonical.
 * @throws BadUserInputError 412 on `memberId`.
 */
export const memberIdParamOf = (value: string): string => requireMsisdn(value, 'memberId');

/**
 * `_bulk/add` `{members: [...]}` → `[GroupMemberInput!]!` variables: the list present with
 * 1-100 entries (412 `members`), each entry's `memberId` and `quota` present, the MSISDN valid
 * and the quota an integer (412 `members[i].memberId` / `members[i].quota`), the first failing
 * entry answering. The quota's range, duplicates and every rule that reads the group are the
 * service's. One order differs from the legacy path, which judged an entry's shape only after
 * reading the group and judging the entries before it: a body holding such a malformed entry now
 * answers its 412 even when the group is unknown (was 404/5), an earlier entry breaks a rule of
 * the group (was that entry's 412/422), or its Idempotency-Key was used for another body (was
 * 422/1). Well-formed bodies answer as before.
 * @throws BadUserInputError 400 or 412.
 */
export function bulkMemberVariablesOf(body: Json): Json[] {
  const list = bulkInputOf(body, bulkMember) as Json[] | null | undefined;
  checkBulkSize(list);
  return list.map((e, i) => {
    if (e.memberId === null || e.memberId === undefined)
      throw invalidField(`members[${i}].memberId`, 'is required');
    if (e.quota === null || e.quota === undefined) throw invalidField(`members[${i}].quota`, 'is required');
    const memberId = normalizeMsisdn(e.memberId);
    if (memberId === null) throw invalidField(`members[${i}].memberId`, MSISDN_RULE);
    if (!Number.isSafeInteger(e.quota)) throw invalidField(`members[${i}].quota`, 'must be an integer');
    return { memberId, quota: e.quota };
  });
}

/**
 * `_bulk/delete` `{members: ["<msisdn>", ...]}` → `[MSISDN!]!` variables: 1-100 entries (412
 * `members`), each an MSISDN (412 `members[i]`).
 * @throws BadUserInputError 400 or 412.
 */
export function bulkMsisdnVariablesOf(body: Json): string[] {
  const list = bulkInputOf(body, bulkMsisdn) as string[] | null | undefined;
  checkBulkSize(list);
  return list.map((m, i) => requireMsisdn(m, `members[${i}]`));
}
