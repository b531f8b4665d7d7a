import { GraphQLError, GraphQLScalarType, Kind, ValueNode } from 'graphql';
import { DateTimeResolver, SafeIntResolver } from 'graphql-scalars';
import { Money, MoneyFormatError } from '../lib/money';
import { MSISDN_RULE, normalizeMsisdn } from '../lib/msisdn';

/**
 * The graph's own scalars (docs/graphql.md "Scalars"). Each coerces and rejects at the input, so a
 * resolver never sees a malformed value: a bad literal or variable is a GraphQL validation or
 * coercion error (`BAD_USER_INPUT`, HTTP 400) before any resolver runs.
 */

function stringLiteral(ast: ValueNode, name: string): string {
  if (ast.kind !== Kind.STRING) throw new GraphQLError(`${name} must be given as a string`, { nodes: ast });
  return ast.value;
}

/**
 * An MSISDN (CONTRACT §1): input an optional `+` then 5-15 digits; output (and what resolvers
 * receive) the canonical form, digits only. `+353871234567` and `353871234567` are one subscriber.
 */
export const MsisdnScalar = new GraphQLScalarType<string, string>({
  name: 'MSISDN',
  description:
    'A subscriber number (MSISDN): on input an optional `+` then 5-15 digits, e.g. `+353871234567`; on output the canonical form, digits only (`353871234567`).',
  specifiedByURL: 'https://www.itu.int/rec/T-REC-E.164',
  serialize(value) {
    const m = normalizeMsisdn(value);
    if (m === null) throw new GraphQLError(`MSISDN cannot represent ${String(value)}`);
    return m;
  },
  parseValue(value) {
    const m = normalizeMsisdn(value);
    if (m === null) throw new GraphQLError(`MSISDN ${MSISDN_RULE}`);
    return m;
  },
  parseLiteral(ast) {
    const m = normalizeMsisdn(stringLiteral(ast, 'MSISDN'));
    if (m === null) throw new GraphQLError(`MSISDN ${MSISDN_RULE}`, { nodes: ast });
    return m;
  },
});

function parseDecimal(value: unknown): Money {
  if (typeof value !== 'string') throw new GraphQLError('Decimal must be given as a string, e.g. "1.50"');
  try {
    return Money.parse(value, { allowNegative: true });
  } catch (err) {
    if (err instanceof MoneyFormatError)
      throw new GraphQLError(`Decimal ${err.message}: a decimal string with at most 6 fractional digits`);
    throw err;
  }
}

/**
 * An exact decimal amount of money (CONTRACT §1 "Money"), never binary floating point: a string of
 * digits with an optional `-` and at most 6 fractional digits. Resolvers receive a {@link Money};
 * output accepts a Money or a decimal string and prints Money's form (2-6 fractional digits).
 */
export const DecimalScalar = new GraphQLScalarType<Money, string>({
  name: 'Decimal',
  description:
    'An exact decimal amount in the currency named beside it, as a string: optional `-`, digits, at most 6 fractional digits, e.g. `"12.50"`; output has 2-6 fractional digits. Never a binary float.',
  serialize(value) {
    if (value instanceof Money) return value.toString();
    return parseDecimal(value).toString();
  },
  parseValue: parseDecimal,
  parseLiteral(ast) {
    try {
      return parseDecimal(stringLiteral(ast, 'Decimal'));
    } catch (err) {
      throw new GraphQLError((err as Error).message, { nodes: ast });
    }
  },
});

/**
 * A count of bytes, seconds or minor currency units: a whole number within ±(2^53 − 1)
 * (graphql-scalars' SafeInt), so it never loses precision in JavaScript clients.
 */
export const SafeIntScalar = SafeIntResolver;

/**
 * A point in time: input an RFC 3339 date-time (graphql-scalars' DateTime rules; resolvers
 * receive a `Date`); output an RFC 3339 string in UTC with milliseconds
 * (`2026-11-26T08:00:00.000Z`) from a `Date`, epoch milliseconds or such a string. Output is a
 * string, not graphql-scalars' `Date`, so what a REST row reads in-process is what a client reads.
 * The graph's one way to give a time; RFC 7662's epoch seconds (`TokenIntrospection.expiry`,
 * `issuedAt`) are that protocol's own.
 */
export const DateTimeScalar = new GraphQLScalarType<Date, string>({
  name: 'DateTime',
  description:
    'A point in time, RFC 3339: on output UTC with milliseconds (`2026-11-26T08:00:00.000Z`); on input any RFC 3339 date-time with a zone (`2026-11-26T09:00:00+01:00`).',
  specifiedByURL: 'https://datatracker.ietf.org/doc/html/rfc3339',
  serialize(value) {
    const d = value instanceof Date ? value : new Date(value as string | number);
    if (Number.isNaN(d.getTime())) throw new GraphQLError(`DateTime cannot represent ${String(value)}`);
    return d.toISOString();
  },
  parseValue: (value) => DateTimeResolver.parseValue(value),
  parseLiteral: (ast, variables) => DateTimeResolver.parseLiteral(ast, variables),
});
