import { status } from '@grpc/grpc-js';
import { DomainError, type ErrorRule } from '@crm/kit';

/** The flows context's own error codes (the generic not-found and validation errors aside). */
export enum FlowsErrorCode {
  /** A status change the flow's or enrollment's transitions do not allow. */
  InvalidTransition = 'invalid_transition',
  /** Enrolling into an archived flow. */
  FlowArchived = 'flow_archived',
  /** The contact has an active or paused enrollment in this flow already. */
  AlreadyEnrolled = 'already_enrolled',
  /** A graph change removes nodes that active or paused enrollments stand on. */
  NodesInUse = 'nodes_in_use',
  /** A body names a contact, pool or template that is not in the workspace. */
  UnknownReference = 'unknown_reference',
  /** The contact's address is suppressed or missing: it cannot be mailed. */
  Unreachable = 'unreachable',
}

/** Every flows code's gRPC status and public code; a code without a row does not compile. */
export const FLOWS_ERRORS: { readonly [C in FlowsErrorCode]: ErrorRule } = {
  [FlowsErrorCode.InvalidTransition]: { status: status.FAILED_PRECONDITION, code: 'conflict' },
  [FlowsErrorCode.FlowArchived]: { status: status.FAILED_PRECONDITION, code: 'conflict' },
  [FlowsErrorCode.AlreadyEnrolled]: { status: status.ALREADY_EXISTS, code: 'conflict' },
  [FlowsErrorCode.NodesInUse]: { status: status.FAILED_PRECONDITION, code: 'conflict' },
  [FlowsErrorCode.UnknownReference]: { status: status.INVALID_ARGUMENT, code: 'validation_failed' },
  [FlowsErrorCode.Unreachable]: { status: status.INVALID_ARGUMENT, code: 'validation_failed' },
};

export class FlowsError extends DomainError<FlowsErrorCode> {
  constructor(reason: FlowsErrorCode, message: string, details?: unknown) {
    super(reason, FLOWS_ERRORS[reason], message, details);
  }

  static field(reason: FlowsErrorCode, field: string, message: string): FlowsError {
    return new FlowsError(reason, `${field}: ${message}`, [{ field, message }]);
  }
}
