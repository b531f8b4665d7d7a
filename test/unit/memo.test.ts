import { memoByString } from '../../src/lib/memo';

describe('memoByString', () => {
  it('computes each key once, falsy results included, and forgets everything when full', () => {
    const calls: string[] = [];
    const isJson = memoByString((k) => {
      calls.push(k);
      return k.includes('json') ? k.length : 0;
    }, 2);
    expect([
      isJson('application/json'),
      isJson('text/xml'),
      isJson('application/json'),
      isJson('text/xml'),
    ]).toEqual([16, 0, 16, 0]);
    expect(calls).toEqual(['application/json', 'text/xml']);
    // A third key empties the memo: the first two are computed again.
    expect(isJson('a+json')).toBe(6);
    expect(isJson('application/json')).toBe(16);
    expect(calls).toEqual(['application/json', 'text/xml', 'a+json', 'application/json']);
  });
});
