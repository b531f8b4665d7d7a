import { BadUserInputError, FieldError, RequestShapeError } from '../../errors';
import { MSISDN_RULE, normalizeMsisdn } from '../../lib/msisdn';
import { ShareQuotaType } from './sharing.rows';

/**
 * Parsing of quota-sharing request bodies (CONTRACT §1 and §5). One parser serves
 * REST and GraphQL (which passes the same JSON object), so both answer alike:
 * - a field of the wrong JSON type is **400** (CONTRACT §1), naming the field;
 * - a required field missing or a value out of range is **412** with
 *   `{"errors":[{"field","description"}]}` (CONTRACT §5), naming every offending field.
 * Unknown fields are ignored.
 */

/** Share quotas are integers 0..10^7: the percentage times 100000 (CONTRACT §5). */
export const SHARE_QUOTA_MAX = 10_000_000;
/** Most recipients one request may list (a guard; a plan's `maxRecipients` decides 13). */
export const MAX_RECIPIENTS_PER_REQUEST = 100;
/** Longest group name. */
export const GROUP_NAME_MAX = 128;

/** One recipient of a donation: canonical MSISDN and quota (bytes, seconds, minor units or share). */
export interface RecipientQuota {
  recipientId: string;
  quota: number;
}

/** A donation or recurring donation to explicit recipients (CONTRACT §5). */
export interface RecipientsDonationRequest {
  form: 'recipients';
  donorId: string;
  donorPlanId: number;
  quotaType: ShareQuotaType;
  recipients: RecipientQuota[];
}

/** A donation or recurring donation to a group's members (CONTRACT §5). */
export interface GroupDonationRequest {
  form: 'group';
  /** Optional: the donor is the group owner; when given it must be the owner. */
  donorId: string | null;
  donorPlanId: number;
  /** Defaults to the group's quota type. */
  quotaType: ShareQuotaType | null;
  groupId: string;
}

/** Either donation form, told apart by the body: `groupId` present means the group form. */
export type DonationRequest = RecipientsDonationRequest | GroupDonationRequest;

/** A group to create (CONTRACT §5). */
export interface GroupRequest {
  ownerId: string;
  name: string;
  quotaType: ShareQuotaType;
}

/** A member to add with its quota. */
export interface MemberRequest {
  memberId: string;
  quota: number;
}

/** A JSON object body. */
export type Json = Record<string, unknown>;
type JsonType = 'string' | 'number' | 'array' | 'object';

/** `null`, `array`, or the `typeof` of a JSON value. */
export function jsonTypeOf(v: unknown): string {
  if (v === null) return 'null';
  return Array.isArray(v) ? 'array' : typeof v;
}

/**
 * What is wrong with a quota for a quota type, or null: an integer, 0..10^7 for `share`,
 * 1..2^53-1 for `amount`, a non-negative integer when the type is not known yet.
 */
export function quotaProblem(v: number, type: ShareQuotaType | undefined): string | null {
  if (!Number.isSafeInteger(v)) return 'must be an integer';
  if (type === 'share' && (v < 0 || v > SHARE_QUOTA_MAX))
    return `share quota must be 0-${SHARE_QUOTA_MAX} (percent x 100000)`;
  if (type === 'amount' && v <= 0) return 'amount quota must be greater than 0';
  if (v < 0) return 'must not be negative';
  return null;
}

/**
 * Collects type (400) and validation (412) problems of a JSON body, then throws the stronger
 * one. The REST rows of the wider SQS API use it to map legacy bodies onto typed inputs.
 */
export class Checker {
  private readonly typeErrors: FieldError[] = [];
  private readonly invalid: FieldError[] = [];

  /**
   * The value at `field` when it has `type`; undefined (and a note) when missing (412 when
   * `required`) or mistyped (400).
   */
  read(obj: Json, key: string, type: JsonType, field = key, required = true): unknown {
    const v = obj[key];
    if (v === undefined || v === null) {
      if (required) this.invalid.push({ field, description: 'is required' });
      return undefined;
    }
    if (jsonTypeOf(v) !== type) {
      this.typeErrors.push({ field, description: `must be a JSON ${type}` });
      return undefined;
    }
    return v;
  }

