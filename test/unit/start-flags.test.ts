import { spawnSync } from 'node:child_process';
import path from 'node:path';

// scripts/start-flags.js is plain CommonJS shared by the build and the bench.
const { startFlags, startEnv } = require('../../scripts/start-flags') as {
  startFlags(): string[];
  startEnv(): Record<string, string>;
};

/**
 * Resident memory under load: `npm start` caps V8's young generation with a node flag
 * (V8 takes it only at process start); the build primes the code cache and the bench starts the
 * gateway and its baselines with the flags startFlags() reads from package.json.
 */
describe("npm start's node flags and environment", () => {
  it('are read from the start script and cap the semi-spaces at 8 MiB', () => {
    expect(startFlags()).toEqual(['--max-semi-space-size=8']);
  });

  it('are flags this node accepts, and V8 applies the cap', () => {
    const run = spawnSync(
      process.execPath,
      [
        ...startFlags(),
        '-e',
        // Allocate enough to let the young generation grow to its maximum, then report it.
        "let a = []; for (let i = 0; i < 2e6; i++) { a.push({ i }); if (a.length > 5e4) a = []; } console.log(require('node:v8').getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size)",
      ],
      { cwd: path.join(__dirname, '../..') },
    );
    expect(run.stderr.toString()).toBe('');
    expect(run.status).toBe(0);
    expect(Number(run.stdout.toString())).toBeLessThanOrEqual(2 * 8 * 1024 * 1024);
  });

  it('set a fixed malloc threshold, and with it the 16 MiB of each scrypt verification go back to the system', () => {
    expect(startEnv()).toEqual({ MALLOC_MMAP_THRESHOLD_: '4194304' });
    // Three rounds of four verifications at once on the thread pool (N=16384 r=8, as
    // src/auth/password.ts), as failed logins run them; prints the RSS they left, in MiB.
    const script = `
      const { scrypt } = require('node:crypto');
      const one = (i) => new Promise((resolve, reject) => scrypt('wrong-' + i, 'a-16-byte-salt!!', 32,
        { N: 16384, r: 8, p: 1, maxmem: 64 << 20 }, (err, key) => (err ? reject(err) : resolve(key))));
      const round = () => Promise.all([0, 1, 2, 3].map(one));
      (async () => {
        const before = process.memoryUsage().rss;
        for (let i = 0; i < 3; i++) await round();
        console.log(Math.round((process.memoryUsage().rss - before) / 1048576));
      })();`;
    const leftMiB = (env: NodeJS.ProcessEnv): number => {
      const run = spawnSync(process.execPath, ['-e', script], { env });
      expect(run.stderr.toString()).toBe('');
      return Number(run.stdout.toString());
    };
    const { MALLOC_MMAP_THRESHOLD_: _, ...inherited } = process.env;
    expect(leftMiB({ ...inherited, ...startEnv() })).toBeLessThan(8);
    // Without it glibc raises its threshold after the first free and keeps later buffers in
    // each thread's arena (the reason for the setting; glibc only).
    const glibc = (process.report.getReport() as { header: { glibcVersionRuntime?: string } }).header
      .glibcVersionRuntime;
    if (glibc) expect(leftMiB(inherited)).toBeGreaterThanOrEqual(32);
  });
});
