import { spawnSync } from 'node:child_process';
import path from 'node:path';

// scripts/start-flags.js is plain CommonJS shared by the build and the bench.
const { startFlags } = require('../../scripts/start-flags') as { startFlags(): string[] };

/**
 * Resident memory under load: `npm start` caps V8's young generation with a node flag
 * (V8 takes it only at process start); the build primes the code cache and the bench starts the
 * gateway and its baselines with the flags startFlags() reads from package.json.
 */
describe("npm start's node flags", () => {
  it('are read from the start script and cap the semi-spaces at 4 MiB', () => {
    expect(startFlags()).toEqual(['--max-semi-space-size=4']);
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
    expect(Number(run.stdout.toString())).toBeLessThanOrEqual(2 * 4 * 1024 * 1024);
  });
});
