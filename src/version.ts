import pkg from '../package.json';

/** The package version (CONTRACT §10), reported by GET /healthz. */
export const VERSION: string = pkg.version;
