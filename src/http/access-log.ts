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
 */
export class AccessLogFields implements RequestLogFields {
  constructor(
    readonly requestId: string,
    private readonly ctx: Context,
  ) {}

  get route(): string | undefined {
    return matchedRoute(this.ctx);
  }

  get client(): string | undefined {
    return this.authenticated()?.username;
  }

  get tenant(): string | undefined {
    return this.authenticated()?.tenantName;
  }

  private authenticated() {
    const auth = this.ctx.state.auth as GatewayContext['auth'] | undefined;
    return auth?.status === 'ok' ? auth.client : undefined;
  }
}
