import { ClassType, Field, InterfaceType, ObjectType } from 'type-graphql';
import { DomainError, domainErrorOf } from '../errors';
import type { GatewayContext } from './context';

/**
 * Mutation payloads with typed errors (docs/graphql.md "Mutations"; Shopify's `userErrors`
 * model): every mutation returns `<Mutation>Payload { <the entity> userErrors: [<X>UserError!]! }`.
 * A refusal the caller can act on (bad input, not found, conflict, a business rule) is a
 * `userErrors` entry with an enum `code`, the input `field` path and a `message`, and the entity
 * is null; what the caller cannot fix by changing the input (no credentials, no permission, the
 * database unavailable, a deadline) stays a GraphQL error with `extensions.code`.
 */

/** The fields every user error has; each mutation's error type adds its own `code` enum. */
@InterfaceType('UserError', {
  description:
    'A refusal the caller can act on: what was wrong with the input or the state, and where. Each mutation has its own error type with an enum `code`.',
  resolveType: (value: { [USER_ERROR_TYPE]?: string }) => value[USER_ERROR_TYPE],
})
export abstract class UserErrorInterface {
  @Field(() => [String], {
    nullable: true,
    description:
      'Path of the offending input field from the mutation\'s arguments, e.g. `["input", "recipients", "0", "quota"]`; null when the error is not about one field.',
  })
  field!: string[] | null;

  @Field(() => String, { description: 'What went wrong, in English, for a log or a developer.' })
  message!: string;
}

/** Property carrying a user error's GraphQL type name (for the `UserError` interface). */
export const USER_ERROR_TYPE = Symbol('user error type');

/** One user error value as a resolver returns it. */
export interface UserError<C extends string> {
  code: C;
  field: string[] | null;
  message: string;
  [USER_ERROR_TYPE]?: string;
}

/**
 * The object type `<name>` (e.g. `CreateGroupUserError`) implementing `UserError` with
 * `code: <codeEnum>!`; `codeEnum` must be registered with type-graphql's `registerEnumType`.
 */
export function userErrorType<C extends string>(
  name: string,
  codeEnum: object,
  description: string,
): ClassType<UserError<C>> {
  @ObjectType(name, { implements: UserErrorInterface, description })
  class UserErrorType extends UserErrorInterface {
    @Field(() => codeEnum, { description: 'What kind of refusal: switch on this, not on `message`.' })
    code!: C;
  }
  Object.defineProperty(UserErrorType.prototype, USER_ERROR_TYPE, { value: name });
  return UserErrorType as unknown as ClassType<UserError<C>>;
}

/** GraphQL error codes that become `userErrors` in a payload; every other error stays an error. */
const USER_ERROR_CODES: ReadonlySet<string> = new Set([
  'BAD_USER_INPUT',
  'NOT_FOUND',
  'CONFLICT',
  'UNPROCESSABLE',
]);

/**
 * Splits a field name as services give it (`recipients[2].quota`, `members.0.memberId`) into
 * a path, prefixed by the argument it belongs to (`input` unless `arg` says otherwise).
 */
export function fieldPath(field: string, arg: string | null = 'input'): string[] {
  const parts = field.split(/[.[\]]+/).filter(Boolean);
  return arg ? [arg, ...parts] : parts;
}

/**
 * Runs a mutation's work and builds its payload: `ok(result)` on success with `userErrors: []`;
 * a domain refusal (BAD_USER_INPUT, NOT_FOUND, CONFLICT, UNPROCESSABLE) becomes `userErrors`
 * entries with the code `codeOf` gives (one per offending field, or one without a field), and the
 * payload's entity fields are absent (null). Under a legacy REST row (`ctx.legacyRest`) a refusal
 * is rethrown, so the REST edge answers it with the legacy status and body.
 * @throws what `work` throws otherwise (authentication, permission, unavailability, deadline).
 */
export async function mutationPayload<R, P extends object, C extends string>(
  ctx: GatewayContext,
  work: () => Promise<R>,
  ok: (result: R) => P,
  errorType: string,
  codeOf: (err: DomainError) => C,
  arg: string | null = 'input',
): Promise<Partial<P> & { userErrors: UserError<C>[] }> {
  let result: R;
  try {
    result = await work();
  } catch (err) {
    const d = domainErrorOf(err);
    if (!d || !USER_ERROR_CODES.has(d.code) || ctx.legacyRest) throw err;
    return { userErrors: userErrorsOf(d, codeOf(d), errorType, arg) } as Partial<P> & {
      userErrors: UserError<C>[];
    };
  }
  return { ...ok(result), userErrors: [] };
}

/** The `userErrors` entries of one domain refusal (one per field it names, else one). */
export function userErrorsOf<C extends string>(
  err: DomainError,
  code: C,
  errorType: string,
  arg: string | null = 'input',
): UserError<C>[] {
  const fields = (err.extensions.fields as { field: string; description: string }[] | undefined) ?? [];
  const entries: UserError<C>[] = fields.length
    ? fields.map((f) => ({ code, field: fieldPath(f.field, arg), message: `${f.field} ${f.description}` }))
    : [{ code, field: null, message: err.message }];
  for (const e of entries) Object.defineProperty(e, USER_ERROR_TYPE, { value: errorType });
  return entries;
}
