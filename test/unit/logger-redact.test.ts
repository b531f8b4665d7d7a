import { REDACTED, createLogger, redactSecrets } from '../../src/logger';

describe("redactSecrets (the logger's redaction, REDACTED_PATHS)", () => {
  it('replaces every listed path, at the top level, one level down and in req.headers', () => {
    const line = {
      token: 't0',
      password: 'p0',
      client_secret: 'c0',
      req: {
        headers: { authorization: 'Basic c2VjcmV0', authorisation: 'Basic b3RoZXI=', accept: '*/*' },
        method: 'POST',
      },
      body: { token: 't1', access_token: 'a1', password: 'p1', client_secret: 'c1', grant_type: 'x' },
      headers: { authorization: 'Bearer z', authorisation: 'Bearer y' },
      route: '/token',
    };
    const out = redactSecrets(line);
    expect(out).toEqual({
      token: REDACTED,
      password: REDACTED,
      client_secret: REDACTED,
      req: { headers: { authorization: REDACTED, authorisation: REDACTED, accept: '*/*' }, method: 'POST' },
      body: {
        token: REDACTED,
        access_token: REDACTED,
        password: REDACTED,
        client_secret: REDACTED,
        grant_type: 'x',
      },
      headers: { authorization: REDACTED, authorisation: REDACTED },
      route: '/token',
    });
    // The logged objects themselves are left as they were.
    expect(line.body.token).toBe('t1');
    expect(line.req.headers.authorization).toBe('Basic c2VjcmV0');
  });

  it('returns a line without secrets as it is (no copy)', () => {
    const line = {
      route: '/token/introspect',
      method: 'POST',
      status: 200,
      durationMs: 1.2,
      nested: { a: 1 },
    };
    expect(redactSecrets(line)).toBe(line);
  });

  it('keeps secrets out of the written JSON lines', () => {
    const written: string[] = [];
    const logger = createLogger('info', { write: (s: string) => written.push(s) });
    logger.info(
      {
        body: { token: 'tok-secret' },
        password: 'pw-secret',
        req: { headers: { authorization: 'Basic aGk=' } },
      },
      'x',
    );
    expect(written).toHaveLength(1);
    expect(written[0]).not.toMatch(/tok-secret|pw-secret|aGk=/);
    expect(JSON.parse(written[0])).toMatchObject({ body: { token: REDACTED }, password: REDACTED, msg: 'x' });
  });
});
