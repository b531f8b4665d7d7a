import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { codeCacheFile, loadBundle } from '../../src/lib/bundle';

/** The bundle runner behind `node dist/src/main.js` (for start-up time; scripts/bundle.js writes the bundle). */

describe('loadBundle', () => {
  let dir: string;
  let file: string;
  let record: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sg-bundle-test-'));
    file = path.join(dir, 'gateway.js');
    record = path.join(dir, '.tsbuildinfo');
    fs.writeFileSync(path.join(dir, 'dep.js'), 'module.exports = { x: "from dep" };');
    fs.writeFileSync(record, '{}');
    const past = new Date(Date.now() - 60_000);
    fs.utimesSync(record, past, past);
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const write = (answer: number) =>
    fs.writeFileSync(
      file,
      `'use strict';\nfunction answer() { return ${answer}; }\n` +
        "module.exports = { answer, dep: require('./dep').x, filename: __filename, dirname: __dirname, degree: /\u00b0/.source };\n",
    );
  type Exports = { answer(): number; dep: string; filename: string; dirname: string; degree: string };
  const epoch = new Date(0);
  const cacheFile = () => codeCacheFile(file);

  it('loads nothing when the bundle is missing or older than the build record', () => {
    expect(loadBundle(file, record)).toBeUndefined();
    write(1);
    const past = new Date(Date.now() - 120_000);
    fs.utimesSync(file, past, past);
    expect(loadBundle(file, record)).toBeUndefined();
  });

  it('runs the bundle as a module next to its own files, non-ASCII source included', () => {
    write(42);
    const b = loadBundle<Exports>(file, record)!;
    expect(b.exports.answer()).toBe(42);
    expect(b.exports.dep).toBe('from dep');
    expect(b.exports.filename).toBe(file);
    expect(b.exports.dirname).toBe(dir);
    expect(b.exports.degree).toBe('\u00b0');
  });

  it('writes the code cache once, keyed by the bundle bytes, and uses it on the next load', () => {
    write(1);
    loadBundle<Exports>(file, record)!.saveCodeCache();
    const cache = fs.readFileSync(cacheFile());
    expect(cache.subarray(0, 20)).toEqual(createHash('sha1').update(fs.readFileSync(file)).digest());
    expect(cache.length).toBeGreaterThan(20);
    fs.utimesSync(cacheFile(), epoch, epoch);
    const again = loadBundle<Exports>(file, record)!;
    again.saveCodeCache(); // the cache fitted: nothing to write
    expect(fs.statSync(cacheFile()).mtimeMs).toBe(0);
    expect(again.exports.answer()).toBe(1);
  });

  it('never uses a cache made from other bytes (same length), and replaces it', () => {
    write(1);
    loadBundle<Exports>(file, record)!.saveCodeCache();
    fs.utimesSync(cacheFile(), epoch, epoch);
    write(2);
    const b = loadBundle<Exports>(file, record)!;
    expect(b.exports.answer()).toBe(2);
    b.saveCodeCache();
    expect(fs.statSync(cacheFile()).mtimeMs).not.toBe(0);
    expect(fs.readFileSync(cacheFile()).subarray(0, 20)).toEqual(
      createHash('sha1').update(fs.readFileSync(file)).digest(),
    );
  });

  it('processes of another Node.js, or started with other node options or run-time V8 flags, have their own cache file', () => {
    const options = process.env.NODE_OPTIONS;
    try {
      delete process.env.NODE_OPTIONS;
      const plain = codeCacheFile(file);
      expect(plain).toMatch(/gateway\.js\.[0-9a-f]{8}\.cache$/);
      expect(codeCacheFile(file, ['--heap-growing-percent=20'])).not.toBe(plain);
      process.env.NODE_OPTIONS = '--max-old-space-size=512';
      expect(codeCacheFile(file)).not.toBe(plain);
      expect(codeCacheFile(file)).toBe(codeCacheFile(file));
      const withOptions = codeCacheFile(file);
      const running = Object.getOwnPropertyDescriptor(process, 'version')!;
      try {
        Object.defineProperty(process, 'version', { ...running, value: 'v24.21.0' });
        expect(codeCacheFile(file)).not.toBe(withOptions);
      } finally {
        Object.defineProperty(process, 'version', running);
      }
      expect(codeCacheFile(file)).toBe(withOptions);
    } finally {
      if (options === undefined) delete process.env.NODE_OPTIONS;
      else process.env.NODE_OPTIONS = options;
    }
  });

  it('a cache that cannot be read or written only means no cache', () => {
    write(7);
    fs.mkdirSync(cacheFile());
    fs.writeFileSync(path.join(cacheFile(), 'occupied'), '');
    const b = loadBundle<Exports>(file, record)!;
    expect(() => b.saveCodeCache()).not.toThrow();
    expect(b.exports.answer()).toBe(7);
    expect(fs.readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });
});
