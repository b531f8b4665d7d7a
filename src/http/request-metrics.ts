import type { Context } from 'koa';
import { GatewayMetrics } from '../metrics';
import { RestAnswer } from '../rest/router';
import { matchedRoute } from './access-log';

/**
 * Counts an answered request: `http_request_duration_seconds{method,route,status}` (`route` the
 * matched pattern, `unmatched` when none matched), and for a quota-sharing row `sqs_requests_total`
 * by route, status and errorCode. `started` is `performance.now()` at arrival.
 */
export function observeRequest(metrics: GatewayMetrics, ctx: Context, started: number): void {
  metrics.httpDuration.observe(
    { method: ctx.method, route: matchedRoute(ctx) ?? 'unmatched', status: ctx.status },
    (performance.now() - started) / 1000,
  );
  const answer = ctx.state.answer as RestAnswer | undefined;
  if (answer?.style === 'sqs')
    metrics.sqsRequests.inc({
      route: answer.route,
      status: answer.status,
      errorCode: answer.errorCode ?? 'none',
    });
}
