import { Field, Int, ObjectType, registerEnumType } from 'type-graphql';
import { MsisdnScalar, SafeIntScalar } from '../../graphql/scalars';
import { userErrorType } from '../../graphql/payload';

/*
 * Tokens are not entities (no `Node`): a token is a secret, never listed or refetched by an id;
 * an introspection result and an issued token are values of the call that produced them.
 */

/** The OAuth 2.0 grant types `issueToken` accepts (RFC 6749 §4.4; CONTRACT §3): the stored strings. */
export enum GrantType {
  CLIENT_CREDENTIALS = 'client_credentials',
}

registerEnumType(GrantType, {
  name: 'GrantType',
  description: 'An OAuth 2.0 grant type.',
  valuesConfig: {
    CLIENT_CREDENTIALS: {
      description: 'Client credentials grant (RFC 6749 §4.4): the API client asks for a subscriber token.',
    },
  },
});

/** GraphQL view of an issued token (the `POST /token` 201 body, CONTRACT §3). */
@ObjectType('IssuedToken', { description: 'A bearer token issued for a roaming subscriber (POST /token).' })
export class IssuedTokenType {
  @Field(() => String, {
    description: 'The opaque token (256 random bits, URL-safe); append it to the captive-portal URL.',
  })
  accessToken!: string;

  @Field(() => String, { description: 'Always `bearer`.' })
  tokenType!: string;

  @Field(() => Int, { description: 'Lifetime of the token in seconds (TOKEN_TTL_SECONDS, default 3600).' })
  expiresIn!: number;
}

/** GraphQL view of an introspection result (the `POST /token/introspect` body, CONTRACT §3). */
@ObjectType('TokenIntrospection', { description: 'Whether a token is active (POST /token/introspect).' })
export class TokenIntrospectionType {
  @Field(() => Boolean, {
    description: 'True when the token exists in your tenant, is not revoked and has not expired.',
  })
  active!: boolean;

  @Field(() => MsisdnScalar, {
    nullable: true,
    description: 'The subscriber the token was issued for; null when inactive.',
  })
  clientId!: string | null;

  @Field(() => SafeIntScalar, {
    nullable: true,
    description: 'Expiry in Unix epoch seconds; null when inactive.',
  })
  expiry!: number | null;

  @Field(() => SafeIntScalar, {
    nullable: true,
    description: 'Issue time in Unix epoch seconds (RFC 7662 `iat`); null when inactive.',
  })
  issuedAt!: number | null;

  @Field(() => String, {
    nullable: true,
    description:
      'Username of the API client that issued the token (RFC 7662 `client_id`); null when inactive.',
  })
  issuedBy!: string | null;
}

/** Why `issueToken` refused. */
export enum IssueTokenUserErrorCode {
  UNSUPPORTED_GRANT_TYPE = 'UNSUPPORTED_GRANT_TYPE',
  INVALID_CLIENT_ID = 'INVALID_CLIENT_ID',
}

registerEnumType(IssueTokenUserErrorCode, {
  name: 'IssueTokenUserErrorCode',
  description: 'Why `issueToken` refused.',
  valuesConfig: {
    UNSUPPORTED_GRANT_TYPE: { description: 'The grant type is not one the gateway issues tokens for.' },
    INVALID_CLIENT_ID: { description: '`clientId` is not a subscriber MSISDN.' },
  },
});

/** A refusal of `issueToken`. */
export const IssueTokenUserError = userErrorType<IssueTokenUserErrorCode>(
  'IssueTokenUserError',
  IssueTokenUserErrorCode,
  'Why `issueToken` issued no token.',
);

/** What `issueToken` returns. */
@ObjectType('IssueTokenPayload', { description: 'The outcome of `issueToken`.' })
export class IssueTokenPayload {
  @Field(() => IssuedTokenType, {
    nullable: true,
    description: 'The issued token; null when `userErrors` is not empty.',
  })
  token?: IssuedTokenType | null;

  @Field(() => [IssueTokenUserError], { description: 'Why no token was issued; empty on success.' })
  userErrors!: InstanceType<typeof IssueTokenUserError>[];
}

/** Why `revokeToken` refused. */
export enum RevokeTokenUserErrorCode {
  EMPTY_TOKEN = 'EMPTY_TOKEN',
}

registerEnumType(RevokeTokenUserErrorCode, {
  name: 'RevokeTokenUserErrorCode',
  description: 'Why `revokeToken` refused.',
  valuesConfig: {
    EMPTY_TOKEN: { description: '`token` is the empty string.' },
  },
});

/** A refusal of `revokeToken`. */
export const RevokeTokenUserError = userErrorType<RevokeTokenUserErrorCode>(
  'RevokeTokenUserError',
  RevokeTokenUserErrorCode,
  'Why `revokeToken` revoked nothing.',
);

/** What `revokeToken` returns. */
@ObjectType('RevokeTokenPayload', { description: 'The outcome of `revokeToken`.' })
export class RevokeTokenPayload {
  @Field(() => Boolean, {
    nullable: true,
    description:
      'True once the token is revoked, also when it was unknown, expired or already revoked (RFC 7009); null when `userErrors` is not empty.',
  })
  revoked?: boolean | null;

  @Field(() => [RevokeTokenUserError], { description: 'Why nothing was revoked; empty on success.' })
  userErrors!: InstanceType<typeof RevokeTokenUserError>[];
}
