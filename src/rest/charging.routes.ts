import { ReturnCode } from '../modules/charging/return-codes';
import { ratingInputOf } from './rating-input';
import { RestRoute, defineRoute } from './route';

const row = (path: string, field: 'processRating' | 'processRefund') =>
  defineRoute<Record<string, { returnCode: number }>>({
    method: 'POST',
    path,
    style: 'plain',
    tenantHeader: 'required',
    document: `mutation Charging($input: RatingRequestInput!) { ${field}(input: $input) { returnCode } }`,
    // A wrongly typed field gets its field's return code (CONTRACT §4): ratingInputOf explains how.
    variables: ({ body }) => ({ input: ratingInputOf(body) }),
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
 * Charging rows (CONTRACT §4, spec 4.3): HTTP 200 for every business outcome, `{"returnCode"}`;
 * 400 only for a body that is not a JSON object or a missing `tenant` header.
 */
export const CHARGING_ROUTES = [
  row('/crs-api/processRating', 'processRating'),
  row('/crs-api/processRefund', 'processRefund'),
] as ReadonlyArray<RestRoute<never>>;
