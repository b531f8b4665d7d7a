import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { ApolloServerPlugin } from '@apollo/server';
import { ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { ApolloServerPluginLandingPageLocalDefault } from '@apollo/server/plugin/landingPage/default';
import Router from '@koa/router';
import { Context } from 'koa';
import { ExplorerMode } from '../config';
import { GatewayContext } from './context';

/** The GraphQL endpoint the explorers talk to. */
export const GRAPHQL_PATH = '/graphql';
/** The gateway's own GraphiQL page (served whenever an explorer is enabled). */
export const EXPLORER_PATH = `${GRAPHQL_PATH}/explorer`;
/** Where the explorer's static files are served. */
export const EXPLORER_ASSETS_PATH = `${EXPLORER_PATH}/assets`;
/** In `auto` mode, how long the browser waits for Apollo Sandbox before switching to GraphiQL. */
export const SANDBOX_LOAD_TIMEOUT_MS = 8000;

/** What the explorer pages need. */
export interface ExplorerOptions {
  mode: ExplorerMode;
  /**
   * `authorization` header value pre-filled in the explorer's headers editor (the demo client's
   * while it still has the demo password: `AppDeps.sandboxAuthorization`); none when undefined.
   */
  authorization?: string;
}

/**
 * The query the GraphiQL editor opens with: harmless, and answered for any client with
 * TOKEN_INTROSPECT. It must validate against the schema (test/e2e/explorer.test.ts checks it), so
 * the explorer's first click answers data, not "Cannot query field".
 */
export const DEFAULT_QUERY = `# GraphiQL, served by the gateway (works offline).
# Operations need an "authorization: Basic ..."
# header: see the Headers tab below.
query Example {
  introspectToken(token: "not-a-real-token") {
    active
    clientId
    expiry
  }
}
`;

/** Browser script starting GraphiQL from the JSON config embedded in the page (no inline script, so the CSP can forbid them). */
const EXPLORER_JS = `(function () {
  'use strict';
  var config = JSON.parse(document.getElementById('explorer-config').textContent);
  var props = {
    // Subscriptions over graphql-ws on the same path; the headers tab's values become the
    // connection_init payload (its authorization is checked there).
    fetcher: GraphiQL.createFetcher({
      url: new URL(config.endpoint, window.location.href).href,
      subscriptionUrl: new URL(config.endpoint, window.location.href).href.replace(/^http/, 'ws'),
    }),
    defaultQuery: config.defaultQuery,
    shouldPersistHeaders: false,
  };
  if (config.headers) {
    props.headers = JSON.stringify(config.headers, null, 2);
    props.defaultEditorToolsVisibility = 'headers';
  }
  ReactDOM.createRoot(document.getElementById('graphiql')).render(React.createElement(GraphiQL, props));
})();
`;

/**
 * Browser script added to the Apollo Sandbox page in `auto` mode: when the Sandbox script from
 * Apollo's CDN fails or is not there in time, go to the gateway's own GraphiQL page.
 */
const SANDBOX_FALLBACK_JS = `(function () {
  'use strict';
  var target = window.location.pathname.replace(/\\/+$/, '') + '/explorer';
  var gone = false;
  function fallback() {
    if (gone || window.EmbeddedSandbox) return;
    gone = true;
    window.location.replace(target);
  }
  window.addEventListener('error', function (e) {
    if (e.target && e.target.tagName === 'SCRIPT') fallback();
  }, true);
  document.addEventListener('DOMContentLoaded', fallback);
  setTimeout(fallback, ${SANDBOX_LOAD_TIMEOUT_MS});
})();
`;

interface AssetSource {
  /** Package whose own build holds the file, or inline text. */
  pkg?: string;
  file?: string;
  text?: string;
  type: string;
}

const JS = 'application/javascript; charset=utf-8';

/** The files served under {@link EXPLORER_ASSETS_PATH}: a fixed list, nothing else is reachable. */
const ASSETS: Record<string, AssetSource> = {
  'react/react.production.min.js': { pkg: 'react', file: 'umd/react.production.min.js', type: JS },
  'react-dom/react-dom.production.min.js': {
    pkg: 'react-dom',
    file: 'umd/react-dom.production.min.js',
    type: JS,
  },
  'graphiql/index.umd.js': { pkg: 'graphiql', file: 'dist/index.umd.js', type: JS },
  'graphiql/index.umd.js.map': {
    pkg: 'graphiql',
    file: 'dist/index.umd.js.map',
    type: 'application/json; charset=utf-8',
  },
  'graphiql/style.css': { pkg: 'graphiql', file: 'dist/style.css', type: 'text/css; charset=utf-8' },
  'explorer.js': { text: EXPLORER_JS, type: JS },
  'sandbox-fallback.js': { text: SANDBOX_FALLBACK_JS, type: JS },
};

/**
 * Content-Security-Policy of the GraphiQL page: scripts, styles, fonts and requests from the
 * gateway itself only (GraphiQL sets inline styles; its fonts are data: URLs).
 */
export const EXPLORER_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

/** JSON safe to embed in an HTML `<script>` element. */
function jsonForHtml(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/**
 * The GraphiQL page (HTML). It references only the gateway's own paths, carries its CSP as a
 * meta element too (Apollo serves it at `/graphql` without our headers), and pre-fills the
 * `authorization` header only when one is given.
 */
export function graphiqlPage(opts: Pick<ExplorerOptions, 'authorization'>): string {
  const config = {
    endpoint: GRAPHQL_PATH,
    defaultQuery: DEFAULT_QUERY,
    ...(opts.authorization ? { headers: { authorization: opts.authorization } } : {}),
  };
  const asset = (name: string) => `${EXPLORER_ASSETS_PATH}/${name}`;
  return `<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta http-equiv="Content-Security-Policy" content="${EXPLORER_CSP}" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <meta name="referrer" content="no-referrer" />
    <title>Subscriber Gateway GraphQL explorer</title>
    <link rel="icon" href="data:," />
    <link rel="stylesheet" href="${asset('graphiql/style.css')}" />
    <style>
      html, body { height: 100%; margin: 0; }
      #graphiql { height: 100vh; }
    </style>
  </head>
  <body>
    <div id="graphiql">Loading the GraphQL explorer&hellip;</div>
    <script id="explorer-config" type="application/json">${jsonForHtml(config)}</script>
    <script src="${asset('react/react.production.min.js')}"></script>
    <script src="${asset('react-dom/react-dom.production.min.js')}"></script>
    <script src="${asset('graphiql/index.umd.js')}"></script>
    <script src="${asset('explorer.js')}"></script>
  </body>
</html>
`;
}

/** Adds the `auto`-mode fallback script to Apollo's Sandbox page (its CSP allows 'self' scripts). */
export function withSandboxFallback(html: string): string {
  const tag = `<script src="${EXPLORER_ASSETS_PATH}/sandbox-fallback.js"></script>`;
  return html.includes('</head>') ? html.replace('</head>', `    ${tag}\n  </head>`) : tag + html;
}

/**
 * The Apollo landing-page plugin for a mode: Apollo Sandbox with telemetry off (`sandbox`,
 * `auto` with the GraphiQL fallback), the GraphiQL page (`graphiql`), or none (`off`).
 */
export function landingPagePlugin(opts: ExplorerOptions): ApolloServerPlugin<GatewayContext> {
  if (opts.mode === 'off') return ApolloServerPluginLandingPageDisabled();
  if (opts.mode === 'graphiql') {
    const html = graphiqlPage(opts);
    return {
      async serverWillStart() {
        return {
          async renderLandingPage() {
            return { html };
          },
        };
      },
    };
  }
  const sandbox = ApolloServerPluginLandingPageLocalDefault({
    embed: { runTelemetry: false },
    footer: false,
    ...(opts.authorization ? { headers: { authorization: opts.authorization } } : {}),
  }) as ApolloServerPlugin<GatewayContext>;
  if (opts.mode === 'sandbox') return sandbox;
  return {
    async serverWillStart(service) {
      const listener = await sandbox.serverWillStart?.(service);
      const render = listener?.renderLandingPage;
      if (!render) return listener;
      return {
        ...listener,
        async renderLandingPage() {
          const page = await render.call(listener);
          const { html } = page;
          return {
            html:
              typeof html === 'string'
                ? withSandboxFallback(html)
                : async () => withSandboxFallback(await html()),
          };
        },
      };
    },
  };
}

interface LoadedAsset {
  body: Buffer;
  gzip: Buffer;
  etag: string;
  type: string;
}

function loadAsset(src: AssetSource): LoadedAsset {
  const body =
    src.text !== undefined
      ? Buffer.from(src.text, 'utf8')
      : fs.readFileSync(path.join(path.dirname(require.resolve(`${src.pkg}/package.json`)), src.file!));
  return {
    body,
    gzip: zlib.gzipSync(body),
    etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`,
    type: src.type,
  };
}

/**
 * Routes of the gateway's own explorer (public, docs/contract.md §2 landing page): `GET /graphql/explorer`
 * (the GraphiQL page, with its CSP header) and `GET /graphql/explorer/assets/<file>` (the fixed
 * list of package build files, gzip when accepted, ETag revalidation). No routes when `off`.
 * Files are read from `node_modules` on first request and kept in memory.
 */
export function explorerRouter(opts: ExplorerOptions): Router {
  const router = new Router();
  if (opts.mode === 'off') return router;
  const html = graphiqlPage(opts);
  router.get(EXPLORER_PATH, (ctx: Context) => {
    ctx.set('content-security-policy', EXPLORER_CSP);
    ctx.set('cache-control', 'no-store');
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = html;
  });
  const cache = new Map<string, LoadedAsset>();
  for (const [name, src] of Object.entries(ASSETS)) {
    router.get(`${EXPLORER_ASSETS_PATH}/${name}`, (ctx: Context) => {
      let asset = cache.get(name);
      if (!asset) {
        asset = loadAsset(src);
        cache.set(name, asset);
      }
      ctx.set('cache-control', 'public, max-age=3600');
      ctx.set('x-content-type-options', 'nosniff');
      ctx.vary('accept-encoding');
      ctx.etag = asset.etag;
      ctx.type = asset.type;
      ctx.status = 200; // ctx.fresh only compares validators on a 2xx response
      if (ctx.fresh) {
        ctx.status = 304;
        return;
      }
      if (ctx.acceptsEncodings('gzip', 'identity') === 'gzip') {
        ctx.set('content-encoding', 'gzip');
        ctx.body = asset.gzip;
      } else ctx.body = asset.body;
    });
  }
  return router;
}
