import { ROUTES } from '../../src/rest/routes';
import { RestRoute } from '../../src/rest/route';
import { TestApp, startTestApp } from '../helpers/app';
import { basic } from '../helpers/fixtures';
import { genericAnswer } from '../helpers/rest-generic';

/**
 * `POST /token/introspect` answers through its row's `resolve` (the
 * `introspectToken` resolver's own function, without GraphQL execution). Its status and bytes
 * must be the generic path's (the row's operation executed, `result`, the serialiser) for every
 * outcome: active, inactive (unknown, other tenant's, revoked, expired), bad input and a caller
 * without the grant, in JSON and XML, on the database the suite runs on.
 */
describe('POST /token/introspect: resolve answers the generic path byte for byte', () => {
  let app: TestApp;
  const row = ROUTES.find((r) => r.method === 'POST' && r.path === '/token/introspect') as RestRoute<never>;

  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(() => app.close());

  const issue = async (as: string, msisdn = '353871234567') => {
    const res = await app.request('POST', '/token', {
      as,
      json: true,
      body: { grant_type: 'client_credentials', client_id: msisdn },
    });
    expect(res.status).toBe(201);
    return res.json().access_token as string;
  };

  /** REST answer (the resolve path) and the generic answer for one body, caller and format. */
  async function both(body: Record<string, unknown>, as: string, format: 'json' | 'xml') {
    const res = await app.request('POST', '/token/introspect', {
      as,
      body,
      headers: format === 'json' ? { accept: 'application/json' } : { accept: 'application/xml' },
    });
    const generic = await genericAnswer(app, row, { params: {}, query: {}, body }, format, basic(as));
    return { mine: { status: res.status, text: res.text }, theirs: generic };
  }

  it('the row has a resolve (else this compares the generic path with itself)', () => {
    expect(typeof row.resolve).toBe('function');
  });

  it.each(['json', 'xml'] as const)('every outcome, %s: same status, same bytes', async (format) => {
    const active = await issue('portal');
    const rivals = await issue('rival', '353871111111');
    const revoked = await issue('portal', '353872222222');
    const revoke = await app.request('POST', '/graphql', {
      as: 'portal',
      body: {
        query: 'mutation R($t: String!) { revokeToken(token: $t) { revoked userErrors { code } } }',
        variables: { t: revoked },
      },
    });
    expect(revoke.json()).toEqual({ data: { revokeToken: { revoked: true, userErrors: [] } } });
    const cases: [Record<string, unknown>, string][] = [
      [{ token: active }, 'portal'],
      [{ token: rivals }, 'portal'],
      [{ token: revoked }, 'portal'],
      [{ token: 'no-such-token' }, 'portal'],
      [{ token: null }, 'portal'],
      [{ token: '' }, 'portal'],
      [{}, 'portal'],
      [{ token: active }, 'issuer'],
      [{ token: active }, 'nogrant'],
      [{ token: rivals }, 'rival'],
    ];
    const statuses = new Set<number>();
    for (const [body, as] of cases) {
      const { mine, theirs } = await both(body, as, format);
      expect({ body, as, ...mine }).toEqual({ body, as, ...theirs });
      statuses.add(mine.status);
    }
    // Expired: the same token once the clock passed its expiry.
    app.clock.advanceSeconds(3601);
    const { mine, theirs } = await both({ token: active }, 'portal', format);
    expect(mine).toEqual(theirs);
    app.clock.advanceSeconds(-3601);
    // The cases cover an active answer, inactive ones, bad input and a missing grant.
    expect([...statuses].sort()).toEqual([200, 400, 403]);
    const activeAnswer = await both({ token: active }, 'portal', format);
    expect(activeAnswer.mine.text).toContain(format === 'json' ? '"active":true' : '<active>true</active>');
    expect(mine.text).toContain(format === 'json' ? '"active":false' : '<active>false</active>');
  });
});
