import {
  Attributes,
  ROOT_CONTEXT,
  Context,
  Span,
  SpanKind,
  SpanStatusCode,
  Tracer,
  context,
  propagation,
  trace,
} from '@opentelemetry/api';

/*
 * OpenTelemetry traces (docs/platform.md "Tracing"). The code paths use only
 * @opentelemetry/api; the SDK (@opentelemetry/sdk-node with the HTTP server instrumentation) is
 * loaded and started by {@link startTracing} when the standard OTEL_* variables ask for traces,
 * and not loaded at all otherwise. Every helper here first checks {@link tracingOn}, a module
 * variable, so that with tracing off a request pays one branch per helper call and allocates
 * nothing.
 *
 * The started SDK is kept on `globalThis` (a registered symbol), not only in this module: the
 * process entry (src/main.ts, compiled modules) starts it before the bundled server
 * (dist/gateway.js, which has its own copy of this module) is loaded, and the bundled copy must
 * see it as started. @opentelemetry/api keeps its global provider the same way, so the bundled
 * API copy reaches the SDK's tracer provider.
 */

/** What {@link startTracing} leaves on `globalThis`: the running SDK. */
interface RunningSdk {
  shutdown(): Promise<void>;
}

const SDK_KEY = Symbol.for('subscriber-gateway.tracing.sdk');
const holder = globalThis as typeof globalThis & { [SDK_KEY]?: RunningSdk };

let tracingOn = holder[SDK_KEY] !== undefined;
let tracer: Tracer | undefined;

/** The service name when OTEL_SERVICE_NAME is unset. */
export const DEFAULT_SERVICE_NAME = 'subscriber-gateway';

/** Paths whose requests make no span (probes and scrapes: frequent and uninteresting). */
const UNTRACED_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

/**
 * Whether the environment asks for traces: OTEL_TRACES_EXPORTER names an exporter other than
 * `none`, or (OTEL_TRACES_EXPORTER unset) OTEL_EXPORTER_OTLP_ENDPOINT or
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set; never when OTEL_SDK_DISABLED is `true`.
 * OTEL_SERVICE_NAME, OTEL_TRACES_SAMPLER and OTEL_EXPORTER_OTLP_PROTOCOL alone ask for nothing.
 */
export function tracingRequested(env: NodeJS.ProcessEnv = process.env): boolean {
  if ((env.OTEL_SDK_DISABLED ?? '').trim().toLowerCase() === 'true') return false;
  const exporters = (env.OTEL_TRACES_EXPORTER ?? '')
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean);
  if (exporters.length) return exporters.some((e) => e !== 'none');
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim());
}

/**
 * Starts the OpenTelemetry SDK when {@link tracingRequested} says so, once per process (later
 * calls only note that it runs); returns whether tracing is on. Must run before the server's
 * modules load `node:http` (the HTTP server instrumentation hooks `require`). Traces only: no
 * metrics (Prometheus has them) and no log export. The SDK reads the rest of its configuration
 * from the standard variables: exporter and protocol (`http/protobuf`, the default, or
 * `http/json`), endpoint, sampler (default `parentbased_always_on`), propagators (default W3C
 * `traceparent` and baggage), batch delays, resource attributes.
 */
export function startTracing(env: NodeJS.ProcessEnv = process.env): boolean {
  if (!holder[SDK_KEY]) {
    if (!tracingRequested(env)) return false;
    // Loaded only here: with tracing off the SDK is never required.
    const { NodeSDK } = require('@opentelemetry/sdk-node') as typeof import('@opentelemetry/sdk-node');
    const { HttpInstrumentation } =
      require('@opentelemetry/instrumentation-http') as typeof import('@opentelemetry/instrumentation-http');
    const sdk = new NodeSDK({
      serviceName: env.OTEL_SERVICE_NAME?.trim() ? undefined : DEFAULT_SERVICE_NAME,
      instrumentations: [
        new HttpInstrumentation({
          ignoreIncomingRequestHook: (req) => UNTRACED_PATHS.has((req.url ?? '').split('?')[0]),
          ignoreOutgoingRequestHook: () => true,
        }),
      ],
      metricReaders: [],
      logRecordProcessors: [],
    });
    sdk.start();
    holder[SDK_KEY] = sdk;
  }
  tracingOn = true;
  return true;
}

