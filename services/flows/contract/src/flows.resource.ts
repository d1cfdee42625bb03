import { baseFields, defineResource } from '@crm/kit';

export const FLOW_STATUSES = ['draft', 'active', 'paused', 'archived'] as const;

/** The OpenAPI shapes of a flow's graph and schedule (the service validates them fully). */
const NODE_SCHEMA = {
  type: 'object',
  properties: {
    id: { type: 'string', format: 'uuid', minLength: 36, maxLength: 36, readOnly: true },
    key: { type: 'string', minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]{1,64}$' },
    type: { type: 'string', enum: ['email', 'wait', 'task', 'call', 'chat_message', 'professional_network', 'branch', 'end'] },
    label: { type: ['string', 'null'], maxLength: 255, pattern: '^(?!\\uFEFF)[^\\u0000]*$' },
    config: { type: ['object', 'null'], description: 'Per type: see the flow graph decisions in the API documentation.' },
  },
  required: ['key', 'type'],
};
const EDGE_SCHEMA = {
  type: 'object',
  properties: {
    from: { type: 'string', maxLength: 64, pattern: '^[A-Za-z0-9_-]{1,64}$', description: 'A node key.' },
    to: { type: 'string', maxLength: 64, pattern: '^[A-Za-z0-9_-]{1,64}$', description: 'A node key.' },
    when: { type: ['boolean', 'null'], description: 'true or false on the two edges out of a branch.' },
  },
  required: ['from', 'to'],
};
const SCHEDULE_SCHEMA = {
  type: 'object',
  description: 'Email and task steps due outside it move to its next opening (DST-aware).',
  properties: {
    timezone: { type: 'string', maxLength: 64, pattern: '^[A-Za-z0-9_+/-]{1,64}$', description: 'IANA zone, e.g. Europe/Berlin.' },
    days: { type: 'array', maxItems: 7, items: { type: 'string', enum: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] } },
    start: { type: 'string', maxLength: 5, pattern: '^([01]\\d|2[0-3]):[0-5]\\d$' },
    end: { type: 'string', maxLength: 5, pattern: '^(([01]\\d|2[0-3]):[0-5]\\d|24:00)$' },
  },
  required: ['timezone', 'days', 'start', 'end'],
};

/**
 * Flows (gateway/README.md, "Flows"): a graph of steps (services/flows/src/graph/README.md) that
 * enrollments are worked through. Status: draft → active ⇄ paused; any → archived (final; exits
 * active and paused enrollments with flow_archived). Only enrollments of active flows advance.
 */
export const flows = defineResource({
  name: 'flows',
  singular: 'flow',
  table: 'flows',
  timeField: 'created_at',
  maxLimit: 100,
  customFields: true,
  uniqueConstraints: { flows_svc_uid_key: 'svc_uid' },
  fields: {
    id: baseFields.id,
    svc_uid: baseFields.svc_uid,
    name: { type: 'string', required: true, nullable: false, sort: true, search: true },
    description: { type: 'text', search: true },
    // Defaults to draft.
    status: { type: 'enum', values: FLOW_STATUSES, nullable: false, filter: true, sort: true },
    owner_id: { type: 'uuid', filter: true },
    schedule: { type: 'json', schema: SCHEDULE_SCHEMA },
    // Required on create; a PATCH with nodes (and edges) replaces the graph.
    nodes: { type: 'json', nullable: false, schema: { type: 'array', minItems: 1, maxItems: 100, items: NODE_SCHEMA } },
    edges: { type: 'json', nullable: false, schema: { type: 'array', maxItems: 200, items: EDGE_SCHEMA } },
    created_at: { ...baseFields.created_at, sort: true },
    updated_at: { ...baseFields.updated_at, sort: true },
  },
});

export const NODE_TYPES = ['email', 'wait', 'task', 'call', 'chat_message', 'professional_network', 'branch', 'end'] as const;

/**
 * Flow nodes (gateway/README.md, Flows, "The graph"): a flow's graph, read-only; changed through the
 * flow.
 */
export const flowNodes = defineResource({
  name: 'flow_nodes',
  singular: 'flow_node',
  table: 'flow_nodes',
  timeField: 'created_at',
  maxLimit: 100,
  customFields: false,
  uniqueConstraints: { flow_nodes_svc_uid_key: 'svc_uid' },
  fields: {
    id: baseFields.id,
    svc_uid: baseFields.svc_uid,
    flow_id: { type: 'uuid', readOnly: true, nullable: false, filter: true },
    key: { type: 'string', readOnly: true, nullable: false, maxLength: 64 },
    type: { type: 'enum', values: NODE_TYPES, readOnly: true, nullable: false, filter: true, sort: true },
    label: { type: 'string', readOnly: true, nullable: true, search: true },
    config: { type: 'json', readOnly: true, nullable: false, schema: { type: 'object' } },
    position: { type: 'integer', readOnly: true, nullable: false, min: 0, max: 1000 },
    created_at: { ...baseFields.created_at, sort: true },
    updated_at: baseFields.updated_at,
  },
});

export const ENROLLMENT_STATUSES = ['active', 'paused', 'completed', 'exited', 'failed'] as const;
export const EXIT_REASONS = ['replied', 'bounced', 'unsubscribed', 'meeting_booked', 'contact_deleted', 'flow_archived', 'manual'] as const;

