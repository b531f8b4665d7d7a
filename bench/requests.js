/*
 * The requests the benchmarks send, by name: each builder takes plain JSON arguments (they cross
 * a process boundary) and returns an autocannon request plus `check(body)`, which returns why a
 * 2xx body is wrong, or null when it is right (with `expectStatus`, only that status is right,
 * e.g. 304), and optionally `checkHeaders(headers)` (names in lower case), the same for the
 * response headers. bench/load.js counts every wrong body or header as a failure.
 */
'use strict';
const { INTROSPECT_QUERY, INTROSPECT_QUERY_SHA256, msisdnOf } = require('./data');

const JSON_TYPE = 'application/json';

/** POST with a JSON body and JSON answers. */
const postJson = (path, headers, body) => ({
  method: 'POST',
  path,
  headers: { 'content-type': JSON_TYPE, accept: JSON_TYPE, ...headers },
  body: JSON.stringify(body),
});

/** Parses `body` and returns `judge(parsed)`; unparseable JSON is wrong. */
const judgeJson = (judge) => (body) => {
  try {
    return judge(JSON.parse(body));
  } catch {
    return 'not JSON';
  }
};

/** The GraphQL data of field `field` when there are no errors, else undefined. */
const dataOf = (j, field) => (j && !j.errors && j.data ? j.data[field] : undefined);

const RATING_MUTATION =
  'mutation Charging($input: RatingRequestInput!) { processRating(input: $input) { returnCode } }';

/**
 * The response headers CONTRACT §1 requires of the token paths (docs/contract.md §1): an
 * `x-request-id` on every response, `cache-control: no-store` and `pragma: no-cache`. Returns
 * why `headers` (names in lower case) lack one, or null.
 */
const tokenHeaders = (headers) => {
  if (!headers['x-request-id']) return 'no x-request-id header';
  if (headers['cache-control'] !== 'no-store')
    return `cache-control ${headers['cache-control']}, not no-store`;
  if (headers.pragma !== 'no-cache') return `pragma ${headers.pragma}, not no-cache`;
  return null;
};

/**
 * Introspection of one valid token (`token`, owned by `msisdn`, expiring at `expiry` epoch
 * seconds) with the `auth` header, `via`: `rest` (POST /token/introspect, JSON; also the path of
 * the bare and lean handlers), `rest-xml` (the same, XML), `graphql` (POST /graphql, the whole
 * document), `trusted` (POST /graphql, the document's sha256 in Apollo's APQ wire format and no
 * `query`: the bench client's trusted document), `sofa` (sofa-api). The REST answers must also
 * carry the token path's headers (`checkHeaders`).
 */
function introspect({ via, token, msisdn, expiry, auth }) {
  const headers = { authorization: auth };
  const active = (t) =>
    t && t.active === true && t.clientId === msisdn && t.expiry === expiry ? null : 'not the active token';
  switch (via) {
    case 'rest': {
      const expected = JSON.stringify({ active: true, client_id: msisdn, expiry });
      return {
        ...postJson('/token/introspect', headers, { token }),
        check: (body) => (body === expected ? null : `expected ${expected}`),
        checkHeaders: tokenHeaders,
      };
    }
    case 'rest-xml': {
      const parts = [
        '<active>true</active>',
        `<client_id>${msisdn}</client_id>`,
        `<expiry>${expiry}</expiry>`,
      ];
      return {
        ...postJson('/token/introspect', { ...headers, accept: 'application/xml' }, { token }),
        check: (body) =>
          body.startsWith('<?xml') && parts.every((p) => body.includes(p))
            ? null
            : `expected ${parts.join('')}`,
        checkHeaders: tokenHeaders,
      };
    }
    case 'graphql':
      return {
        ...postJson('/graphql', headers, { query: INTROSPECT_QUERY, variables: { token } }),
        check: judgeJson((j) => active(dataOf(j, 'introspectToken'))),
      };
    case 'trusted':
      return {
        ...postJson('/graphql', headers, {
          extensions: { persistedQuery: { version: 1, sha256Hash: INTROSPECT_QUERY_SHA256 } },
          variables: { token },
        }),
        check: judgeJson((j) => active(dataOf(j, 'introspectToken'))),
      };
    case 'sofa':
      return { ...postJson('/sofa/introspect-token', headers, { token }), check: judgeJson(active) };
    default:
      throw new Error(`unknown introspection route ${via}`);
  }
}

/**
 * processRating of a catalogue content (`lookup`) for subscribers `first`…`first+count-1` in
 * turn, each request with a new operationId (`opPrefix`-pid-n), `via` `rest` (the legacy path,
 * also the bare handler's) or `graphql`. Right only when the answer is returnCode 0 (charged).
 */
