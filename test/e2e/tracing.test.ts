import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { startTracing, tracingActive, tracingRequested } from '../../src/lib/tracing';
import { TEST_AMQP_URL, brokerReachable } from '../helpers/amqp';
import { waitFor } from '../helpers/wait';

/**
 * docs/platform.md "Tracing": the built gateway (`node dist/src/main.js`, the bundle)
 * started with the standard OTEL_* variables sends the spans of one REST charge to an OTLP/HTTP
 * receiver (JSON protocol) under the caller's `traceparent`: the HTTP server span, the row's
 * operation span, a span per database statement with `db.system`, and (with a broker) the
 * publication of the charge's event; the log lines of the request carry `trace_id` and `span_id`.
 */

interface OtlpAttribute {
  key: string;
  value: { stringValue?: string; intValue?: string | number; boolValue?: boolean };
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: OtlpAttribute[];
}
interface OtlpTraces {
  resourceSpans: Array<{
    resource?: { attributes?: OtlpAttribute[] };
    scopeSpans: Array<{ spans: OtlpSpan[] }>;
  }>;
}

const SPAN_KIND = { INTERNAL: 1, SERVER: 2, CLIENT: 3, PRODUCER: 4 };

const attr = (s: { attributes?: OtlpAttribute[] } | undefined, key: string) => {
  const v = s?.attributes?.find((a) => a.key === key)?.value;
  return v?.stringValue ?? v?.intValue ?? v?.boolValue;
};

