import Koa, { Context } from 'koa';
import { requestIdOf } from '../lib/request-id';
import { Logger, withRequestLogFields } from '../logger';
import { GatewayMetrics } from '../metrics';
import { ExactRows } from '../rest/router';
import { AccessLogFields, accessLog } from './access-log';
import { answerUnhandled } from './error-guard';
import { Lifecycle } from './lifecycle';
import { observeRequest } from './request-metrics';
import { Admit } from './shedding';

/** What the entry middleware needs. */
export interface EntryDeps {
  lifecycle: Lifecycle;
  metrics: GatewayMetrics;
  logger: Logger;
  /** The REST rows served by exact method and path, admitted here. */
  restRows: ExactRows;
  admit: Admit;
}

/**
 * The first middleware of every request, as one function (a hot path: one function, one promise
 * and one async scope per request instead of five layers), in this order: request id
 * (`x-request-id`, the client's when usable, else a new one) → access log → error guard →
 * in-flight count → duration metrics. An exact REST row is admitted and served from here, without
 * the middleware below; every other request goes down the chain (probes, explorer, then
 * admission, /graphql, rows with path parameters, 404/405).
 */
export function entry({ lifecycle, metrics, logger, restRows, admit }: EntryDeps): Koa.Middleware {
  const logRequest = accessLog(logger);
  const serve = async (ctx: Context, next: Koa.Next, started: number): Promise<void> => {
    try {
      try {
        lifecycle.track(ctx);
        try {
          const row = restRows.start(ctx);
          await (row ? admit(ctx, row) : next());
        } finally {
          observeRequest(metrics, ctx, started);
        }
      } catch (err) {
        answerUnhandled(ctx, err, logger);
      }
    } finally {
      logRequest(ctx, started);
    }
  };
  return (ctx, next) => {
    const started = performance.now();
    const requestId = requestIdOf(ctx.get('x-request-id'));
    ctx.state.requestId = requestId;
    ctx.set('x-request-id', requestId);
    return withRequestLogFields(new AccessLogFields(requestId, ctx), () => serve(ctx, next, started));
  };
}
