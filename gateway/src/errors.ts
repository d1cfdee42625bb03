import { CrmError, ERROR_TABLE, type ErrorCode, newId, printableKey } from '@crm/kit';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { MAX_ERROR_MESSAGE } from './openapi-schemas';

/** The error envelope (gateway/README.md, "Errors"): `{error: {code, message, details?, request_id}}`. */
export function sendError(request: FastifyRequest, reply: FastifyReply, error: CrmError) {
  // A message may quote client input (an unknown parameter's name, a bad id): control characters
  // and unpaired surrogates are shown escaped, and it is cut to a bound.
  const printable = printableKey(error.message);
  const message = printable.length > MAX_ERROR_MESSAGE ? `${printable.slice(0, MAX_ERROR_MESSAGE - 1)}…` : printable;
  const body: { error: Record<string, unknown> } = {
    error: { code: error.code, message, request_id: request.id },
  };
  // Also for errors met before the onRequest hook sets it (a path the router cannot decode).
  reply.header('X-Request-Id', request.id);
  if (error.code === 'rate_limited') body.error.type = 'rate_limit_error';
  if (error.details !== undefined) body.error.details = error.details;
  // A backing service that is down is usually back within a second or two (a restart, a failover).
  if (error.code === 'unavailable' && !reply.hasHeader('Retry-After')) reply.header('Retry-After', '1');
  // A quota that says when it frees (the send quota) tells the client in the header too.
  const wait = (error.details as { retry_after_seconds?: unknown } | undefined)?.retry_after_seconds;
  if (ERROR_TABLE[error.code].http === 429 && typeof wait === 'number' && !reply.hasHeader('Retry-After')) reply.header('Retry-After', String(wait));
  return reply.status(ERROR_TABLE[error.code].http).type('application/json').send(body);
}

/** Fastify's own request errors, each given its public code. */
const FASTIFY_ERRORS: Record<string, { code: ErrorCode; message: string }> = {
  FST_ERR_CTP_INVALID_JSON_BODY: { code: 'invalid_request', message: 'request body is not valid JSON' },
  FST_ERR_CTP_BODY_TOO_LARGE: { code: 'payload_too_large', message: 'request body is larger than 1 MiB' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { code: 'unsupported_media_type', message: 'request body must be application/json' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { code: 'invalid_request', message: 'Content-Length does not match the body' },
  FST_ERR_CTP_INVALID_TYPE: { code: 'unsupported_media_type', message: 'request body must be application/json' },
  FST_ERR_BAD_URL: { code: 'invalid_request', message: 'the path is not valid percent-encoded UTF-8' },
  FST_ERR_MAX_PARAM_LENGTH: { code: 'invalid_request', message: 'a path segment is longer than 100 characters' },
};

/**
 * What the router refuses before any route is chosen (Fastify's frameworkErrors: a path that is
 * not percent-encoded UTF-8, a path parameter over its length): always the client's to fix.
 */
export function routerError(error: FastifyError): CrmError {
  const known = FASTIFY_ERRORS[error.code];
  return known ? new CrmError(known.code, known.message) : new CrmError('invalid_request', 'the path could not be routed');
}

/** Anything thrown in the pipeline becomes an envelope; unknown failures never leak their cause. */
export function toCrmError(error: unknown, request: FastifyRequest): CrmError {
  if (error instanceof CrmError) return error;
  const fastifyError = error as FastifyError;
  const known = fastifyError?.code ? FASTIFY_ERRORS[fastifyError.code] : undefined;
  if (known) return new CrmError(known.code, known.message);
  if (fastifyError?.statusCode === 400 && fastifyError.code?.startsWith('FST_ERR_CTP')) {
    return new CrmError('invalid_request', 'request body could not be parsed');
  }
  if (fastifyError instanceof SyntaxError) return new CrmError('invalid_request', 'request body is not valid JSON');
  const errorId = newId();
  request.log.error({ err: error, errorId }, 'unhandled error');
  return new CrmError('internal', `internal error (error id ${errorId})`);
}
