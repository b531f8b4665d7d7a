import fc from 'fast-check';
import { GraphQLInputObjectType, coerceInputValue } from 'graphql';
import { BadUserInputError } from '../../src/errors';
import { statusOf } from '../../src/rest/failure';
import { gatewaySchema } from '../../src/graphql/schema';
import {
  parseDonationRequest,
  parseGroupRequest,
  parseMemberRequest,
} from '../../src/modules/sharing/sharing-request';
import { donationInputOf, donationVariablesOf, groupInputOf, memberInputOf } from '../../src/rest/sqs-input';

/** What a parse step answers: its value, or the error's status on an SQS path, message and fields. */
function outcome(fn: () => unknown): unknown {
  try {
    return { ok: fn() };
  } catch (err) {
    if (!(err instanceof BadUserInputError)) throw err;
    return { status: statusOf(err, 'sqs'), message: err.message, fields: err.fields };
  }
}

/**
 * The typed-input path must answer every legacy body exactly as the legacy parser did on the raw
 * body: 400 with the same message from the edge mapping, otherwise the same
 * 412 list or value from the service's parser on the typed input.
 */
function sameAsLegacy(legacy: () => unknown, typed: () => unknown) {
  const before = outcome(legacy) as { status?: number };
  const edge = outcome(typed) as { status?: number; ok?: unknown };
  if (before.status === 400) expect(edge).toEqual(before);
  else {
    expect(edge.status).toBeUndefined();
    return edge.ok;
  }
  return undefined;
}

const leaf = fc.oneof(
  fc.constantFrom(
    '353871000001',
    '+353872000001',
    'abc',
    '',
    'amount',
    'share',
    'AAAAAAAAAAAAAAAAAAAA',
    '../x',
  ),
  fc.integer({ min: -5, max: 20_000_000 }),
  fc.constantFrom(1.5, 1e300, 2 ** 53, 0, 101),
  fc.boolean(),
  fc.constant(null),
  fc.constant([]),
  fc.constant({}),
);
const recipient = fc.oneof(
  leaf,
  fc.record({ recipientId: leaf, quota: leaf, note: leaf }, { requiredKeys: [] }),
);
const donation = fc.record(
  {
    donorId: leaf,
    donorPlanId: leaf,
    quotaType: leaf,
    groupId: leaf,
    recipients: fc.oneof(
      leaf,
      fc.array(recipient, { maxLength: 4 }),
      fc.array(recipient, { minLength: 101, maxLength: 103 }),
    ),
    colour: leaf,
  },
  { requiredKeys: [] },
);

describe('legacy SQS bodies mapped onto typed inputs answer as the legacy parser did', () => {
  it('donations and recurring donations', () => {
    fc.assert(
      fc.property(donation, fc.boolean(), (body, recurring) => {
        const what = recurring ? 'invalid recurring donation' : 'invalid donation';
        const input = sameAsLegacy(
          () => parseDonationRequest(body, recurring),
          () => donationInputOf(body, what),
        );
        if (input !== undefined)
          expect(outcome(() => parseDonationRequest(input, recurring))).toEqual(
            outcome(() => parseDonationRequest(body, recurring)),
          );
      }),
      { numRuns: 2000 },
    );
  });

  it('donation variables: every legacy 400/412 at the edge; what passes coerces to the typed input and parses alike', async () => {
    const schema = await gatewaySchema();
    fc.assert(
      fc.property(donation, fc.boolean(), (body, recurring) => {
        const legacy = outcome(() => parseDonationRequest(body, recurring)) as { ok?: unknown };
        const edge = outcome(() => donationVariablesOf(body, recurring)) as { ok?: Record<string, unknown> };
        if (legacy.ok === undefined) {
          expect(edge).toEqual(legacy);
          return;
        }
        expect(edge.ok).toBeDefined();
        const type = schema.getType(
          recurring ? 'RecurringDonationInput' : 'DonationInput',
        ) as GraphQLInputObjectType;
        const typed = coerceInputValue(edge.ok, type, (path, _value, error) => {
          throw new Error(`${path.join('.')}: ${error.message}`);
        }) as unknown;
        expect(outcome(() => parseDonationRequest(typed, recurring))).toEqual(legacy);
      }),
      { numRuns: 2000 },
    );
  });

  it('groups and members', () => {
    fc.assert(
      fc.property(
        fc.record(
          { ownerId: leaf, name: leaf, quotaType: leaf, memberId: leaf, quota: leaf },
          { requiredKeys: [] },
        ),
        (body) => {
          const group = sameAsLegacy(
            () => parseGroupRequest(body),
            () => groupInputOf(body),
          );
          if (group !== undefined)
            expect(outcome(() => parseGroupRequest(group))).toEqual(outcome(() => parseGroupRequest(body)));
          const member = sameAsLegacy(
            () => parseMemberRequest(body, undefined),
            () => memberInputOf(body),
          );
          if (member !== undefined)
            expect(outcome(() => parseMemberRequest(member, undefined))).toEqual(
              outcome(() => parseMemberRequest(body, undefined)),
            );
        },
      ),
      { numRuns: 2000 },
    );
  });
});
