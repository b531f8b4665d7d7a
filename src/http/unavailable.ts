import type { Context } from 'koa';
import { RETRY_AFTER_SECONDS } from '../errors';
import { graphqlTimeoutError } from '../graphql/limits';
import { isPortalLinkPath } from '../portal/redact';
import { sendBody } from '../rest/respond';
import { answerError } from './graphql-route';

/** Paths whose deadline is RATING_TIMEOUT_MS and whose answers are always HTTP 200 (docs/contract.md §4). */
export const RATING_PATH_PREFIX = '/crs-api/';

/**
 * Why a request is answered without being served: `overloaded`, `MAX_INFLIGHT` requests were
 * already in flight (shed at once); `deadline`, it was still unanswered its deadline plus
 * `DEADLINE_GRACE_MS` after it arrived (the safety net of src/http/deadline.ts).
 */
export type UnavailableReason = 'overloaded' | 'deadline';

/** Answers a request the gateway did not serve, in the form its path's clients read (see {@link unavailableAnswers}). */
export type AnswerUnavailable = (ctx: Context, reason: UnavailableReason) => void;

/** What {@link unavailableAnswers} needs. */
export interface UnavailableAnswerDeps {
  /** GRAPHQL_TIMEOUT_MS, named in the message of a `/graphql` request past its deadline. */
  graphqlTimeoutMs: number;
  /** Answers a portal link with the portal's 503 page (src/portal/router.ts `PortalPages.unavailable`). */
  portalPage: (ctx: Context) => void;
}

/** The message of each reason in the REST rows' and GraphQL's bodies. */
const MESSAGES: Readonly<Record<UnavailableReason, string>> = {
  overloaded: 'service overloaded, retry later',
  deadline: 'request deadline exceeded, retry later',
};

/**
 * How each kind of client is told that its request was not served (docs/operations.md "Failure
 * behaviour"), every answer but a rating's with `retry-after` (seconds, `RETRY_AFTER_SECONDS`):
 * - `/graphql` (GraphQL clients read `errors[].extensions.code`): overloaded, HTTP 503 with one
 *   `SERVICE_UNAVAILABLE` error; past the deadline, HTTP 504 with one `TIMEOUT` error, as an
 *   operation past GRAPHQL_TIMEOUT_MS; JSON (`application/json`).
 * - a portal link `/portal/<access_token>` (a subscriber's browser): the portal's localised 503
 *   page ("the service is busy, nothing was charged").
 * - a rating path (`/crs-api/`) past its deadline: HTTP 200 `returnCode` 5000 (docs/contract.md
 *   §4: outcome unknown; a retry with the same operationId answers the recorded outcome).
 * - every other request (the REST rows, a rating shed, the portal's static files): HTTP 503
 *   `{"errorCode":1,"message"}`, JSON or XML as negotiated.
 */
export function unavailableAnswers({
  graphqlTimeoutMs,
  portalPage,
}: UnavailableAnswerDeps): AnswerUnavailable {
  return (ctx, reason) => {
    const path = ctx.path;
    if (reason === 'deadline' && path.startsWith(RATING_PATH_PREFIX)) {
      sendBody(ctx, 200, { returnCode: 5000 });
      return;
    }
    ctx.set('retry-after', String(RETRY_AFTER_SECONDS));
    if (path === '/graphql') {
      if (reason === 'deadline') {
        const timeout = graphqlTimeoutError(graphqlTimeoutMs);
        answerError(ctx, 504, { message: timeout.message, extensions: timeout.extensions });
      } else
        answerError(ctx, 503, {
          message: MESSAGES.overloaded,
          extensions: { code: 'SERVICE_UNAVAILABLE', retryAfterSeconds: RETRY_AFTER_SECONDS },
        });
    } else if (isPortalLinkPath(path)) portalPage(ctx);
    else sendBody(ctx, 503, { errorCode: 1, message: MESSAGES[reason] });
  };
}
