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
  /** The REST rows and `/graphql`, served by exact method and path, admitted here. */
  restRows: ExactRows;
  admit: Admit;
}

/** Statuses whose response has no body (Koa's `statuses.empty`): Koa itself answers them. */
const EMPTY = new Set([204, 205, 304]);

/**
 * Sends a text answer (`ctx.body` a string with its `content-length`, the REST rows' and every
 * JSON/XML error's) in one socket write instead of Koa's `res.end(body)`, which corks the socket
 * and hands it two chunks (headers with body, then an empty end chunk), sent with `writev` (21 %
 * of a REST introspection's busy time, issue 33). Here `res.write(body)` queues headers and body
 * as one chunk, the socket is uncorked at once (one `write`), and the `res.end()` after it
 * writes nothing more. The bytes on the
 * wire are the same (headers and body in one TCP segment, as before); every other answer (no body, a stream or Buffer, HEAD, 204/205/304, a
 * response already started or given up) is left to Koa.
 */
function respondInOneWrite(ctx: Context): void {
  const body = ctx.body;
  const res = ctx.res;
  if (
    typeof body !== 'string' ||
    ctx.respond === false ||
    ctx.method === 'HEAD' ||
    EMPTY.has(ctx.status) ||
    res.headersSent ||
    !ctx.writable ||
    !res.hasHeader('content-length')
  )
    return;
  ctx.respond = false;
  res.write(body);
  // Node corks the socket on a response's first write until the next tick; uncorked now, the
  // one chunk goes out as a plain write, and `end` finds nothing left to send.
  res.socket?.uncork();
  res.end();
}

/**
 * The first middleware of every request, as one function (a hot path: one function, one promise
 * and one async scope per request instead of five layers), in this order: request id
 * (`x-request-id`, the client's when usable, else a new one) → access log → error guard →
 * in-flight count → duration metrics, and a text answer sent in one write
 * ({@link respondInOneWrite}). An exact REST row or `/graphql` is admitted and served from here, without
 * the middleware below; every other request goes down the chain (probes, explorer, then
 * admission, /graphql, rows with path parameters, 404/405).
 */
export function entry({ lifecycle, metrics, logger, restRows, admit }: EntryDeps): Koa.Middleware {
  const logRequest = accessLog(logger);
  /**
   * After the request's work: its duration metrics, then a failure of the work (or of the
   * metrics) answered by the error guard, the answer written, and in every case the access log
   * line and the log fields' scope closed.
   */
  const settle = (
    ctx: Context,
    started: number,
    fields: AccessLogFields,
    failure?: { err: unknown },
  ): void => {
    try {
      try {
        observeRequest(metrics, ctx, started);
        if (failure) throw failure.err;
      } catch (err) {
        answerUnhandled(ctx, err, logger);
      }
      respondInOneWrite(ctx);
    } finally {
      logRequest(ctx, started);
      fields.close();
    }
  };
  // `then` rather than an async function awaiting the work: one promise less per request (a hot path).
  const serve = (ctx: Context, next: Koa.Next, started: number, fields: AccessLogFields): Promise<void> => {
    let work: Promise<unknown>;
    try {
      lifecycle.track(ctx);
      const row = restRows.start(ctx);
      work = row ? admit(ctx, row) : next();
    } catch (err) {
      work = Promise.reject(err);
    }
    return work.then(
      () => settle(ctx, started, fields),
      (err: unknown) => settle(ctx, started, fields, { err }),
    );
  };
  return (ctx, next) => {
    const started = performance.now();
    const requestId = requestIdOf(ctx.get('x-request-id'));
    ctx.state.requestId = requestId;
    ctx.set('x-request-id', requestId);
    const fields = new AccessLogFields(requestId, ctx);
    return withRequestLogFields(fields, () => serve(ctx, next, started, fields));
  };
}
