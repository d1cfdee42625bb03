import { status } from '@grpc/grpc-js';
import { DomainError, type ErrorRule } from '@crm/kit';

/** The directory's own error codes (the generic not-found and validation errors aside). */
export enum DirectoryErrorCode {
  /** Another user of the workspace has this email (compared case-insensitively). */
  EmailTaken = 'email_taken',
  /** Another record of the workspace has this svc_uid. */
  SvcUidTaken = 'svc_uid_taken',
  /** The presented API key is malformed, unknown or revoked (never which). */
  InvalidKey = 'invalid_key',
}

/** Every directory code's gRPC status and public code; a code without a row does not compile. */
export const DIRECTORY_ERRORS: { readonly [C in DirectoryErrorCode]: ErrorRule } = {
  [DirectoryErrorCode.EmailTaken]: { status: status.ALREADY_EXISTS, code: 'conflict' },
  [DirectoryErrorCode.SvcUidTaken]: { status: status.ALREADY_EXISTS, code: 'conflict' },
  [DirectoryErrorCode.InvalidKey]: { status: status.UNAUTHENTICATED, code: 'unauthorized' },
};

export class DirectoryError extends DomainError<DirectoryErrorCode> {
  constructor(reason: DirectoryErrorCode, message: string, details?: unknown) {
    super(reason, DIRECTORY_ERRORS[reason], message, details);
  }
}
