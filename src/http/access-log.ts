import type { Context } from 'koa';
import { GatewayContext } from '../graphql/context';
import { Logger, RequestLogFields } from '../logger';
import { RestAnswer } from '../rest/router';

/** The @koa/router pattern that matched the request (`/sqs/api/groups/:id`), if any. */
export function matchedRoute(ctx: Context): string | undefined {
  return (ctx as { _matchedRoute?: string })._matchedRoute;
}

/**
 * The access log: one `info` line per request once it is answered, with `requestId`, `route`
 * (the pattern, `unmatched` when no route matched), `client` and `tenant` (when authenticated),
 * `method`, `status`, `durationMs`, `bytes` (response body), and the answer's `returnCode`
 * (rating rows) or `errorCode` (quota-sharing rows) when it has one. Never a header or a body,
 * so no credentials or tokens. Every other line logged while the request is served carries the
 * same `requestId`, `route`, `client` and `tenant` ({@link AccessLogFields}).
 * @returns the function that logs a request's line; `started` is its `performance.now()` at arrival.
 */
export function accessLog(logger: Logger): (ctx: Context, started: number) => void {
  return (ctx, started) => {
    // Nothing to compute when the level drops the line (a hot path).
    if (!logger.isLevelEnabled('info')) return;
    const answer = ctx.state.answer as RestAnswer | undefined;
    // Logged inside the request's scope: the line carries requestId, route, client and tenant.
    logger.info(
      {
        route: matchedRoute(ctx) ?? 'unmatched',
        method: ctx.method,
        status: ctx.status,
        durationMs: Math.round((performance.now() - started) * 10) / 10,
        bytes: ctx.length,
        returnCode: answer?.returnCode,
        errorCode: answer?.errorCode,
      },
      'request',
    );
  };
}

/**
 * A request's {@link RequestLogFields}, read from its Koa context when a line is logged: the
 * route once the router matched it, the client and tenant once the credentials were checked.
 *
 * {@link close} ends the reading once the request is answered: the fields keep their last values
 * and let the context go. The request's scope (and so these fields) stays attached to whatever
 * async resource was created while it was served and outlives it, above all the keep-alive
 * timeout Node arms on the client's socket after each response and a pooled database socket
 * opened during the request; holding the context there kept the last answered request of every
 * idle keep-alive connection alive whole (request, response, body, answer), and a connection
 * idle for long enough moved it to V8's old generation (docs/benchmarks.md "Full collections
 * and what fed them").
 */
export class AccessLogFields implements RequestLogFields {
  private ctx: Context | undefined;
  private last: { route?: string; client?: string; tenant?: string } | undefined;

  constructor(
    readonly requestId: string,
    ctx: Context,
  ) {
    this.ctx = ctx;
  }

  get route(): string | undefined {
    return this.ctx ? matchedRoute(this.ctx) : this.last?.route;
  }

  get client(): string | undefined {
    return this.ctx ? this.authenticated(this.ctx)?.username : this.last?.client;
  }

  get tenant(): string | undefined {
    return this.ctx ? this.authenticated(this.ctx)?.tenantName : this.last?.tenant;
  }

  /** Keeps the fields' current values and drops the context (the request has been answered). */
  close(): void {
    if (!this.ctx) return;
    this.last = { route: this.route, client: this.client, tenant: this.tenant };
    this.ctx = undefined;
  }

  private authenticated(ctx: Context) {
    const auth = ctx.state.auth as GatewayContext['auth'] | undefined;
    return auth?.status === 'ok' ? auth.client : undefined;
  }
}
