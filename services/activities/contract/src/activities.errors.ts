import { status } from '@grpc/grpc-js';
import { DomainError, type ErrorRule } from '@crm/kit';

/** The activities context's own error codes (the generic not-found and validation errors aside). */
export enum ActivitiesErrorCode {
  /** A required text (a task's or meeting's title) holds only whitespace. */
  BlankText = 'blank_text',
  /** A time span ends before it starts (a call's ended_at, a meeting's scheduled_end). */
  EndsBeforeStart = 'ends_before_start',
  /** A call's talk time does not fit the call's span. */
  DurationOutsideSpan = 'duration_outside_span',
}

/** Every activities code's gRPC status and public code; a code without a row does not compile. */
export const ACTIVITIES_ERRORS: { readonly [C in ActivitiesErrorCode]: ErrorRule } = {
  [ActivitiesErrorCode.BlankText]: { status: status.INVALID_ARGUMENT, code: 'validation_failed' },
  [ActivitiesErrorCode.EndsBeforeStart]: { status: status.INVALID_ARGUMENT, code: 'validation_failed' },
  [ActivitiesErrorCode.DurationOutsideSpan]: { status: status.INVALID_ARGUMENT, code: 'validation_failed' },
};

/** An activities error; a 422's `details` lists the one field at fault, as CrmError.validation does. */
export class ActivitiesError extends DomainError<ActivitiesErrorCode> {
  constructor(reason: ActivitiesErrorCode, field: string, message: string) {
    super(reason, ACTIVITIES_ERRORS[reason], `${field}: ${message}`, [{ field, message }]);
  }
}
