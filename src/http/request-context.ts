import type { Context } from 'koa';
import { AuthResult, Authenticator } from '../auth/authenticate';
import { GatewayContext } from '../graphql/context';
import { Logger } from '../logger';
import { Services } from '../services';

/**
 * The credentials check of every path: request headers and client address in, its result out,
 * without a promise when it needs no wait (see `rateLimited`, src/http/rate-limit.ts).
 * @throws (the promise rejects with) what {@link Authenticator.authenticate} throws.
 */
export type Authenticate = (
  ...args: Parameters<Authenticator['authenticate']>
) => AuthResult | Promise<AuthResult>;

/**
 * Builds the {@link GatewayContext} of one request (REST row or `/graphql`) from its Koa
 * context; without a promise when its credentials needed no wait (a hot path).
 */
export type MakeContext = (ctx: Context) => GatewayContext | Promise<GatewayContext>;

/**
 * The {@link GatewayContext} of one request, REST row or `/graphql`, from its Koa context:
 * `baseUrl` (PUBLIC_BASE_URL, else the request's protocol and host, which honour TRUST_PROXY)
 * and `cache` are made on first read, since most requests read neither (a hot path).
 */
class RequestContext implements GatewayContext {
  readonly requestId: string;
  readonly client: GatewayContext['client'];
  readonly tenantHeader: string | undefined;
  budget?: GatewayContext['budget'];
  legacyRest?: boolean;
  private url: string | undefined;
  private map: Map<string, unknown> | undefined;

  constructor(
    private readonly ctx: Context,
    readonly auth: AuthResult,
    publicBaseUrl: string | null,
    readonly services: Services,
    /** Lines logged during the request carry its requestId, route and tenant (see withRequestLogFields). */
    readonly logger: Logger,
  ) {
    this.requestId = ctx.state.requestId as string;
    this.client = auth.status === 'ok' ? auth.client : null;
    const tenant = ctx.get('tenant');
    this.tenantHeader = tenant === '' ? undefined : tenant;
    this.url = publicBaseUrl ?? undefined;
  }

  get baseUrl(): string {
    // Koa 3's ctx.origin is the Origin header; protocol and host honour TRUST_PROXY.
    return (this.url ??= `${this.ctx.protocol}://${this.ctx.host}`);
  }

  get cache(): Map<string, unknown> {
    return (this.map ??= new Map());
  }
}

/**
 * The request context maker shared by the REST rows and `/graphql`: credentials are checked once
 * per request (an oauth2 row may have checked them already and left them in `ctx.state.auth`).
 * @throws what `authenticate` throws (TooManyRequestsError, ServiceUnavailableError).
 */
export function contextMaker(
  publicBaseUrl: string | null,
  services: Services,
  logger: Logger,
  authenticate: Authenticate,
): MakeContext {
  // No async function: the context comes without a promise when the credentials need no wait,
  // and with one `then` otherwise (a hot path).
  return (ctx) => {
    const known = ctx.state.auth as AuthResult | undefined;
    if (known) return new RequestContext(ctx, known, publicBaseUrl, services, logger);
    const auth = authenticate(ctx.headers, ctx.ip);
    if (!(auth instanceof Promise))
      return new RequestContext(ctx, (ctx.state.auth = auth), publicBaseUrl, services, logger);
    return auth.then(
      (result) => new RequestContext(ctx, (ctx.state.auth ??= result), publicBaseUrl, services, logger),
    );
  };
}
