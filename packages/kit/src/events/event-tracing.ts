import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { addCount, recordHistogram } from '../metrics';
import type { CrmEvent } from './event-bus';

const tracer = trace.getTracer('crm.events');

/** The active W3C trace context (traceparent, tracestate, baggage) as message headers. */
export function captureTraceContext(): Record<string, string> {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier;
}

/**
 * Headers to publish: the active trace context, overridden by explicit headers. The override
 * matters for the outbox relay, whose own context is a polling loop: the context that belongs to
 * the event is the one captured when the event was written.
 */
export function publishHeaders(explicit: Record<string, string> | undefined): Record<string, string> {
  return { ...captureTraceContext(), ...explicit };
}

export interface ConsumeSpanInfo {
  system: 'nats' | 'memory';
  durable: string;
  subject: string;
  event: CrmEvent;
  headers: Record<string, string>;
  deliveryCount: number;
}

/**
 * Runs a handler inside a CONSUMER span whose parent is the context carried by the message, and
 * nothing else: the handler must not inherit whatever happened to be active where the delivery
 * loop runs (for the in-process bus, that is the publisher's own call stack). Records the handler's
 * duration by consumer group and subject (`error.type` when it failed) and counts redeliveries.
 */
export function withConsumeSpan<T>(info: ConsumeSpanInfo, run: () => Promise<T>): Promise<T> {
  const parent = propagation.extract(ROOT_CONTEXT, info.headers);
  return tracer.startActiveSpan(
    `process ${info.subject}`,
    {
      kind: SpanKind.CONSUMER,
      attributes: {
        'messaging.system.name': info.system,
        'messaging.operation.type': 'process',
        'messaging.destination.name': info.subject,
        'messaging.consumer.group.name': info.durable,
        'messaging.message.id': info.event.id,
        'crm.event.delivery_count': info.deliveryCount,
        'crm.workspace_id': info.event.workspace_id,
      },
    },
    parent,
    async (span) => {
      const group = { 'messaging.system.name': info.system, 'messaging.consumer.group.name': info.durable };
      if (info.deliveryCount > 1) addCount('crm.events.redelivered', 1, group);
      const started = performance.now();
      let failure: string | undefined;
      try {
        return await run();
      } catch (error) {
        failure = error instanceof Error ? error.constructor.name : 'error';
        span.recordException(error instanceof Error ? error : new Error(String(error)));
        span.setStatus({ code: SpanStatusCode.ERROR });
        throw error;
      } finally {
        span.end();
        recordHistogram('messaging.process.duration', (performance.now() - started) / 1000, {
          ...group,
          'messaging.destination.name': info.subject,
          ...(failure ? { 'error.type': failure } : {}),
        });
      }
    },
  );
}
