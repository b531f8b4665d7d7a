import { serverAudits } from 'graphql-http';
import { TestApp, startTestApp } from '../helpers/app';
import { basic } from '../helpers/fixtures';

/**
 * The GraphQL over HTTP specification's audit (graphql-http's `serverAudits`) against `/graphql`,
 * as an authenticated client sends it (every operation but introspection needs credentials,
 * CONTRACT §2): no audit of a MUST may fail (the audit has 0 errors).
 * SHOULD and MAY audits that fail are listed in the test's output, not failed on.
 */
describe('GraphQL over HTTP audit (graphql-http)', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(() => app.close());

  it('passes every MUST audit', async () => {
    const authorization = basic('admin');
    const fetchFn = (input: string | URL | Request, init: RequestInit = {}) =>
      fetch(input, { ...init, headers: { ...(init.headers as Record<string, string>), authorization } });
    const results = await Promise.all(
      serverAudits({ url: `${app.url}/graphql`, fetchFn }).map(async (audit) => ({
        name: audit.name,
        result: await audit.fn(),
      })),
    );
    expect(results.length).toBeGreaterThan(20);
    const failed = (status: string) =>
      results
        .filter((r) => r.result.status === status)
        .map((r) => `${r.name}: ${'reason' in r.result ? r.result.reason : ''}`);
    const warnings = failed('warn');
    if (warnings.length) console.log(`graphql-http audit warnings (SHOULD/MAY):\n${warnings.join('\n')}`);
    expect(failed('error')).toEqual([]);
  });
});
