import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { AssetVersions } from './page';

/** One static file of the portal, read once at start-up. */
export interface PortalAsset {
  body: Buffer;
  type: string;
  /** First 16 hex digits of the body's SHA-256: the `?v=` of the page's links and the ETag. */
  version: string;
}

/** The files served under /portal/assets/: a fixed list, nothing else of the folder is reachable. */
const FILES: Record<keyof AssetVersions, string> = {
  'portal.js': 'application/javascript; charset=utf-8',
  'portal.css': 'text/css; charset=utf-8',
};

/** Where a file of the list lives in the source tree. */
const SOURCE_DIR = path.join('src', 'portal', 'assets');

/**
 * The folder holding the portal's static files. They stay in the source tree (src/portal/assets,
 * plain browser files, no build step), which is found from this module wherever it runs: beside it
 * under ts-node or Jest (src/portal/), or up from dist/src/portal/ (tsc) or dist/ (the bundle).
 * @throws Error when no such folder is found (a deployment without src/portal/assets).
 */
export function portalAssetsDir(from: string = __dirname): string {
  const candidates = [path.join(from, 'assets')];
  for (let dir = from; ; dir = path.dirname(dir)) {
    candidates.push(path.join(dir, SOURCE_DIR));
    if (path.dirname(dir) === dir) break;
  }
  const found = candidates.find((dir) => fs.existsSync(path.join(dir, 'portal.js')));
  if (!found) throw new Error(`the portal's static files (${SOURCE_DIR}) are not found from ${from}`);
  return found;
}

/** Reads the portal's static files (see {@link portalAssetsDir}) into memory, each with its version. */
export function loadPortalAssets(dir: string = portalAssetsDir()): Map<string, PortalAsset> {
  const assets = new Map<string, PortalAsset>();
  for (const [name, type] of Object.entries(FILES)) {
    const body = fs.readFileSync(path.join(dir, name));
    const version = createHash('sha256').update(body).digest('hex').slice(0, 16);
    assets.set(name, { body, type, version });
  }
  return assets;
}

/** The versions of the loaded files, as the page links them. */
export function assetVersions(assets: Map<string, PortalAsset>): AssetVersions {
  return {
    'portal.js': assets.get('portal.js')!.version,
    'portal.css': assets.get('portal.css')!.version,
  };
}
