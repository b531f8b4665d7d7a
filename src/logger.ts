import { format } from 'node:util';
import pino from 'pino';
import { currentScope, runWithLogFields } from './lib/request-scope';
import { activeTraceFields } from './lib/tracing';

/** The structured logger type used everywhere (pino). */
export type Logger = pino.Logger;

/**
 * What every log line written while serving one request carries: filled in
 * as the request proceeds (the route once the router matched it, the client and tenant once
 * the credentials were checked).
 */
export interface RequestLogFields {
  requestId: string;
  /** Route pattern (`/sqs/api/groups/:id`), never the raw path with its identifiers. */
  route?: string;
  /** Username of the authenticated API client. */
  client?: string;
  /** The authenticated client's tenant. */
  tenant?: string;
}

/**
 * Runs `fn` (a request's whole handling) with `fields` attached to every line logged by any
 * logger from {@link createLogger} meanwhile, also by code that has no request at hand (Apollo's
 * error formatting, knex warnings). `fields` may be completed later by mutating it. The fields
 * live in the request's one scope (src/lib/request-scope.ts), beside its deadline.
 */
export function withRequestLogFields<T>(fields: RequestLogFields, fn: () => T): T {
  return runWithLogFields(fields, fn);
}

/** The running request's log fields, or undefined outside a request. */
export function requestLogFields(): RequestLogFields | undefined {
  return currentScope()?.log;
}

/**
 * The running request's log fields as a new plain object (getters read now; pino merges the
 * line's own fields into it), or an empty one outside a request; with tracing on, also
 * `trace_id` and `span_id` of the active span (docs/platform.md "Tracing").
 */
function requestMixin(): object {
  const log = currentScope()?.log;
  const traced = activeTraceFields();
  if (!log) return traced ?? {};
  const fields = { requestId: log.requestId, route: log.route, client: log.client, tenant: log.tenant };
  return traced ? Object.assign(fields, traced) : fields;
}

/**
 * Secrets that must never reach a log line even when an object holding them is logged by
 * mistake: credentials headers (both spellings), passwords, OAuth client secrets and tokens.
 */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.authorisation',
  '*.authorization',
  '*.authorisation',
  '*.password',
  '*.client_secret',
  '*.access_token',
  '*.token',
  'password',
  'client_secret',
  'token',
];

/**
 * Creates the process logger writing JSON lines (ISO `time`) at `level` to `destination`
 * (default stdout). Lines written while a request is served carry its
 * {@link RequestLogFields}.
 */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: undefined,
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: REDACTED_PATHS,
      mixin: requestMixin,
    },
    destination,
  );
}

const CONSOLE_LEVELS = { log: 'info', info: 'info', debug: 'debug', warn: 'warn', error: 'error' } as const;

/**
 * Sends `console.*` output of the process (drivers print warnings there: mysql2's ignored
 * configuration options or out-of-order packets) through `logger` as JSON lines with
 * `source: "console"`, so nothing but JSON reaches the log stream. Returns a function restoring
 * the console.
 */
export function routeConsoleToLogger(logger: Logger): () => void {
  const saved = { ...console };
  for (const [method, level] of Object.entries(CONSOLE_LEVELS))
    (console as unknown as Record<string, unknown>)[method] = (...args: unknown[]) =>
      logger[level]({ source: 'console' }, format(...args));
  return () => Object.assign(console, saved);
}
