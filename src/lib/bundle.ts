/**
 * Start-up time: running the server from one esbuild bundle compiled from V8's code
 * cache, instead of resolving, reading and compiling some 1,500 module files at every start.
 * scripts/bundle.js writes the bundle (`dist/gateway.js`) at build time; src/main.ts runs it.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { isAscii } from 'node:buffer';
import vm from 'node:vm';

/** Bytes of the SHA-1 of the bundle that start a code cache file (the rest is V8's data). */
const KEY_BYTES = 20;

/** A loaded bundle: its `module.exports`, and the way to keep its compiled code for next time. */
export interface LoadedBundle<T> {
  exports: T;
  /**
   * Writes the code cache ({@link codeCacheFile}: the bundle's SHA-1, then V8's data, which holds
   * every function compiled so far, so call it once the process has done its start-up work)
   * when the cache was missing, stale or refused by V8; otherwise does nothing. The file is
   * written under a temporary name and renamed, so concurrent starts never read half a file. A
   * directory that cannot be written (a read-only install) only means no cache: errors are
   * ignored.
   */
  saveCodeCache(): void;
}

/**
 * The code cache file of the bundle `file` for this process: `<file>.<8 hex digits>.cache`, the
 * digits a hash of Node's version, node's options (command line and NODE_OPTIONS) and
 * `runtimeFlags`, the V8 flags the process set itself before loading the bundle (HEAP_MODE's).
 * V8 refuses a cache made by another V8 or under other V8 flags (even `--max-old-space-size`),
 * so processes started differently keep separate caches instead of overwriting each other's at
 * every start.
 */
export function codeCacheFile(file: string, runtimeFlags: readonly string[] = []): string {
  const key = JSON.stringify([
    process.version,
    process.execArgv,
    process.env.NODE_OPTIONS ?? '',
    runtimeFlags,
  ]);
  return `${file}.${createHash('sha1').update(key).digest('hex').slice(0, 8)}.cache`;
}

/** The modification time of `file` in ms, or undefined when it does not exist. */
function mtimeMs(file: string): number | undefined {
  try {
    return fs.statSync(file).mtimeMs;
  } catch {
    return undefined;
  }
}

/**
 * Loads the CommonJS bundle `file` the way Node loads a module (the usual wrapper; `require`
 * resolves from the bundle's directory, so its external packages come from node_modules),
 * compiled from its code cache when that was made from the same bytes. Returns undefined,
 * loading nothing, when `file` is missing or older than `notOlderThan` (the compiler's build
 * record: a tree compiled after the last bundling must not run stale code). `runtimeFlags`: see
 * {@link codeCacheFile}.
 * @throws whatever evaluating the bundle throws.
 */
export function loadBundle<T>(
  file: string,
  notOlderThan: string,
  runtimeFlags: readonly string[] = [],
): LoadedBundle<T> | undefined {
  const built = mtimeMs(file);
  const compiled = mtimeMs(notOlderThan);
  if (built === undefined || (compiled !== undefined && built < compiled)) return undefined;
  const bytes = fs.readFileSync(file);
  const key = createHash('sha1').update(bytes).digest();
  const cacheFile = codeCacheFile(file, runtimeFlags);
  let cached: Buffer | undefined;
  try {
    const c = fs.readFileSync(cacheFile);
    if (c.length > KEY_BYTES && key.equals(c.subarray(0, KEY_BYTES))) cached = c.subarray(KEY_BYTES);
  } catch {
    /* no cache yet */
  }
  // scripts/bundle.js keeps the bundle ASCII, which decodes several times faster as latin1.
  const source = bytes.toString(isAscii(bytes) ? 'latin1' : 'utf8');
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename: file,
    cachedData: cached,
    importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  const mod = { exports: {} as T };
  (script.runInThisContext() as (...args: unknown[]) => void).call(
    mod.exports,
    mod.exports,
    createRequire(file),
    mod,
    file,
    path.dirname(file),
  );
  const fresh = cached !== undefined && !script.cachedDataRejected;
  return {
    exports: mod.exports,
    saveCodeCache() {
      if (fresh) return;
      const tmp = `${cacheFile}.${process.pid}.tmp`;
      try {
        fs.writeFileSync(tmp, Buffer.concat([key, script.createCachedData()]));
        fs.renameSync(tmp, cacheFile);
      } catch {
        try {
          fs.rmSync(tmp, { force: true });
        } catch {
          /* nothing was written */
        }
      }
    },
  };
}
