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
 * The paths in pino's `redact` syntax (`*` is any key of the line's top level); applied by
 * {@link redactSecrets}, with the same `[Redacted]` censor.
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

/** What a redacted value is replaced with (pino's own censor). */
export const REDACTED = '[Redacted]';

/** The keys of {@link REDACTED_PATHS} whose path starts with `prefix` (`''`: the top-level keys). */
function secretKeys(prefix: string): ReadonlySet<string> {
  return new Set(
    REDACTED_PATHS.filter((p) => p.startsWith(prefix) && !p.slice(prefix.length).includes('.')).map((p) =>
      p.slice(prefix.length),
    ),
  );
}

/** Keys redacted at a line's top level. */
const SECRET_TOP = secretKeys('');
/** Keys redacted one level down, under any top-level key (`*.key`). */
const SECRET_NESTED = secretKeys('*.');
/** Keys redacted in `req.headers`. */
const SECRET_HEADERS = secretKeys('req.headers.');

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;

/** `o` with the own keys in `secrets` that it has replaced by {@link REDACTED}, as a copy; `o` itself when it has none. */
function withoutKeys(o: Record<string, unknown>, secrets: ReadonlySet<string>): Record<string, unknown> {
  let copy: Record<string, unknown> | undefined;
  for (const key in o)
    if (secrets.has(key) && Object.prototype.hasOwnProperty.call(o, key) && o[key] !== undefined)
      (copy ??= { ...o })[key] = REDACTED;
  return copy ?? o;
}

/**
 * A log line's object with every {@link REDACTED_PATHS} value replaced by `[Redacted]`, as pino's
 * `redact` option did, but as a plain function (pino's `formatters.log`): a line that holds no
 * secret, like every access log line, is returned as it is after a look at its keys, with no
 * path walking and no copy (pino's redaction was 5.7 % of a REST request's busy time, issue 33).
 * The logged objects are never changed: what holds a secret is copied.
 */
export function redactSecrets(line: Record<string, unknown>): Record<string, unknown> {
  let out = withoutKeys(line, SECRET_TOP);
  for (const key in line) {
    const value = line[key];
    if (!isObject(value) || !Object.prototype.hasOwnProperty.call(line, key) || SECRET_TOP.has(key)) continue;
    let inner = withoutKeys(value, SECRET_NESTED);
    if (key === 'req' && isObject(inner.headers)) {
      const headers = withoutKeys(inner.headers, SECRET_HEADERS);
      if (headers !== inner.headers) inner = { ...inner, headers };
    }
    if (inner !== value) {
      if (out === line) out = { ...line };
      out[key] = inner;
    }
  }
  return out;
}

/**
 * Creates the process logger writing JSON lines (ISO `time`) at `level` to `destination`
 * (default stdout). Lines written while a request is served carry its
 * {@link RequestLogFields}; secrets are redacted ({@link redactSecrets}).
 */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: undefined,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { log: redactSecrets },
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
