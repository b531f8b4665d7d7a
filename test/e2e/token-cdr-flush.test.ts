import { hashToken } from '../../src/modules/tokens/token.service';
import { TokenTx } from '../../src/modules/cdrs/cdr.layouts';
import { TestApp, startTestApp } from '../helpers/app';
import { waitFor } from '../helpers/wait';

describe('token CDRs "validate" over HTTP: written after the answer, flushed on close', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(() => app.close());

  const validates = async (token: string): Promise<number> =>
    Number(
      (
        await app.tdb
          .db('cdrs')
          .where({
            type: 'token',
            transaction_type: TokenTx.VALIDATE,
            record_id: hashToken(token).slice(0, 16),
          })
          .count({ n: '*' })
      )[0].n,
    );

  it('every introspection of a burst gets its CDR "validate"', async () => {
    const issued = await app.request('POST', '/token', {
      as: 'portal',
      json: true,
      body: { grant_type: 'client_credentials', client_id: '353871234567' },
    });
    const token = (issued.json() as { access_token: string }).access_token;
    const answers = await Promise.all(
      Array.from({ length: 25 }, () =>
        app.request('POST', '/token/introspect', { as: 'portal', json: true, body: { token } }),
      ),
    );
    expect(answers.every((r) => r.status === 200 && (r.json() as { active: boolean }).active)).toBe(true);
    await waitFor(async () => (await validates(token)) === 25, {
      what: '25 token CDRs "validate"',
      detail: async () => `${await validates(token)} written`,
    });
  });

  it('close() writes the ones still buffered', async () => {
    const { tokens } = app.app.services;
    const acme = await app.tdb.db('api_clients').where({ username: 'portal' }).first();
    const caller = { clientId: acme.id, tenantId: acme.tenant_id, actor: 'portal' };
    const { accessToken } = await tokens.issue(caller, 'client_credentials', '353871234567');
    const flush = jest.spyOn(tokens, 'flushCdrs');
    await Promise.all(Array.from({ length: 10 }, () => tokens.introspect(caller, accessToken)));
    await app.app.close(); // the gateway's own close (the test database stays open until afterAll)
    expect(flush).toHaveBeenCalled();
    expect(await validates(accessToken)).toBe(10);
  });
});
