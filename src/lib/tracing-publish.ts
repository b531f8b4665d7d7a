import { Span, SpanKind, context, propagation, trace } from '@opentelemetry/api';
import { contextOfTraceparent, settleSpan, startSpan, tracingActive } from './tracing';

/** An outbox event as its publish span sees it (src/modules/events/outbox.store.ts). */
interface Publishable {
  eventId: string;
  type: string;
  tenant: string;
  traceparent: string | null;
}

/** The publish spans of one relay batch: the headers to send with each message, and their end. */
export interface PublishSpans {
  /** Per event, in order: the `traceparent` (and `tracestate`) of its publish span. */
  headers: Array<Record<string, string>>;
  /**
   * Ends every span when `confirmed` (the broker's confirms of the batch) settles, ERROR on a
   * rejection; returns `confirmed` unchanged.
   */
  settle<T>(confirmed: Promise<T>): Promise<T>;
}

/**
 * One producer span per event, `<exchange> publish` with the messaging attributes
 * (`messaging.system` `rabbitmq`, destination, routing key, message id), each the child of the
 * span whose `traceparent` the outbox stored with the event (docs/platform.md "Tracing":
 * the publication joins the trace of the request that made the change, although the relay
 * publishes it later); an event recorded with tracing off starts a new trace. Undefined
 * with tracing off.
 */
export function publishSpans(
  exchange: string,
  events: readonly Publishable[],
  routingKeyOf: (e: Publishable) => string,
): PublishSpans | undefined {
  if (!tracingActive()) return undefined;
  const spans: Span[] = events.map((e) =>
    startSpan(
      `${exchange} publish`,
      {
        'messaging.system': 'rabbitmq',
        'messaging.operation.type': 'send',
        'messaging.operation.name': 'publish',
        'messaging.destination.name': exchange,
        'messaging.rabbitmq.destination.routing_key': routingKeyOf(e),
        'messaging.message.id': e.eventId,
        'messaging.message.type': e.type,
      },
      SpanKind.PRODUCER,
      contextOfTraceparent(e.traceparent),
    )!,
  );
  const headers = spans.map((span) => {
    const carrier: Record<string, string> = {};
    propagation.inject(trace.setSpan(context.active(), span), carrier);
    return carrier;
  });
  return {
    headers,
    settle: (confirmed) => {
      for (const span of spans) void settleSpan(span, confirmed).catch(() => undefined);
      return confirmed;
    },
  };
}
