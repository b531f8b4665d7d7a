import { MONEY_PATTERN } from '../lib/money';
import { Permission } from '../auth/permissions';
import { ratingField, transportRefusalField } from '../modules/charging/charging.resolver';
import { RatingRequestInput, TransportRefusal } from '../modules/charging/rating-request';
import { ReturnCode } from '../modules/charging/return-codes';
import { readRatingBody } from './rating-input';
import { RestRoute, defineRoute, edgeOutcome, edgeOutcomeOf } from './route';
import { MSISDN_IN, named, object, text } from './schemas';

const price = (description: string) =>
  text(`${description}: non-negative decimal string, at most 6 fractional digits`, {
    pattern: MONEY_PATTERN,
  });
const lookupKey = (description: string) => text(`${description}, 1-64 characters`, { maxLength: 64 });

/**
 * The rating/refund request body (docs/contract.md §4): src/rest/rating-input.ts reads it (missing fields and
 * wrong JSON types), src/modules/charging/rating-request.ts judges the typed request.
 */
const RATING_REQUEST = named('RatingRequest', {
  ...object({
    msisdn: MSISDN_IN,
    ratingParams: object(
      {
        msisdn: { ...MSISDN_IN, description: 'the same subscriber as `msisdn`' },
        operationId: text('identifies the operation within the tenant: a repeat answers the first outcome', {
          maxLength: 128,
        }),
        lookup: object(
          {
            providerId: lookupKey('catalogue key'),
            applicationId: lookupKey('catalogue key'),
            serviceId: lookupKey('catalogue key, absent or `*` matches any'),
            originId: lookupKey('catalogue key, absent or `*` matches any'),
            bundleId: lookupKey('catalogue key, absent or `*` matches any'),
          },
          ['serviceId', 'originId', 'bundleId'],
        ),
        contentId: text('1-64 characters, no control characters (else 2101)', { maxLength: 64 }),
        contentDescription: text('at most 255 characters (else 2102)', { maxLength: 255 }),
        preRating: {
          ...object(
            {
              totalPrice: price('charged amount (2103)'),
              retailPrice: price('2104'),
              calculatedTax: price('2105'),
              calculatedPromo: price('a discount (2106)'),
              downloadFeeWot: price('2107; > 0 needs a transport rating (3003), refused in refunds (3004)'),
            },
            ['retailPrice', 'calculatedTax', 'calculatedPromo', 'downloadFeeWot'],
          ),
          description:
            "optional: the amount is `totalPrice`, which must equal retailPrice + calculatedTax + downloadFeeWot - calculatedPromo (else 2108); absent, the catalogue rating's retail + tax",
        },
      },
      ['contentDescription', 'preRating'],
    ),
  }),
  description:
    "A field of the wrong JSON type gets its field's return code, not 400. Unknown fields are ignored.",
});

const RATING_RESULT = named(
  'RatingResult',
  object({
    returnCode: {
      type: 'integer',
      enum: Object.values(ReturnCode),
      description: Object.entries(ReturnCode)
        .map(([name, code]) => `${code} ${name}`)
        .join(', '),
    },
  }),
);

const RATING_EXAMPLE = {
  msisdn: '353871234567',
  ratingParams: {
    msisdn: '353871234567',
    operationId: 'op-2019-08-07-0001',
    lookup: {
      providerId: '6010',
      applicationId: '50000029',
      serviceId: '30000020',
      originId: '9',
      bundleId: '1234',
    },
    contentId: 'game-42',
    contentDescription: 'Game download',
  },
};

const row = (path: string, field: 'processRating' | 'processRefund') =>
  defineRoute<Record<string, { returnCode: number }>>({
    method: 'POST',
    path,
    doc: {
      operationId: field,
      tag: 'charging',
      summary:
        field === 'processRating'
          ? 'Rate and charge a content purchase'
          : 'Refund a charge by its operationId',
      description:
        (field === 'processRating'
          ? 'Needs the `CRS_RATING` grant. Prepaid subscribers are refused with 1000 when the balance is short; postpaid ones accumulate. '
          : 'Needs the `CRS_REFUND` grant. Credits back the successful charge with that operationId and msisdn (else 4001); idempotent. ') +
        'Exactly once per operationId: a repeat answers the first outcome. A database failure or the RATING_TIMEOUT_MS deadline is a return code (2002, 2003, 5001), never a 5xx (CONTRACT §4, §8).',
      request: { schema: RATING_REQUEST, example: RATING_EXAMPLE },
      responses: {
        200: {
          description: 'every business outcome; the outcome is `returnCode`',
          schema: RATING_RESULT,
          example: { returnCode: 0 },
        },
      },
    },
    style: 'plain',
    tenantHeader: 'required',
    document: `mutation Charging($input: RatingRequestInput!) { ${field}(input: $input) { returnCode } }`,
    // A body that cannot be the typed request (a required field missing or null, a field of the
    // wrong JSON type, a malformed MSISDN) is refused here with its field's return code (CONTRACT
    // §4; readRatingBody explains the order), after the grant check the operation would make.
    variables: (input) => {
      input.requireGrant(field === 'processRating' ? Permission.CRS_RATING : Permission.CRS_REFUND);
      const reading = readRatingBody(input.body);
      return reading.ok ? { input: reading.input } : edgeOutcome(reading.refusal);
    },
    // Without GraphQL execution, through the functions the resolvers call: a typed request runs the
    // operation (ratingField); a refusal is recorded by the service as the operation's outcome
    // (charging CDR, rating_requests_total) and answered with its returnCode, HTTP 200.
    resolve: (gctx, variables) => {
      const refusal = edgeOutcomeOf<TransportRefusal>(variables);
      return (
        refusal
          ? transportRefusalField(gctx, field, refusal)
          : ratingField(gctx, field, variables.input as RatingRequestInput)
      ).then((payload) => ({ [field]: payload }));
    },
    result: (data) => ({ status: 200, body: { returnCode: data[field].returnCode } }),
    // CONTRACT §4/§8: every rating outcome is HTTP 200, also when the database fails before the
    // service could decide (e.g. while authenticating): 2002 unreachable, 2003 timed out, 5001 deadline.
    unavailable: (reason) => ({
      status: 200,
      body: {
        returnCode:
          reason === 'unreachable'
            ? ReturnCode.SUBSCRIBER_REPOSITORY_ERROR
            : reason === 'timeout'
              ? ReturnCode.SUBSCRIBER_REPOSITORY_TIMEOUT
              : ReturnCode.INTERNAL_TIMEOUT,
      },
    }),
  });

/**
 * Charging rows (docs/contract.md §4): HTTP 200 for every business outcome, `{"returnCode"}`;
 * 400 only for a body that is not a JSON object or a missing `tenant` header.
 */
export const CHARGING_ROUTES = [
  row('/crs-api/processRating', 'processRating'),
  row('/crs-api/processRefund', 'processRefund'),
] as ReadonlyArray<RestRoute<never>>;
