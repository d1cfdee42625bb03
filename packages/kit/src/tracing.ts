import { type Attributes, context, propagation, ROOT_CONTEXT, type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { suppressTracing } from '@opentelemetry/core';

/*
 * Spans for work that is not a request: deferred work joining the trace that asked for it, calls
 * to servers no instrumentation covers (SMTP), and polling loops kept out of traces.
 */
const tracer = trace.getTracer('crm');

/** Runs `run` in `span` and ends it; a failure is recorded on the span (exception, error status) and rethrown. */
export async function ended<T>(span: Span, run: (span: Span) => Promise<T>): Promise<T> {
  try {
    return await run(span);
  } catch (error) {
    span.recordException(error instanceof Error ? error : new Error(String(error)));
    span.setStatus({ code: SpanStatusCode.ERROR });
    throw error;
  } finally {
    span.end();
  }
}

/**
 * Runs deferred work (a delivery, a flow step) in a span of the trace that asked for it: `carrier`
 * holds the W3C context captured then (captureTraceContext, stored with the work). An empty carrier
 * starts a trace of its own. Nothing that was active where the loop runs is inherited.
 */
export function withStoredTrace<T>(
  carrier: Record<string, string> | null | undefined,
  name: string,
  attributes: Attributes,
  run: (span: Span) => Promise<T>,
): Promise<T> {
  const parent = propagation.extract(ROOT_CONTEXT, carrier ?? {});
  return tracer.startActiveSpan(name, { kind: SpanKind.INTERNAL, attributes }, parent, (span) => ended(span, run));
}

/** A call to a server no instrumentation traces (an SMTP transaction), as a CLIENT span of the active trace. */
export function withClientSpan<T>(name: string, attributes: Attributes, run: (span: Span) => Promise<T>): Promise<T> {
  return tracer.startActiveSpan(name, { kind: SpanKind.CLIENT, attributes }, (span) => ended(span, run));
}

/** Runs a polling loop's own queries untraced: a poll every second would start a trace each time. */
export function untraced<T>(run: () => Promise<T>): Promise<T> {
  return context.with(suppressTracing(ROOT_CONTEXT), run);
}
