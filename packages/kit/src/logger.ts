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

export function createLogger(name: string, level = process.env.LOG_LEVEL ?? 'info'): Logger {
  return pino({ name, level, redact: { paths: REDACT_PATHS, censor: '[redacted]' } });
}
