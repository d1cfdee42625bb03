import type { components } from './generated/openapi';

/** A public error code, as the document lists them (`components.schemas.Error`). */
export type ErrorCode = components['schemas']['Error']['error']['code'];

/** One failing field of a 422 `validation_failed`. */
export interface FieldError {
  field: string;
  message: string;
}

/** Every error the SDK throws, but an abort (the signal's own reason is thrown, as `fetch` does). */
export class CrmError extends Error {
  override name = 'CrmError';
}

/**
 * The API answered with an error envelope `{error: {code, message, details?, request_id}}`.
 * `status` is the HTTP status; `code` is what to branch on (gateway/README.md, Errors).
 */
export class CrmApiError extends CrmError {
  override name = 'CrmApiError';
  readonly status: number;
  readonly code: ErrorCode;
  readonly details: unknown;
  readonly request_id: string | undefined;
  /** Seconds the server asked to wait (`Retry-After`), on 429 and 503. */
  readonly retry_after: number | undefined;
  /** Attempts made, retries included. */
  readonly attempts: number;

  constructor(init: { status: number; code: ErrorCode; message: string; details?: unknown; request_id?: string; retry_after?: number; attempts: number }) {
    super(init.message);
    this.status = init.status;
    this.code = init.code;
    this.details = init.details;
    this.request_id = init.request_id;
    this.retry_after = init.retry_after;
    this.attempts = init.attempts;
  }
}

/** 429: `rate_limited` (per key or workspace) or `send_quota_exhausted`, after the retries allowed. */
export class CrmRateLimitError extends CrmApiError {
  override name = 'CrmRateLimitError';
}

/** 422 `validation_failed`: `details` lists every failing field. */
export class CrmValidationError extends CrmApiError {
  override name = 'CrmValidationError';
  declare readonly details: FieldError[];
}

/** No answer: the connection failed or was cut before a response arrived. */
export class CrmConnectionError extends CrmError {
  override name = 'CrmConnectionError';
  constructor(
    message: string,
    readonly attempts: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** No answer within `timeoutMs` (per attempt), after the retries allowed. */
export class CrmTimeoutError extends CrmConnectionError {
  override name = 'CrmTimeoutError';
}

const retryAfterSeconds = (headers: Headers): number | undefined => {
  const value = headers.get('retry-after');
  if (value === null) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds;
  // An HTTP date is allowed too (RFC 9110); the gateway sends seconds.
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, (at - Date.now()) / 1000);
};
export { retryAfterSeconds };

/** The typed error for an answer that is not 2xx, from its envelope (or a stand-in when it has none). */
export async function errorFromResponse(response: Response, attempts: number): Promise<CrmApiError> {
  let body: unknown;
  const text = await response.text().catch(() => '');
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  const envelope = (body as { error?: { code?: unknown; message?: unknown; details?: unknown; request_id?: unknown } } | undefined)?.error;
  const init = {
    status: response.status,
    // An answer without the envelope (a proxy's page): the code of its status, as the gateway would.
    code: typeof envelope?.code === 'string' ? (envelope.code as ErrorCode) : codeOfStatus(response.status),
    message: typeof envelope?.message === 'string' ? envelope.message : `HTTP ${response.status} ${response.statusText}`.trim(),
    details: envelope?.details,
    request_id: typeof envelope?.request_id === 'string' ? envelope.request_id : (response.headers.get('x-request-id') ?? undefined),
    retry_after: retryAfterSeconds(response.headers),
    attempts,
  };
  if (response.status === 429) return new CrmRateLimitError(init);
  if (init.code === 'validation_failed') return new CrmValidationError(init);
  return new CrmApiError(init);
}

function codeOfStatus(status: number): ErrorCode {
  switch (status) {
    case 400: return 'invalid_request';
    case 401: return 'unauthorized';
    case 403: return 'forbidden';
    case 404: return 'not_found';
    case 405: return 'method_not_allowed';
    case 409: return 'conflict';
    case 413: return 'payload_too_large';
    case 415: return 'unsupported_media_type';
    case 422: return 'validation_failed';
    case 429: return 'rate_limited';
    case 503: return 'unavailable';
    case 504: return 'timeout';
    default: return 'internal';
  }
}