/** An OTLP/HTTP receiver: decodes the JSON protocol POSTed to `/v1/traces`, keeps every span. */
async function startReceiver(): Promise<{
  url: string;
  spans: OtlpSpan[];
  serviceNames: Set<string>;
  close(): Promise<void>;
}> {
  const spans: OtlpSpan[] = [];
  const serviceNames = new Set<string>();
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      if (req.url === '/v1/traces' && /json/.test(req.headers['content-type'] ?? '')) {
        const traces = JSON.parse(body) as OtlpTraces;
        for (const rs of traces.resourceSpans) {
          serviceNames.add(String(attr(rs.resource, 'service.name')));
          for (const ss of rs.scopeSpans) spans.push(...ss.spans);
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    serviceNames,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const withBroker = brokerReachable();

describe('one REST charge is one trace at an OTLP/HTTP receiver (the built gateway)', () => {
  let proc: ChildProcess | undefined;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let base = '';
  const logLines: Array<Record<string, unknown>> = [];
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sg-tracing-'));

  beforeAll(async () => {
    receiver = await startReceiver();
    const port = 25000 + (process.pid % 5000);
    base = `http://127.0.0.1:${port}`;
    proc = spawn(process.execPath, [path.join(__dirname, '../../dist/src/main.js')], {
      env: {
        PATH: process.env.PATH ?? '',
        DATABASE_URL: `sqlite:${path.join(dir, 'g.sqlite3')}`,
        PORT: String(port),
        HOST: '127.0.0.1',
        DEMO_DATA: 'true',
        NODE_ENV: 'development',
        LOG_LEVEL: 'info',
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_SERVICE_NAME: 'gateway-under-test',
        OTEL_BSP_SCHEDULE_DELAY: '100',
        ...(withBroker
          ? {
              AMQP_URL: TEST_AMQP_URL,
              AMQP_EXCHANGE: `sg-tracing-${randomBytes(4).toString('hex')}`,
              OUTBOX_POLL_INTERVAL_MS: '20',
            }
          : {}),
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let pending = '';
    proc.stdout!.setEncoding('utf8');
    proc.stdout!.on('data', (chunk: string) => {
      pending += chunk;
      const lines = pending.split('\n');
      pending = lines.pop()!;
      for (const line of lines)
        if (line.startsWith('{')) logLines.push(JSON.parse(line) as Record<string, unknown>);
    });
    await waitFor(
      () =>
        fetch(`${base}/healthz`).then(
          (r) => r.ok,
          () => false,
        ),
      {
        what: 'the gateway to listen',
        timeoutMs: 25_000,
        intervalMs: 100,
      },
    );
  }, 40_000);

  afterAll(async () => {
    proc?.kill('SIGKILL');
    await receiver?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('continues the caller trace: server span, operation span, statement spans, publish span, log fields', async () => {
    const traceId = randomBytes(16).toString('hex');
    const callerSpanId = randomBytes(8).toString('hex');
    const body = {
      msisdn: '+353871234567',
      ratingParams: {
        msisdn: '353871234567',
        operationId: `op-trace-${traceId.slice(0, 8)}`,
        contentId: 'ringtone-42',
        contentDescription: 'Ringtone',
        lookup: {
          providerId: '6010',
          applicationId: '50000029',
          serviceId: '30000020',
          originId: '9',
          bundleId: '1234',
        },
      },
    };
    const res = await fetch(`${base}/crs-api/processRating`, {
      method: 'POST',
      headers: {
        authorization: 'Basic ' + Buffer.from('demo:demo-password').toString('base64'),
        tenant: 'demo',
        'content-type': 'application/json',
        accept: 'application/json',
        traceparent: `00-${traceId}-${callerSpanId}-01`,
      },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ returnCode: 0 });

    const ofTrace = () => receiver.spans.filter((s) => s.traceId === traceId);
    const describeSpans = () =>
      ofTrace()
        .map((s) => `${s.name} (${s.kind})`)
        .join(', ');
    const server = await waitFor(() => ofTrace().find((s) => s.kind === SPAN_KIND.SERVER), {
      what: 'the HTTP server span',
      detail: describeSpans,
    });
    expect(server.parentSpanId).toBe(callerSpanId);
    expect(server.name).toBe('POST /crs-api/processRating');
    expect(attr(server, 'http.route')).toBe('/crs-api/processRating');

    const operation = await waitFor(
      () => ofTrace().find((s) => s.parentSpanId === server.spanId && attr(s, 'graphql.operation.type')),
      { what: 'the operation span under the server span', detail: describeSpans },
    );
    expect(operation.name).toMatch(/^mutation \w+/);
    expect(attr(operation, 'graphql.operation.type')).toBe('mutation');

    const statements = await waitFor(
      () => {
        const found = ofTrace().filter((s) => s.kind === SPAN_KIND.CLIENT && attr(s, 'db.system'));
        return found.some((s) => /^\s*update/i.test(String(attr(s, 'db.statement')))) ? found : undefined;
      },
      { what: 'statement spans including the balance update', detail: describeSpans },
    );
    for (const s of statements) {
      expect(attr(s, 'db.system')).toBe('sqlite');
      // Statements carry placeholders, never the bound values.
      expect(String(attr(s, 'db.statement'))).not.toContain('353871234567');
    }
    const ids = new Set(ofTrace().map((s) => s.spanId));
    expect(statements.every((s) => ids.has(s.parentSpanId!))).toBe(true);
    expect(statements.some((s) => s.parentSpanId === operation.spanId)).toBe(true);
    expect(receiver.serviceNames).toContain('gateway-under-test');

    if (withBroker) {
      const publish = await waitFor(() => ofTrace().find((s) => s.kind === SPAN_KIND.PRODUCER), {
        what: 'the publish span of the charge event',
        detail: describeSpans,
      });
      expect(attr(publish, 'messaging.system')).toBe('rabbitmq');
      expect(String(attr(publish, 'messaging.rabbitmq.destination.routing_key'))).toMatch(/^demo\.charge\./);
      // The outbox kept the traceparent of the span that recorded the event: the operation span.
      expect(publish.parentSpanId).toBe(operation.spanId);
    }

    const traced = await waitFor(() => logLines.filter((l) => l.trace_id === traceId), {
      what: 'a log line of the request with its trace_id',
    });
    expect(traced[0].span_id).toMatch(/^[0-9a-f]{16}$/);
  });

  it('gives a /graphql operation its span under the server span', async () => {
    const traceId = randomBytes(16).toString('hex');
    const res = await fetch(`${base}/graphql`, {
      method: 'POST',
      headers: {
        authorization: 'Basic ' + Buffer.from('demo:demo-password').toString('base64'),
        tenant: 'demo',
        'content-type': 'application/json',
        traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01`,
      },
      body: JSON.stringify({ query: 'query Ping { __typename }' }),
    });
    expect(res.status).toBe(200);
    const ofTrace = () => receiver.spans.filter((s) => s.traceId === traceId);
    const server = await waitFor(() => ofTrace().find((s) => s.kind === SPAN_KIND.SERVER), {
      what: 'the HTTP server span of /graphql',
    });
    const operation = await waitFor(() => ofTrace().find((s) => s.name === 'query Ping'), {
      what: 'the operation span of /graphql',
    });
    expect(operation.parentSpanId).toBe(server.spanId);
    expect(attr(operation, 'graphql.operation.name')).toBe('Ping');
  });
});

describe('tracing off unless the OTEL_* variables ask for it', () => {
  it.each([
    [{}, false],
    [
      { OTEL_SERVICE_NAME: 'x', OTEL_TRACES_SAMPLER: 'always_on', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' },
      false,
    ],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }, true],
    [{ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' }, true],
    [{ OTEL_TRACES_EXPORTER: 'otlp' }, true],
    [{ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }, false],
    [{ OTEL_SDK_DISABLED: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }, false],
  ])('%j: %s', (env, on) => {
    expect(tracingRequested(env as NodeJS.ProcessEnv)).toBe(on);
  });

  it('starts nothing with no variable set', () => {
    expect(startTracing({})).toBe(false);
    expect(tracingActive()).toBe(false);
  });
});