/** The fields of an enrollment row, which both `enrollments` and `flow_runs` list. */
const enrollmentFields = {
  id: baseFields.id,
  svc_uid: baseFields.svc_uid,
  flow_id: { type: 'uuid', required: true, nullable: false },
  contact_id: { type: 'uuid', required: true, nullable: false },
  // PATCH moves it: paused, active (resume), exited (manual).
  status: { type: 'enum', values: ENROLLMENT_STATUSES, nullable: false },
  exit_reason: { type: 'enum', values: EXIT_REASONS, readOnly: true, nullable: true },
  failure_reason: { type: 'string', readOnly: true, nullable: true },
  current_node_id: { type: 'uuid', readOnly: true, nullable: true },
  next_run_at: { type: 'datetime', readOnly: true, nullable: true },
  enrolled_by: { type: 'uuid', readOnly: true, nullable: true },
  enrolled_at: { type: 'datetime', readOnly: true, nullable: false },
  started_at: { type: 'datetime', readOnly: true, nullable: false },
  completed_at: { type: 'datetime', readOnly: true, nullable: true },
  created_at: baseFields.created_at,
  updated_at: baseFields.updated_at,
} as const;

/**
 * Enrollments (gateway/README.md, Flows, "Enrolling" and "Enrollment status"): a contact in a flow.
 * Status: active ⇄ paused; active|paused → exited; active → completed or failed; completed, exited
 * and failed are final (409). One active or paused enrollment per contact and flow (409).
 */
export const enrollments = defineResource({
  name: 'enrollments',
  singular: 'enrollment',
  table: 'enrollments',
  timeField: 'enrolled_at',
  maxLimit: 200,
  customFields: true,
  uniqueConstraints: { enrollments_svc_uid_key: 'svc_uid', enrollments_open_key: 'contact_id' },
  fields: {
    ...enrollmentFields,
    flow_id: { ...enrollmentFields.flow_id, filter: true },
    contact_id: { ...enrollmentFields.contact_id, filter: true },
    status: { ...enrollmentFields.status, filter: true },
    next_run_at: { ...enrollmentFields.next_run_at, sort: true },
    enrolled_at: { ...enrollmentFields.enrolled_at, sort: true },
    updated_at: { ...enrollmentFields.updated_at, sort: true },
  },
});

/**
 * Flow runs (gateway/README.md, Flows, "Flow runs"): the enrollment rows under flow_runs' own
 * filters and sorts.
 */
export const flowRuns = defineResource({
  name: 'flow_runs',
  singular: 'flow_run',
  table: 'enrollments',
  timeField: 'started_at',
  maxLimit: 100,
  customFields: true,
  uniqueConstraints: { enrollments_svc_uid_key: 'svc_uid' },
  fields: {
    ...enrollmentFields,
    flow_id: { ...enrollmentFields.flow_id, filter: true },
    contact_id: { ...enrollmentFields.contact_id, filter: true },
    status: { ...enrollmentFields.status, filter: true, sort: true },
    exit_reason: { ...enrollmentFields.exit_reason, filter: true },
    enrolled_by: { ...enrollmentFields.enrolled_by, filter: true },
    next_run_at: { ...enrollmentFields.next_run_at, sort: true },
    // Always the enrollment's enrolled_at: sorted and bounded on that column and its indexes.
    started_at: { ...enrollmentFields.started_at, sort: true, sameAs: 'enrolled_at' },
    completed_at: { ...enrollmentFields.completed_at, sort: true },
  },
});

export const STEP_OUTCOMES = [
  'email_queued',
  'waited',
  'task_created',
  'task_completed',
  'branch_true',
  'branch_false',
  'completed',
  'exited',
  'failed',
  'rescheduled',
  // An out-of-office reply paused the enrollment (or moved its resume later), and the engine resumed it.
  'paused',
  'resumed',
] as const;

/** An enrollment's history (`GET /v1/enrollments/{id}/steps`): what the engine did, newest first. */
export const enrollmentSteps = defineResource({
  name: 'enrollment_steps',
  singular: 'enrollment_step',
  table: 'enrollment_steps',
  timeField: 'occurred_at',
  maxLimit: 100,
  customFields: false,
  uniqueConstraints: { enrollment_steps_svc_uid_key: 'svc_uid' },
  fields: {
    id: baseFields.id,
    svc_uid: baseFields.svc_uid,
    enrollment_id: { type: 'uuid', readOnly: true, nullable: false, filter: true },
    flow_id: { type: 'uuid', readOnly: true, nullable: false },
    node_id: { type: 'uuid', readOnly: true, nullable: true },
    node_key: { type: 'string', readOnly: true, nullable: true, maxLength: 64 },
    node_type: { type: 'enum', values: NODE_TYPES, readOnly: true, nullable: true },
    visit: { type: 'integer', readOnly: true, nullable: false, min: 0, max: 1_000_000 },
    outcome: { type: 'enum', values: STEP_OUTCOMES, readOnly: true, nullable: false },
    detail: { type: 'string', readOnly: true, nullable: true, maxLength: 1_000 },
    sent_email_id: { type: 'uuid', readOnly: true, nullable: true },
    task_id: { type: 'uuid', readOnly: true, nullable: true },
    occurred_at: { type: 'datetime', readOnly: true, nullable: false, sort: true },
    created_at: baseFields.created_at,
    updated_at: baseFields.updated_at,
  },
});
