import { status } from '@grpc/grpc-js';
import { DomainError, type ErrorRule } from '@crm/kit';

/** The messaging context's own error codes (the generic not-found and validation errors aside). */
export enum MessagingErrorCode {
  /** The workspace's hourly send quota is used up; details.retry_after_seconds says when it frees. */
  QuotaExhausted = 'quota_exhausted',
  /** The recipient's address is on the workspace's suppression list (unsubscribed, hard bounce). */
  Suppressed = 'suppressed',
  /** A body names a contact, template or earlier send that is not in the workspace. */
  UnknownReference = 'unknown_reference',
  /** The contact has no email address to send to, or one no mail server takes. */
  NoAddress = 'no_address',
  /** A Liquid source does not parse, or renders past the time or size limit. */
  InvalidTemplate = 'invalid_template',
  /** A tracking or unsubscribe token that is forged, truncated or names no send. */
  UnknownToken = 'unknown_token',
  /** Inbound mail that cannot be read as a message at all. */
  MalformedMail = 'malformed_mail',
  /** The send quota cannot be checked (Redis unreachable): refused rather than sent over quota. */
  QuotaUnavailable = 'quota_unavailable',
}

/** Every messaging code's gRPC status and public code; a code without a row does not compile. */
export const MESSAGING_ERRORS: { readonly [C in MessagingErrorCode]: ErrorRule } = {
  [MessagingErrorCode.QuotaExhausted]: { status: status.RESOURCE_EXHAUSTED, code: 'send_quota_exhausted' },
  [MessagingErrorCode.Suppressed]: { status: status.INVALID_ARGUMENT, code: 'validation_failed' },
  [MessagingErrorCode.UnknownReference]: { status: status.INVALID_ARGUMENT, code: 'validation_failed' },
  [MessagingErrorCode.NoAddress]: { status: status.INVALID_ARGUMENT, code: 'validation_failed' },
  [MessagingErrorCode.InvalidTemplate]: { status: status.INVALID_ARGUMENT, code: 'validation_failed' },
  [MessagingErrorCode.UnknownToken]: { status: status.NOT_FOUND, code: 'not_found' },
  [MessagingErrorCode.MalformedMail]: { status: status.INVALID_ARGUMENT, code: 'invalid_request' },
  [MessagingErrorCode.QuotaUnavailable]: { status: status.UNAVAILABLE, code: 'unavailable' },
};

export class MessagingError extends DomainError<MessagingErrorCode> {
  constructor(reason: MessagingErrorCode, message: string, details?: unknown) {
    super(reason, MESSAGING_ERRORS[reason], message, details);
  }

  /** A 422 naming one field, as CrmError.validation does. */
  static field(reason: MessagingErrorCode, field: string, message: string): MessagingError {
    return new MessagingError(reason, `${field}: ${message}`, [{ field, message }]);
  }
}
