import { Field, Int, ObjectType } from 'type-graphql';
import { SafeIntResolver } from 'graphql-scalars';

/** GraphQL view of an issued token (spec 2.2). */
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

/** GraphQL view of an introspection result (spec 2.3). */
@ObjectType('TokenIntrospection', { description: 'Whether a token is active (POST /token/introspect).' })
export class TokenIntrospectionType {
  @Field(() => Boolean, {
    description: 'True when the token exists in your tenant, is not revoked and has not expired.',
  })
  active!: boolean;

  @Field(() => String, {
    nullable: true,
    description: 'The MSISDN the token was issued for (digits, no `+`); null when inactive.',
  })
  clientId!: string | null;

  @Field(() => SafeIntResolver, {
    nullable: true,
    description: 'Expiry in Unix epoch seconds; null when inactive.',
  })
  expiry!: number | null;

  @Field(() => SafeIntResolver, {
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