  /** Notes a validation failure (412) on `field`. */
  fail(field: string, description: string): undefined {
    this.invalid.push({ field, description });
    return undefined;
  }

  /** A string field holding an MSISDN, canonical; undefined (and a note) otherwise. */
  msisdn(obj: Json, key: string, field = key, required = true): string | undefined {
    const v = this.read(obj, key, 'string', field, required);
    if (v === undefined) return undefined;
    return normalizeMsisdn(v) ?? this.fail(field, MSISDN_RULE);
  }

  /** A positive integer plan id. */
  planId(obj: Json, key: string): number | undefined {
    const v = this.read(obj, key, 'number') as number | undefined;
    if (v === undefined) return undefined;
    return Number.isSafeInteger(v) && v > 0 ? v : this.fail(key, 'must be a positive integer');
  }

  /** `amount` or `share`. */
  quotaType(obj: Json, required: boolean): ShareQuotaType | undefined {
    const v = this.read(obj, 'quotaType', 'string', 'quotaType', required);
    if (v === undefined) return undefined;
    return v === 'amount' || v === 'share' ? v : this.fail('quotaType', 'must be amount or share');
  }

  /** A quota: an integer, 0..10^7 for `share`, 1..2^53-1 for `amount` (unknown type: either). */
  quota(obj: Json, field: string, type: ShareQuotaType | undefined): number | undefined {
    const v = this.read(obj, 'quota', 'number', field) as number | undefined;
    if (v === undefined) return undefined;
    const problem = quotaProblem(v, type);
    return problem === null ? v : this.fail(field, problem);
  }

  /** A group name: 1-{@link GROUP_NAME_MAX} characters, not blank. */
  groupName(obj: Json): string | undefined {
    const name = this.read(obj, 'name', 'string') as string | undefined;
    if (name !== undefined && (name.trim() === '' || name.length > GROUP_NAME_MAX))
      return this.fail('name', `must be 1-${GROUP_NAME_MAX} characters, not blank`);
    return name;
  }

  /** An id this service issued (1-64 URL-safe characters). */
  id(obj: Json, key: string): string | undefined {
    const v = this.read(obj, key, 'string') as string | undefined;
    if (v === undefined) return undefined;
    return /^[A-Za-z0-9_-]{1,64}$/.test(v) ? v : this.fail(key, 'must be an identifier this service issued');
  }

  /**
   * Throws a RequestShapeError for type errors (REST 400), else a BadUserInputError for
   * validation failures (REST 412 on the quota-sharing paths).
   */
  done(what: string): void {
    if (this.typeErrors.length)
      throw new RequestShapeError(
        `${what}: ${this.typeErrors[0].field} ${this.typeErrors[0].description}`,
        this.typeErrors,
      );
    if (this.invalid.length)
      throw new BadUserInputError(
        `${what}: ${this.invalid[0].field} ${this.invalid[0].description}`,
        this.invalid,
      );
  }
}

function recipientsOf(c: Checker, body: Json, type: ShareQuotaType | undefined): RecipientQuota[] {
  const list = c.read(body, 'recipients', 'array') as unknown[] | undefined;
  if (list === undefined) return [];
  if (list.length === 0) c.fail('recipients', 'must list at least one recipient');
  if (list.length > MAX_RECIPIENTS_PER_REQUEST)
    c.fail('recipients', `must list at most ${MAX_RECIPIENTS_PER_REQUEST} recipients`);
  const seen = new Set<string>();
  const out: RecipientQuota[] = [];
  list.slice(0, MAX_RECIPIENTS_PER_REQUEST).forEach((item, i) => {
    const at = `recipients[${i}]`;
    if (jsonTypeOf(item) !== 'object') {
      c.read({ r: item }, 'r', 'object', at);
      return;
    }
    const recipientId = c.msisdn(item as Json, 'recipientId', `${at}.recipientId`);
    const quota = c.quota(item as Json, `${at}.quota`, type);
    if (recipientId !== undefined && seen.has(recipientId)) c.fail(`${at}.recipientId`, 'is listed twice');
    if (recipientId !== undefined) seen.add(recipientId);
    if (recipientId !== undefined && quota !== undefined) out.push({ recipientId, quota });
  });
  return out;
}

