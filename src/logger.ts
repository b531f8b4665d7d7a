import pino from 'pino';

/** The structured logger type used everywhere (pino). */
export type Logger = pino.Logger;

/** Creates the process logger writing JSON lines to stdout at `level`. */
export function createLogger(level: string): Logger {
  return pino({ level, base: undefined, redact: ['req.headers.authorization', 'req.headers.authorisation'] });
}
