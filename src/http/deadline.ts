import type { Context } from 'koa';
import { Config } from '../config';
import { LateWatch } from '../lib/late-watch';
import { runInRequestScope, setRequestDeadline } from '../lib/request-scope';
import { Logger } from '../logger';
import { redactPortalPath } from '../portal/redact';
import { GatewayMetrics } from '../metrics';
import { AnswerUnavailable, RATING_PATH_PREFIX } from './unavailable';

/** Milliseconds past its deadline after which a request still unanswered is answered anyway (src/http/unavailable.ts). */
export const DEADLINE_GRACE_MS = 1000;

/** Serves an admitted request (`run`), calling `settled` once it is answered or failed. */
export type RunWithDeadline = (
  ctx: Context,
  run: (ctx: Context) => Promise<unknown>,
  settled: () => void,
) => Promise<void>;

/**
 * The budget of a request, ms, chosen by its path: GRAPHQL_TIMEOUT_MS on `/graphql`,
 * RATING_TIMEOUT_MS on the charging paths (`/crs-api/`, authentication included),
 * REQUEST_TIMEOUT_MS on every other path.
 */
function budgetOf(path: string, config: Config): number {
  if (path === '/graphql') return config.graphqlTimeoutMs;
  return path.startsWith(RATING_PATH_PREFIX) ? config.ratingTimeoutMs : config.requestTimeoutMs;
}

/**
 * Per-request deadlines: every admitted request runs with a deadline from its arrival (its
 * budget, see {@link budgetOf}) that bounds its database statements; the deadline goes on the
 * request's one scope, opened with its log fields. The safety net: a request still unanswered
 * {@link DEADLINE_GRACE_MS} after its deadline (a wait somewhere that is not bounded) is logged
 * as an error, counted in `http_requests_deadline_exceeded_total` and answered anyway as
 * `unavailable` says for its path (reason `deadline`, src/http/unavailable.ts): a rating 200 with
 * returnCode 5000 (docs/contract.md §4: a rating is always HTTP 200, and a retry with the same
 * operationId answers the recorded outcome), `/graphql` 504 `TIMEOUT`, a portal link the
 * portal's 503 page, any other path 503 with `retry-after`.
 */
export function requestDeadlines(
  config: Config,
  metrics: GatewayMetrics,
  logger: Logger,
  unavailable: AnswerUnavailable,
): RunWithDeadline {
  // One timer per budget for the safety net, not one per request (a hot path).
  const lateWatch = new LateWatch();
  return (ctx, run, settled) => {
    const path = ctx.path;
    const budgetMs = budgetOf(path, config);
    let work: Promise<unknown>;
    try {
      work = setRequestDeadline(budgetMs) ? run(ctx) : runInRequestScope(budgetMs, () => run(ctx));
    } catch (err) {
      settled();
      return Promise.reject(err);
    }
    // The watch's handlers rather than `race(...).then(...)`: one promise less per request (a hot path).
    return lateWatch.watch(work, budgetMs + DEADLINE_GRACE_MS, {
      settled: () => settled(),
      failed: (err) => {
        settled();
        throw err;
      },
      late: () => {
        settled();
        metrics.deadlineExceeded.inc();
        work.catch((err: unknown) => logger.warn({ err }, 'late failure'));
        // Never a portal link's access token (a credential): its path segment is redacted.
        logger.error({ path: redactPortalPath(path) }, 'request outlived its deadline');
        unavailable(ctx, 'deadline');
      },
    });
  };
}
