import { spawnSync } from 'node:child_process';
import { DEFAULT_HEAP_MODE, HEAP_MODES, HEAP_MODE_FLAGS, applyHeapMode } from '../../src/lib/heap';

/** HEAP_MODE: the flags of each mode, and that V8 takes them at run time. */
describe('heap modes', () => {
  it('balanced (the default) and compact bound old-generation growth; every mode turns allocation-site pretenuring off', () => {
    expect(HEAP_MODES).toEqual(['balanced', 'compact', 'v8']);
    expect(DEFAULT_HEAP_MODE).toBe('balanced');
    expect(HEAP_MODE_FLAGS.balanced).toEqual([
      '--no-allocation-site-pretenuring',
      '--heap-growing-percent=40',
    ]);
    expect(HEAP_MODE_FLAGS.compact).toEqual([
      '--no-allocation-site-pretenuring',
      '--heap-growing-percent=20',
    ]);
    expect(HEAP_MODE_FLAGS.v8).toEqual(['--no-allocation-site-pretenuring']);
    expect(applyHeapMode('v8')).toEqual(HEAP_MODE_FLAGS.v8);
  });

  it('every flag of every mode is one this V8 knows and accepts while running', () => {
    const all = [...new Set(HEAP_MODES.flatMap((m) => HEAP_MODE_FLAGS[m]))];
    // Unknown flags make `node` refuse to start; the same flags given at run time must not throw.
    const known = spawnSync(process.execPath, [...all, '-e', '0']);
    expect({ status: known.status, stderr: known.stderr.toString() }).toEqual({ status: 0, stderr: '' });
    const bogus = spawnSync(process.execPath, ['--heap-growing-percentage=20', '-e', '0']);
    expect(bogus.status).not.toBe(0);
    const runtime = spawnSync(process.execPath, [
      '-e',
      `require('node:v8'); for (const f of ${JSON.stringify(all)}) require('node:v8').setFlagsFromString(f); console.log('ok')`,
    ]);
    expect(runtime.stdout.toString().trim()).toBe('ok');
  });
});
