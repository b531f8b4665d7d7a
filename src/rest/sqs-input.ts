import {
  Checker,
  Json,
  MAX_RECIPIENTS_PER_REQUEST,
  jsonTypeOf,
  parseDonationRequest,
} from '../modules/sharing/sharing-request';

/**
 * Legacy SQS bodies → the typed GraphQL inputs (issue 11 Part 1), at the edge. Only the JSON
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
 * `createRecurringDonation` (issue 29). The inputs are typed (MSISDN, Int, SafeInt, the
 * QuotaType enum, non-null donorPlanId and recipient fields), so a legacy body the graph would
 * refuse by coercion is answered here as the legacy path answered it: 400 on the first wrongly
 * typed field ({@link donationInputOf}), then the legacy parser's 412 naming every missing,
 * malformed or out-of-range field, before the operation runs. A body that passes is valid for
 * the graph's types, except a `donorPlanId` above 2147483647 (no plan has one), which GraphQL's
 * Int refuses. `quotaType` becomes its enum name (`AMOUNT`, `SHARE`).
 * @throws BadUserInputError 400 (wrong JSON type) or 412 (spec 4.8, each field listed).
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