function rating({ via, auth, tenant, first, count, opPrefix, lookup }) {
  let n = 0;
  const rest = via === 'rest';
  const base = postJson(rest ? '/crs-api/processRating' : '/graphql', { authorization: auth, tenant }, {});
  return {
    ...base,
    setupRequest(req) {
      const msisdn = msisdnOf(first + (n % count));
      const ratingRequest = {
        msisdn,
        ratingParams: {
          msisdn,
          operationId: `${opPrefix}-${process.pid}-${n++}`,
          contentId: 'bench-content',
          contentDescription: 'bench',
          lookup,
        },
      };
      const body = rest ? ratingRequest : { query: RATING_MUTATION, variables: { input: ratingRequest } };
      return { ...req, body: JSON.stringify(body) };
    },
    check: rest
      ? (body) => (body === '{"returnCode":0}' ? null : 'expected {"returnCode":0}')
      : judgeJson((j) => (dataOf(j, 'processRating')?.returnCode === 0 ? null : 'expected returnCode 0')),
  };
}

/**
 * POST /token (JSON) for subscribers `first`…`first+count-1` in turn. Right only with a 43-character
 * bearer token and an `expires_in`.
 */
function tokenIssue({ auth, first, count }) {
  let n = 0;
  const base = postJson('/token', { authorization: auth }, {});
  return {
    ...base,
    setupRequest(req) {
      const body = { grant_type: 'client_credentials', client_id: msisdnOf(first + (n++ % count)) };
      return { ...req, body: JSON.stringify(body) };
    },
    check: judgeJson((j) =>
      /^[A-Za-z0-9_-]{43}$/.test(j.access_token) &&
      j.token_type === 'bearer' &&
      Number.isInteger(j.expires_in)
        ? null
        : 'expected a bearer access_token and expires_in',
    ),
  };
}

/**
 * POST /sqs/api/donations from `donorId`'s plan `donorPlanId` (quota type `amount`) to
 * `recipients` recipients per request, taken in turn from subscribers `first`…`first+count-1`,
 * `quota` each. With `plans` (`[{ donorId, donorPlanId, first }]`) the requests take those plans
 * in turn instead, each with its own recipients. Right only when the donation and every
 * recipient have errorCode 0.
 */
function donation({ auth, tenant, donorId, donorPlanId, recipients, first, count, quota, plans }) {
  const from = plans ?? [{ donorId, donorPlanId, first }];
  let n = 0;
  const base = postJson(
    '/sqs/api/donations',
    { authorization: auth, tenant, permissions: 'SQS_DONATION_PERMISSION' },
    {},
  );
  return {
    ...base,
    setupRequest(req) {
      const plan = from[n % from.length];
      const start = Math.floor(n++ / from.length) * recipients;
      const list = Array.from({ length: recipients }, (_, i) => ({
        recipientId: msisdnOf(plan.first + ((start + i) % count)),
        quota,
      }));
      return {
        ...req,
        body: JSON.stringify({
          donorId: plan.donorId,
          donorPlanId: plan.donorPlanId,
          quotaType: 'amount',
          recipients: list,
        }),
      };
    },
    check: judgeJson((j) =>
      j.errorCode === 0 && j.recipients.length === recipients && j.recipients.every((r) => r.errorCode === 0)
        ? null
        : `expected errorCode 0 for the donation and its ${recipients} recipients`,
    ),
  };
}

/**
 * GET /pcc/pcrf/locations (JSON); right only with all `count` locations. With `ifNoneMatch` (the
 * list's current `ETag`) it revalidates: right only as a 304 with no body.
 */
function locationList({ auth, count, ifNoneMatch }) {
  const headers = { authorization: auth, permissions: 'PCRF_LOCATION_READ_PERMISSION', accept: JSON_TYPE };
  if (ifNoneMatch)
    return {
      method: 'GET',
      path: '/pcc/pcrf/locations',
      headers: { ...headers, 'if-none-match': ifNoneMatch },
      expectStatus: 304,
      check: (body) => (body ? `expected no body, got ${body.length} characters` : null),
    };
  return {
    method: 'GET',
    path: '/pcc/pcrf/locations',
    headers,
    check: judgeJson((j) =>
      j.locationList?.length === count ? null : `expected ${count} locations, got ${j.locationList?.length}`,
    ),
  };
}

/**
 * A mixed load: `parts` (`[{ name, args }]`, each a builder of this file) sent in turn on every
 * connection, each answer judged by its own part's `check`. bench/load.js sends the `sequence`.
 */
function mix({ parts }) {
  return { sequence: parts.map(({ name, args }) => builders[name](args)) };
}

const builders = { introspect, rating, tokenIssue, donation, locationList, mix };

module.exports = builders;
