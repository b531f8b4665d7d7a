import { createLogger, routeConsoleToLogger, withRequestLogFields } from '../../src/logger';

describe('the process logger', () => {
  const capture = () => {
    const written: string[] = [];
    const logger = createLogger('info', { write: (s: string) => written.push(s) });
    return { logger, lines: () => written.map((l) => JSON.parse(l) as Record<string, unknown>) };
  };

  it('writes console output of drivers as JSON lines through pino, and restores the console', () => {
    const { logger, lines } = capture();
    const original = console.warn;
    const restore = routeConsoleToLogger(logger);
    try {
      console.warn('Ignoring invalid configuration option passed to Connection: %s', 'foo');
      console.error(new Error('Warning: got packets out of order'));
    } finally {
      restore();
    }
    expect(console.warn).toBe(original);
    expect(lines()).toEqual([
      expect.objectContaining({
        level: 40,
        source: 'console',
        msg: 'Ignoring invalid configuration option passed to Connection: foo',
      }),
      expect.objectContaining({
        level: 50,
        source: 'console',
        msg: expect.stringContaining('packets out of order'),
      }),
    ]);
  });

  it('adds the running request fields to every line, and redacts secrets in logged objects', () => {
    const { logger, lines } = capture();
    withRequestLogFields({ requestId: 'r-1', route: '/token', tenant: 'acme' }, () =>
      logger.warn(
        { req: { headers: { authorization: 'Basic c2VjcmV0' } }, body: { client_secret: 's3' } },
        'x',
      ),
    );
    logger.info('outside');
    const [inside, outside] = lines();
    expect(inside).toMatchObject({ requestId: 'r-1', route: '/token', tenant: 'acme', msg: 'x' });
    expect(JSON.stringify(inside)).not.toMatch(/c2VjcmV0|s3/);
    expect(outside.requestId).toBeUndefined();
    expect(typeof outside.time).toBe('string');
  });
});