/**
 * Flushes the spans not yet exported and stops the SDK (graceful shutdown), within `timeoutMs`;
 * does nothing when tracing is off. Never throws.
 */
export async function stopTracing(timeoutMs = 5000): Promise<void> {
  const sdk = holder[SDK_KEY];
  if (!sdk) return;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    sdk.shutdown().catch(() => undefined),
    new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs))),
  ]);
  clearTimeout(timer);
}

/** Whether spans are being made (the SDK runs in this process). */
export function tracingActive(): boolean {
  return tracingOn;
}

function gatewayTracer(): Tracer {
  return (tracer ??= trace.getTracer(DEFAULT_SERVICE_NAME));
}

/**
 * Runs `fn` inside a new span `name` (a child of the active span, and itself active within
 * `fn`), ended when `fn` settles; a rejection sets the span's status to ERROR with the error's
 * message and rethrows. With tracing off it is `fn()`.
 */
export function inSpan<T>(
  name: string,
  attributes: Attributes,
  fn: () => Promise<T>,
  kind: SpanKind = SpanKind.INTERNAL,
): Promise<T> {
  if (!tracingOn) return fn();
  return gatewayTracer().startActiveSpan(name, { kind, attributes }, (span) => settleSpan(span, fn()));
}

/**
 * Starts span `name` as a child of `parent` (default: the active context) without making it
 * active; undefined with tracing off. The caller ends it (see {@link settleSpan}).
 */
export function startSpan(
  name: string,
  attributes: Attributes,
  kind: SpanKind,
  parent: Context = context.active(),
): Span | undefined {
  if (!tracingOn) return undefined;
  return gatewayTracer().startSpan(name, { kind, attributes }, parent);
}

/**
 * Starts span `name` as a child of the active span, not made active; undefined with tracing off
 * or when no span is active (work outside any traced request, such as the relay's polling or
 * start-up migrations, makes no trace of its own). The caller ends it (see {@link settleSpan}).
 */
export function startChildSpan(name: string, attributes: Attributes, kind: SpanKind): Span | undefined {
  if (!tracingOn || !trace.getActiveSpan()) return undefined;
  return gatewayTracer().startSpan(name, { kind, attributes });
}

/**
 * Ends `span` when `work` settles (status ERROR with the error's message on a rejection) and
 * returns `work` unchanged.
 */
export function settleSpan<T>(span: Span, work: Promise<T>): Promise<T> {
  return work.then(
    (value) => {
      span.end();
      return value;
    },
    (err: unknown) => {
      span.setStatus({
        code: SpanStatusCode.ERROR,
        message: err instanceof Error ? err.message : String(err),
      });
      span.end();
      throw err;
    },
  );
}

/**
 * Names the active span (the HTTP server span of the request) after the matched route,
 * `<method> <route pattern>`, and sets its `http.route`; nothing with tracing off.
 */
export function nameServerSpan(method: string, route: string): void {
  if (!tracingOn) return;
  const span = trace.getActiveSpan();
  span?.updateName(`${method} ${route}`);
  span?.setAttribute('http.route', route);
}

/**
 * The active span's W3C `traceparent` (`00-<trace id>-<span id>-<flags>`, 55 characters), or
 * null with tracing off or no sampled span active: what the outbox stores with an event so that
 * its later publication joins the request's trace.
 */
export function currentTraceparent(): string | null {
  if (!tracingOn) return null;
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent ?? null;
}

/**
 * The context a stored `traceparent` names (a remote parent), for a span made later from it;
 * the root context (a new trace) when `traceparent` is null or malformed.
 */
export function contextOfTraceparent(traceparent: string | null): Context {
  return traceparent ? propagation.extract(ROOT_CONTEXT, { traceparent }) : ROOT_CONTEXT;
}

/**
 * `trace_id` and `span_id` of the active span for a log line (hex, as in `traceparent`), or
 * undefined with tracing off or no span active.
 */
export function activeTraceFields(): { trace_id: string; span_id: string } | undefined {
  if (!tracingOn) return undefined;
  const span = trace.getActiveSpan();
  if (!span) return undefined;
  const { traceId, spanId } = span.spanContext();
  return { trace_id: traceId, span_id: spanId };
}

export { SpanKind };