/**
 * Parses a donation body (either form) or a recurring donation body (CONTRACT §5). With
 * `groupId` the body is the group form (`donorPlanId`, `groupId`, optional `donorId`: the donor
 * is the group owner, published form); otherwise `donorId`, `donorPlanId`, `quotaType` and a non-empty `recipients[]` of
 * distinct `recipientId`s with integer quotas are required.
 * @throws BadUserInputError 400 (wrong JSON type) or 412 (missing, out of range, duplicate).
 */
export function parseDonationRequest(body: unknown, recurring = false): DonationRequest {
  const what = recurring ? 'invalid recurring donation' : 'invalid donation';
  const c = new Checker();
  const obj = (jsonTypeOf(body) === 'object' ? body : {}) as Json;
  if (obj.groupId !== undefined && obj.groupId !== null) {
    const groupId = c.id(obj, 'groupId');
    const donorPlanId = c.planId(obj, 'donorPlanId');
    // Optional in both forms: the donor is the group owner (published `{donorPlanId, groupId}`).
    const donorId = c.msisdn(obj, 'donorId', 'donorId', false);
    const quotaType = c.quotaType(obj, false);
    if (obj.recipients !== undefined && obj.recipients !== null)
      c.fail('recipients', 'give recipients or groupId, not both');
    c.done(what);
    return {
      form: 'group',
      groupId: groupId!,
      donorPlanId: donorPlanId!,
      donorId: donorId ?? null,
      quotaType: quotaType ?? null,
    };
  }
  const donorId = c.msisdn(obj, 'donorId');
  const donorPlanId = c.planId(obj, 'donorPlanId');
  const quotaType = c.quotaType(obj, true);
  const recipients = recipientsOf(c, obj, quotaType);
  c.done(what);
  return {
    form: 'recipients',
    donorId: donorId!,
    donorPlanId: donorPlanId!,
    quotaType: quotaType!,
    recipients,
  };
}

/**
 * Parses `POST /sqs/api/groups` `{ownerId, name, quotaType?}`; `quotaType` defaults to `share`.
 * @throws BadUserInputError 400 (wrong JSON type) or 412 (missing or invalid).
 */
export function parseGroupRequest(body: unknown): GroupRequest {
  const c = new Checker();
  const obj = (jsonTypeOf(body) === 'object' ? body : {}) as Json;
  const ownerId = c.msisdn(obj, 'ownerId');
  const name = c.groupName(obj);
  const quotaType = c.quotaType(obj, false) ?? 'share';
  c.done('invalid group');
  return { ownerId: ownerId!, name: name!, quotaType };
}

/**
 * Parses `PUT /sqs/api/groups/<id>` `{id, ownerId, name}` (`GroupUpdateInput`), all required.
 * @throws BadUserInputError 400 (wrong JSON type) or 412 (missing or invalid), naming each field.
 */
export function parseGroupUpdate(body: unknown): { id: string; ownerId: string; name: string } {
  const c = new Checker();
  const obj = (jsonTypeOf(body) === 'object' ? body : {}) as Json;
  const id = c.read(obj, 'id', 'string') as string | undefined;
  const ownerId = c.msisdn(obj, 'ownerId');
  const name = c.groupName(obj);
  c.done('invalid group');
  return { id: id!, ownerId: ownerId!, name: name! };
}

/**
 * Parses `POST /sqs/api/groups/<id>/members` `{memberId, quota}`; the quota is checked against
 * the group's quota type (`share` 0..10^7, `amount` > 0; undefined: only a non-negative integer).
 * @throws BadUserInputError 400 (wrong JSON type) or 412 (missing or out of range).
 */
export function parseMemberRequest(body: unknown, type: ShareQuotaType | undefined): MemberRequest {
  const c = new Checker();
  const obj = (jsonTypeOf(body) === 'object' ? body : {}) as Json;
  const memberId = c.msisdn(obj, 'memberId');
  const quota = c.quota(obj, 'quota', type);
  c.done('invalid member');
  return { memberId: memberId!, quota: quota! };
}
