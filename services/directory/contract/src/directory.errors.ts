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
  /** Sign-in refused: unknown email, wrong password or inactive user (never which). */
  InvalidCredentials = 'invalid_credentials',
  /** The session is unknown, ended or expired (never which). */
  InvalidSession = 'invalid_session',
  /** The set-password link's token is unknown, used or expired (never which). */
  InvalidPasswordToken = 'invalid_password_token',
}

/** Every directory code's gRPC status and public code; a code without a row does not compile. */
export const DIRECTORY_ERRORS: { readonly [C in DirectoryErrorCode]: ErrorRule } = {
  [DirectoryErrorCode.EmailTaken]: { status: status.ALREADY_EXISTS, code: 'conflict' },
  [DirectoryErrorCode.SvcUidTaken]: { status: status.ALREADY_EXISTS, code: 'conflict' },
  [DirectoryErrorCode.InvalidKey]: { status: status.UNAUTHENTICATED, code: 'unauthorized' },
  [DirectoryErrorCode.InvalidCredentials]: { status: status.UNAUTHENTICATED, code: 'unauthorized' },
  [DirectoryErrorCode.InvalidSession]: { status: status.UNAUTHENTICATED, code: 'unauthorized' },
  [DirectoryErrorCode.InvalidPasswordToken]: { status: status.UNAUTHENTICATED, code: 'unauthorized' },
};

export class DirectoryError extends DomainError<DirectoryErrorCode> {
  constructor(reason: DirectoryErrorCode, message: string, details?: unknown) {
    super(reason, DIRECTORY_ERRORS[reason], message, details);
  }
}
