import Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import { PortalAsset, assetVersions, loadPortalAssets } from './assets';
import { PageBranding } from './branding';
import { chooseLanguage } from './i18n';
import {
  PORTAL_ASSETS_PATH,
  PORTAL_PATH,
  THEME_STYLESHEET,
  renderInvalidLinkPage,
  renderPortalPage,
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

/**
 * The captive portal (docs/portal.md), to mount on the gateway's Koa app:
 * - `GET /portal/<access_token>[?lang=en|es|pt]`: 200 with the subscriber's page, branded for the
 *   token's tenant, in the language of `?lang=` or else `Accept-Language` (English by default),
 *   when `services.portal.open` accepts the token; else 401 with the "this link is no longer
 *   valid" page in that language and no subscriber or tenant data.
 * - `GET /portal/assets/portal.js|portal.css`: the page's static files (src/portal/assets);
 *   `GET /portal/assets/theme.css?primary=rrggbb`: the tenant's colours as CSS custom properties.
 *   Any other asset name: 404 (the gateway's not-found answer).
 * Every answer carries {@link setPortalSecurityHeaders}. The token is a route parameter, so the
 * access log and metrics, which record the route pattern (`/portal/:token`), never hold it.
 * @throws Error at start-up when the static files are not found (see portalAssetsDir).
 */
export function portalRouter(services: PortalPageServices, assets = loadPortalAssets()): Middleware {
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
    const lang = chooseLanguage(ctx.query.lang, ctx.get('accept-language') || undefined);
    const token = ctx.params.token;
    const session = TOKEN_SHAPE.test(token) ? await services.portal.open(token) : null;
    if (!session) sendPage(ctx, 401, renderInvalidLinkPage(lang, versions));
    else sendPage(ctx, 200, renderPortalPage(lang, session.branding, versions));
  });
  return router.routes() as Middleware;
}

/** Paths of the portal (for documentation and tests): the page's pattern and the assets' prefix. */
export const PORTAL_ROUTES = { page: `${PORTAL_PATH}/:token`, assets: PORTAL_ASSETS_PATH } as const;
