import Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import { databaseFailureOf } from '../db/knex';
import { RETRY_AFTER_SECONDS, ServiceUnavailableError } from '../errors';
import { Logger } from '../logger';
import { PortalAsset, assetVersions, loadPortalAssets } from './assets';
import { PageBranding } from './branding';
import { chooseLanguage } from './i18n';
import {
  PORTAL_ASSETS_PATH,
  PORTAL_PATH,
  THEME_STYLESHEET,
  AssetVersions,
  renderInvalidLinkPage,
  renderPortalPage,
  renderUnavailablePage,
  themeCss,
} from './page';

/** What the page needs of a valid link's session (`PortalSession` of src/modules/portal/portal.service.ts). */
export interface PortalPageSession {
  tenantId: number;
  branding: PageBranding;
}

/** What the portal router needs of the services (`Services.portal`). */
export interface PortalPageServices {
  portal: {
    /** The session of a raw access token that is valid now, else null (expired, revoked or unknown). */
    open(rawToken: string): Promise<PortalPageSession | null>;
  };
}

/**
 * Content-Security-Policy of every portal response: scripts, styles, images and requests from the
 * gateway only (no inline script or style, no third-party request), images also as `data:` URLs,
 * no plugin, no `<base>`, and never inside a frame.
 */
export const PORTAL_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** An access token as the gateway issues them (base64url); anything else is not looked up. */
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{1,256}$/;

/**
 * The security headers of every portal response: {@link PORTAL_CSP}, `referrer-policy: no-referrer`
 * (the token in the page's URL never leaves in a Referer), `x-content-type-options: nosniff` and
 * `x-frame-options: DENY` (for browsers without frame-ancestors).
 */
export function setPortalSecurityHeaders(ctx: Context): void {
  ctx.set('content-security-policy', PORTAL_CSP);
  ctx.set('referrer-policy', 'no-referrer');
  ctx.set('x-content-type-options', 'nosniff');
  ctx.set('x-frame-options', 'DENY');
}

/** Answers a static file, cacheable (its URL carries its version) and revalidated by ETag. */
function sendAsset(ctx: Context, asset: PortalAsset): void {
  ctx.set('cache-control', 'public, max-age=86400');
  ctx.set('etag', `"${asset.version}"`);
  ctx.type = asset.type;
  ctx.status = 200;
  if (ctx.fresh) {
    ctx.status = 304;
    return;
  }
  ctx.body = asset.body;
}

/** Answers one of the two pages: never cached (it belongs to one link), `vary: accept-language`. */
function sendPage(ctx: Context, status: number, html: string): void {
  ctx.status = status;
  ctx.set('cache-control', 'no-store');
  ctx.vary('accept-language');
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = html;
}

/** The language a portal request asks for: `?lang=`, else `Accept-Language` (src/portal/i18n.ts). */
function languageOf(ctx: Context) {
  return chooseLanguage(ctx.query.lang, ctx.get('accept-language') || undefined);
}

/**
 * Answers a portal link the gateway cannot serve now with the "service is busy" page: 503,
 * `retry-after` (seconds), in the request's language, with the security headers and `no-store`.
 */
function sendUnavailablePage(ctx: Context, versions: AssetVersions): void {
  setPortalSecurityHeaders(ctx);
  ctx.set('retry-after', String(RETRY_AFTER_SECONDS));
  sendPage(ctx, 503, renderUnavailablePage(languageOf(ctx), versions));
}

/** What the gateway mounts of the captive portal. */
export interface PortalPages {
  /** The portal's routes (see {@link portalPages}). */
  routes: Middleware;
  /**
   * Answers a portal link the gateway did not serve (shed at `MAX_INFLIGHT`, or past its
   * deadline: src/http/unavailable.ts) with the 503 "service is busy" page.
   */
  unavailable(ctx: Context): void;
}

/**
 * The captive portal (docs/portal.md), to mount on the gateway's Koa app:
 * - `GET /portal/<access_token>[?lang=en|es|pt]`: 200 with the subscriber's page, branded for the
 *   token's tenant, in the language of `?lang=` or else `Accept-Language` (English by default),
 *   when `services.portal.open` accepts the token; else 401 with the "this link is no longer
 *   valid" page in that language and no subscriber or tenant data. A database that is down, slow
 *   or locked (or the request's deadline passing while it waits) answers 503 with `retry-after`
 *   and the "service is busy, nothing was charged" page, logged as a warning.
 * - `GET /portal/assets/portal.js|portal.css`: the page's static files (src/portal/assets);
 *   `GET /portal/assets/theme.css?primary=rrggbb`: the tenant's colours as CSS custom properties.
 *   Any other asset name: 404 (the gateway's not-found answer).
 * Every answer carries {@link setPortalSecurityHeaders}. The token is a route parameter, so the
 * access log and metrics, which record the route pattern (`/portal/:token`), never hold it.
 * @throws Error at start-up when the static files are not found (see portalAssetsDir).
 */
export function portalPages(
  services: PortalPageServices,
  logger: Logger,
  assets = loadPortalAssets(),
): PortalPages {
  const versions = assetVersions(assets);
  const router = new Router({ prefix: PORTAL_PATH });
  router.use((ctx, next) => {
    setPortalSecurityHeaders(ctx);
    return next();
  });
  router.get(`/assets/${THEME_STYLESHEET}`, (ctx) => {
    ctx.set('cache-control', 'public, max-age=86400');
    ctx.type = 'text/css; charset=utf-8';
    ctx.body = themeCss(ctx.query.primary);
  });
  router.get('/assets/:file', (ctx, next) => {
    const asset = assets.get(ctx.params.file);
    return asset ? sendAsset(ctx, asset) : next();
  });
  router.get('/:token', async (ctx) => {
    const lang = languageOf(ctx);
    const token = ctx.params.token;
    let session: PortalPageSession | null;
    try {
      session = TOKEN_SHAPE.test(token) ? await services.portal.open(token) : null;
    } catch (err) {
      if (!(err instanceof ServiceUnavailableError) && !databaseFailureOf(err)) throw err;
      logger.warn({ err }, 'database unavailable');
      sendUnavailablePage(ctx, versions);
      return;
    }
    if (!session) sendPage(ctx, 401, renderInvalidLinkPage(lang, versions));
    else sendPage(ctx, 200, renderPortalPage(lang, session.branding, versions));
  });
  return {
    routes: router.routes() as Middleware,
    unavailable: (ctx) => sendUnavailablePage(ctx, versions),
  };
}

/** Paths of the portal (for documentation and tests): the page's pattern and the assets' prefix. */
export const PORTAL_ROUTES = { page: `${PORTAL_PATH}/:token`, assets: PORTAL_ASSETS_PATH } as const;
