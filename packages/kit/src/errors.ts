import { status as GrpcStatus } from '@grpc/grpc-js';

/**
 * Every failure the platform reports, by its public code. The one table below gives each code its
 * gRPC status (used by services) and its HTTP status (used by the gateway); adding a code without
 * a row does not compile.
 */
export type ErrorCode =
  | 'invalid_request'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'method_not_allowed'
  | 'request_timeout'
  | 'conflict'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'validation_failed'
  | 'idempotency_key_reused'
  | 'rate_limited'
  | 'send_quota_exhausted'
  | 'internal'
  | 'unavailable'
  | 'timeout';

export interface ErrorMapping {
  grpc: GrpcStatus;
  http: number;
}

export const ERROR_TABLE: { readonly [C in ErrorCode]: ErrorMapping } = {
  invalid_request: { grpc: GrpcStatus.INVALID_ARGUMENT, http: 400 },
  unauthorized: { grpc: GrpcStatus.UNAUTHENTICATED, http: 401 },
  forbidden: { grpc: GrpcStatus.PERMISSION_DENIED, http: 403 },
  not_found: { grpc: GrpcStatus.NOT_FOUND, http: 404 },
  method_not_allowed: { grpc: GrpcStatus.UNIMPLEMENTED, http: 405 },
  // The client did not send its request in time (gateway only: it never travels over gRPC).
  request_timeout: { grpc: GrpcStatus.DEADLINE_EXCEEDED, http: 408 },
  conflict: { grpc: GrpcStatus.ALREADY_EXISTS, http: 409 },
  payload_too_large: { grpc: GrpcStatus.INVALID_ARGUMENT, http: 413 },
  unsupported_media_type: { grpc: GrpcStatus.INVALID_ARGUMENT, http: 415 },
  validation_failed: { grpc: GrpcStatus.INVALID_ARGUMENT, http: 422 },
  idempotency_key_reused: { grpc: GrpcStatus.FAILED_PRECONDITION, http: 422 },
  rate_limited: { grpc: GrpcStatus.RESOURCE_EXHAUSTED, http: 429 },
  send_quota_exhausted: { grpc: GrpcStatus.RESOURCE_EXHAUSTED, http: 429 },
  internal: { grpc: GrpcStatus.INTERNAL, http: 500 },
  unavailable: { grpc: GrpcStatus.UNAVAILABLE, http: 503 },
  timeout: { grpc: GrpcStatus.DEADLINE_EXCEEDED, http: 504 },
};

/**
 * What a gRPC status means when it arrives without our error detail (raised by the transport, a
 * proxy or a service that crashed mid-call). Exhaustive over every gRPC status.
 */
export const GRPC_STATUS_TO_CODE: { readonly [S in GrpcStatus]: ErrorCode } = {
  [GrpcStatus.OK]: 'internal',
  [GrpcStatus.CANCELLED]: 'unavailable',
  [GrpcStatus.UNKNOWN]: 'internal',
  [GrpcStatus.INVALID_ARGUMENT]: 'invalid_request',
  [GrpcStatus.DEADLINE_EXCEEDED]: 'timeout',
  [GrpcStatus.NOT_FOUND]: 'not_found',
  [GrpcStatus.ALREADY_EXISTS]: 'conflict',
  [GrpcStatus.PERMISSION_DENIED]: 'forbidden',
  [GrpcStatus.RESOURCE_EXHAUSTED]: 'rate_limited',
  [GrpcStatus.FAILED_PRECONDITION]: 'conflict',
  [GrpcStatus.ABORTED]: 'conflict',
  [GrpcStatus.OUT_OF_RANGE]: 'invalid_request',
  [GrpcStatus.UNIMPLEMENTED]: 'not_found',
  [GrpcStatus.INTERNAL]: 'internal',
  [GrpcStatus.UNAVAILABLE]: 'unavailable',
  [GrpcStatus.DATA_LOSS]: 'internal',
  [GrpcStatus.UNAUTHENTICATED]: 'unauthorized',
};

export const ERROR_CODES = Object.keys(ERROR_TABLE) as ErrorCode[];

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.prototype.hasOwnProperty.call(ERROR_TABLE, value);
}

/** One field that failed validation, as listed in a 422's `details`. */
export interface FieldIssue {
  field: string;
  message: string;
}

/**
 * The platform's error type. Domain code throws it with a public code and a message fit for the
 * client; anything else that escapes is reported as `internal` with no cause attached.
 */
export class CrmError extends Error {
  override readonly name = 'CrmError';
  /** A context's own code (DomainError), as a caller of that context receives it. */
  readonly reason?: string;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
  }

  /** The error a peer answered, with its context's reason when it sent one. */
  static remote(code: ErrorCode, message: string, details: unknown, reason: unknown): CrmError {
    const error = new CrmError(code, message, details);
    if (typeof reason === 'string' && reason) Object.defineProperty(error, 'reason', { value: reason, enumerable: true });
    return error;
  }

  static validation(issues: FieldIssue[]): CrmError {
    const first = issues[0];
    const message =
      issues.length === 1 && first ? `${first.field}: ${first.message}` : `${issues.length} fields failed validation`;
    return new CrmError('validation_failed', message, issues);
  }

  static notFound(what: string): CrmError {
    return new CrmError('not_found', `${what} not found`);
  }

  static invalid(message: string, details?: unknown): CrmError {
    return new CrmError('invalid_request', message, details);
  }
}

/** How one of a context's own error codes travels: its gRPC status and its public code. */
export interface ErrorRule {
  readonly status: GrpcStatus;
  readonly code: ErrorCode;
}

/**
 * A context's own error. Each context declares its codes as a string enum and maps every one to a
 * gRPC status and a public code in one table typed `{ [C in Code]: ErrorRule }`, so a code without
 * a row does not compile. The reason travels to the caller with the error (crm-error-bin), the
 * status picks the gRPC code (an illegal state transition is FAILED_PRECONDITION), and the public
 * code picks the HTTP status at the edge (still 409 `conflict` for a transition).
 */
export class DomainError<R extends string = string> extends CrmError {
  constructor(
    override readonly reason: R,
    readonly rule: ErrorRule,
    message: string,
    details?: unknown,
  ) {
    super(rule.code, message, details);
  }
}

/** The gRPC status an error is answered with: its context's rule, else the public code's row. */
export function grpcStatusOf(error: CrmError): GrpcStatus {
  return error instanceof DomainError ? error.rule.status : ERROR_TABLE[error.code].grpc;
}
