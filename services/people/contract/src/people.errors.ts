import { status } from '@grpc/grpc-js';
import { DomainError, type ErrorRule } from '@crm/kit';

/** The people context's own error codes (the generic not-found and validation errors aside). */
export enum PeopleErrorCode {
  /** The contact is a member of the pool already (a second membership of one pair). */
  AlreadyMember = 'already_member',
  /** Memberships are created and deleted, never changed in place. */
  MembershipImmutable = 'membership_immutable',
  /** A body names a pool, contact or organization that is not in the workspace. */
  UnknownReference = 'unknown_reference',
}

/** Every people code's gRPC status and public code; a code without a row does not compile. */
export const PEOPLE_ERRORS: { readonly [C in PeopleErrorCode]: ErrorRule } = {
  [PeopleErrorCode.AlreadyMember]: { status: status.ALREADY_EXISTS, code: 'conflict' },
  [PeopleErrorCode.MembershipImmutable]: { status: status.UNIMPLEMENTED, code: 'method_not_allowed' },
  [PeopleErrorCode.UnknownReference]: { status: status.INVALID_ARGUMENT, code: 'validation_failed' },
};

export class PeopleError extends DomainError<PeopleErrorCode> {
  constructor(reason: PeopleErrorCode, message: string, details?: unknown) {
    super(reason, PEOPLE_ERRORS[reason], message, details);
  }
}
