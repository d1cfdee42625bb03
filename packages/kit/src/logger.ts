import { trace } from '@opentelemetry/api';
import pino, { type Logger } from 'pino';

export type { Logger };

/**
 * Structured JSON logs. Anything that could hold a secret (authorization headers, keys, secrets,
 * passwords, connection strings) is redacted wherever it appears in a log object.
 */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'headers.authorization',
  'authorization',
  '*.authorization',
  'key',
  '*.key',
  'secret',
  '*.secret',
  'password',
  '*.password',
  'url',
  '*.url',
];

/**
 * The active span's ids, on every line written while it is active, so a log line leads to its trace
 * (W3C hex ids, as trace backends show them). None outside a span.
 */
export function traceFields(): { trace_id?: string; span_id?: string } {
  const span = trace.getActiveSpan()?.spanContext();
  return span && trace.isSpanContextValid(span) ? { trace_id: span.traceId, span_id: span.spanId } : {};
}

/** A JSON logger writing to stdout (or `destination`: tests). */
export function createLogger(name: string, level = process.env.LOG_LEVEL ?? 'info', destination?: pino.DestinationStream): Logger {
  const options = { name, level, redact: { paths: REDACT_PATHS, censor: '[redacted]' }, mixin: traceFields };
  return destination ? pino(options, destination) : pino(options);
}
