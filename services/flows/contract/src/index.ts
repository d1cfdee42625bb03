/**
 * The flows context's contract: resource declarations, the route table and the context's own
 * error codes, shared by the gateway and the flows service.
 */
export {
  flows,
  flowNodes,
  enrollments,
  flowRuns,
  enrollmentSteps,
  ENROLLMENT_STATUSES,
  EXIT_REASONS,
  FLOW_STATUSES,
  NODE_TYPES,
  STEP_OUTCOMES,
} from './flows.resource';
export { MAX_ENROLL_CONTACTS, flowsApi } from './flows.api';
export { FLOWS_ERRORS, FlowsError, FlowsErrorCode } from './flows.errors';
