import { waitFor } from '../helpers/wait';

describe('waitFor (the tests’ one way to wait for a condition)', () => {
  it('resolves with the first truthy value of the condition', async () => {
    let calls = 0;
    await expect(
      waitFor(() => ++calls >= 3 && 'ready', { what: 'three calls', intervalMs: 1 }),
    ).resolves.toBe('ready');
    expect(calls).toBe(3);
  });

  it('fails after its deadline naming what it waited for and what it saw', async () => {
    await expect(
      waitFor(() => false, {
        what: 'the impossible',
        timeoutMs: 30,
        intervalMs: 5,
        detail: () => 'still false',
      }),
    ).rejects.toThrow('timed out after 30 ms waiting for the impossible (still false)');
  });

  it('rejects at once when the condition throws', async () => {
    const started = performance.now();
    await expect(
      waitFor(
        () => {
          throw new Error('broken check');
        },
        { what: 'anything', timeoutMs: 5000 },
      ),
    ).rejects.toThrow('broken check');
    expect(performance.now() - started).toBeLessThan(1000);
  });
});
