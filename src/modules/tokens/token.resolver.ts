import { Arg, Authorized, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import { Permission } from '../../auth/permissions';
import { assertPermissions } from '../../graphql/auth-checker';
import { GatewayContext, callerOf } from '../../graphql/context';
import { mutationPayload } from '../../graphql/payload';
import { MsisdnScalar } from '../../graphql/scalars';
import {
  GrantType,
  IssueTokenPayload,
  IssueTokenUserErrorCode,
  RevokeTokenPayload,
  RevokeTokenUserErrorCode,
  TokenIntrospectionType,
} from './token.types';

/**
 * The `introspectToken` field (CONTRACT §3): the resolver's whole work, its one permission check
 * included, shared with the `POST /token/introspect` row's `resolve` (src/rest/routes.ts), which
 * answers without GraphQL execution (the hottest path). `token` is non-null (the REST rows answer
 * a missing one with the legacy message before calling this). `wrap` shapes the answer in the
 * same step (the REST row's `{ introspectToken }`), so that costs no promise more.
 * @throws UnauthenticatedError, ForbiddenError without TOKEN_INTROSPECT (synchronously); the
 * promise rejects with BadUserInputError for an empty token, and with database failures.
 */
export function introspectTokenField<T = TokenIntrospectionType>(
  ctx: GatewayContext,
  token: string,
  wrap: (introspection: TokenIntrospectionType) => T = (introspection) => introspection as T,
): Promise<T> {
  assertPermissions(ctx, [Permission.TOKEN_INTROSPECT]);
  // A `then` rather than an async function: one promise less on the busiest path.
  return ctx.services.tokens
    .introspect(callerOf(ctx), token)
    .then((r) =>
      wrap(r.active ? r : { active: false, clientId: null, expiry: null, issuedAt: null, issuedBy: null }),
    );
}

/** Token operations (CONTRACT §3); the rules live in TokenService. Tokens are not entities. */
@Resolver()
export class TokenResolver {
  @Authorized(Permission.TOKEN_ISSUE)
  @Mutation(() => IssueTokenPayload, {
    description:
      'Issues a bearer token for a subscriber of your tenant (POST /token). Refusals are in `userErrors`. Needs TOKEN_ISSUE.',
  })
  issueToken(
    @Arg('clientId', () => MsisdnScalar, { description: 'The subscriber the token is for.' })
    clientId: string,
    @Arg('grantType', () => GrantType, { description: 'The grant: `CLIENT_CREDENTIALS`.' })
    grantType: GrantType,
    @Ctx() ctx: GatewayContext,
  ): Promise<Partial<IssueTokenPayload>> {
    return mutationPayload(
      ctx,
      () => ctx.services.tokens.issue(callerOf(ctx), grantType, clientId),
      (token) => ({ token }),
      'IssueTokenUserError',
      (err) =>
        (err.extensions.fields as { field: string }[] | undefined)?.[0]?.field === 'grantType'
          ? IssueTokenUserErrorCode.UNSUPPORTED_GRANT_TYPE
          : IssueTokenUserErrorCode.INVALID_CLIENT_ID,
      null,
    );
  }

  // No `@Authorized`: introspectTokenField checks TOKEN_INTROSPECT itself (for the REST row's
  // `resolve`, which runs without GraphQL execution), so the check lives in one place.
  @Query(() => TokenIntrospectionType, {
    description:
      "Validates a token in your tenant. Unknown, expired, revoked and other tenants' tokens are inactive; an empty token is BAD_USER_INPUT. Needs TOKEN_INTROSPECT.",
  })
  introspectToken(
    @Arg('token', () => String, { description: 'The token to check.' }) token: string,
    @Ctx() ctx: GatewayContext,
  ): Promise<TokenIntrospectionType> {
    return introspectTokenField(ctx, token);
  }

  @Authorized(Permission.TOKEN_ISSUE)
  @Mutation(() => RevokeTokenPayload, {
    description:
      'Revokes a token of your tenant (RFC 7009: revoking an unknown, expired or already revoked token also succeeds). Refusals are in `userErrors`. Needs TOKEN_ISSUE.',
  })
  revokeToken(
    @Arg('token', () => String, { description: 'The token to revoke.' }) token: string,
    @Ctx() ctx: GatewayContext,
  ): Promise<Partial<RevokeTokenPayload>> {
    return mutationPayload(
      ctx,
      () => ctx.services.tokens.revoke(callerOf(ctx), token),
      (revoked) => ({ revoked }),
      'RevokeTokenUserError',
      () => RevokeTokenUserErrorCode.EMPTY_TOKEN,
      null,
    );
  }
}
