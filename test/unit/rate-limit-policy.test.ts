import { policyOf, rateLimitHeaders } from '../../src/http/rate-limit';

describe('rate limit policy (docs/operations.md "Rate limits")', () => {
  it.each([
    [5, 5, { points: 5, windowSeconds: 1 }],
    [5, 20, { points: 20, windowSeconds: 4 }],
    [100, 10, { points: 100, windowSeconds: 1 }],
    [0.5, 1, { points: 1, windowSeconds: 2 }],
    [0.1, 1, { points: 1, windowSeconds: 10 }],
    [3, 10, { points: 9, windowSeconds: 3 }],
  ])('%d per second with a burst of %d: %j', (requestsPerSecond, burst, policy) => {
    expect(policyOf({ requestsPerSecond, burst })).toEqual(policy);
  });

  it('writes the RateLimit-Policy and RateLimit fields of a refusal', () => {
    expect(rateLimitHeaders({ points: 5, windowSeconds: 1 }, 1)).toEqual([
      ['ratelimit-policy', '"default";q=5;w=1'],
      ['ratelimit', '"default";r=0;t=1'],
    ]);
  });
});
