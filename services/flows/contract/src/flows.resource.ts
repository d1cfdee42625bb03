import { baseFields, defineResource } from '@crm/kit';

export const FLOW_STATUSES = ['draft', 'active', 'paused', 'archived'] as const;

/** The OpenAPI shapes of a flow's graph and schedule (the service validates them fully). */
const NODE_SCHEMA = {
  type: 'object',
  properties: {
    id: { type: 'string', format: 'uuid', minLength: 36, maxLength: 36, readOnly: true, description: "The node's id, set by the server." },
    key: { type: 'string', minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]{1,64}$', description: 'Unique in the flow; edges name nodes by it.' },
    type: { type: 'string', enum: ['email', 'wait', 'task', 'call', 'chat_message', 'professional_network', 'branch', 'end'], description: 'What the step does.' },
    label: { type: ['string', 'null'], maxLength: 255, pattern: '^(?!\\uFEFF)[^\\u0000]*$', description: 'A label for people, up to 255 characters.' },
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
    days: { type: 'array', maxItems: 7, items: { type: 'string', enum: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] }, description: 'The days steps may run on.' },
    start: { type: 'string', maxLength: 5, pattern: '^([01]\\d|2[0-3]):[0-5]\\d$', description: 'Opening time, HH:MM in the timezone.' },
    end: { type: 'string', maxLength: 5, pattern: '^(([01]\\d|2[0-3]):[0-5]\\d|24:00)$', description: 'Closing time, HH:MM in the timezone (24:00 for midnight).' },
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
  description: 'An outreach sequence: a graph of steps (email, wait, task, call, branch, end) that enrolled contacts are worked through.',
  operationDocs: {
    list: 'Filter by status or owner.',
    get: 'Returns the graph as nodes and edges; their analytics are at /v1/flows/{id}/analytics.',
    create: 'Give name, nodes and edges; the graph is checked as a whole (422 naming the node or edge). Create as draft, then PATCH status to active to start it.',
    update: 'Change status (activate, pause, archive) or replace the graph by sending nodes and edges together. Archiving exits every open enrollment (flow_archived).',
    delete: "Removes the flow. To keep a flow's history and stop it for good, archive it (PATCH status) instead.",
  },
  updateExample: { status: 'active' },
  fields: {
    id: baseFields.id,
    svc_uid: baseFields.svc_uid,
    name: { type: 'string', required: true, nullable: false, sort: true, search: true, description: "The flow's name, up to 255 characters; required.", example: 'Webinar follow-up', filter: false },
    description: { type: 'text', search: true, description: 'What the flow is for, free text up to 10,000 characters.', example: 'Three touches over a week after a webinar.' },
    // Defaults to draft.
    status: { type: 'enum', values: FLOW_STATUSES, nullable: false, filter: true, sort: true, description: 'draft, active, paused or archived; draft when omitted. draft → active ⇄ paused, any → archived (final). Only enrollments of active flows advance.', example: 'draft' },
    owner_id: { type: 'uuid', filter: true, description: "The user (users resource) who owns the flow; its emails are sent as the enrolled contact's owner." },
    schedule: { type: 'json', schema: SCHEDULE_SCHEMA, description: 'When email and task steps may run; null for any time.', example: { timezone: 'Europe/London', days: ['mon', 'tue', 'wed', 'thu', 'fri'], start: '09:00', end: '17:30' } },
    // Required on create; a PATCH with nodes (and edges) replaces the graph.
    nodes: { type: 'json', nullable: false, schema: { type: 'array', minItems: 1, maxItems: 100, items: NODE_SCHEMA }, description: 'The steps of the graph, 1 to 100, each with a key unique in the flow; required on create, and a PATCH with nodes (and edges) replaces the graph.', example: [
        { key: 'hello', type: 'email', label: 'First email', config: { subject: 'Hello {{ first_name }}', body: '<p>Hi {{ first_name }}, thanks for joining the webinar.</p>' } },
        { key: 'pause', type: 'wait', label: 'Wait three days', config: { duration_seconds: 259_200 } },
        { key: 'call', type: 'call', label: 'Call', config: { title: 'Call {{ first_name }}' } },
        { key: 'done', type: 'end', label: null, config: {} },
      ] },
    edges: { type: 'json', nullable: false, schema: { type: 'array', maxItems: 200, items: EDGE_SCHEMA }, description: 'The transitions between nodes by key, up to 200; the two edges out of a branch carry when: true and false.', example: [
        { from: 'hello', to: 'pause' },
        { from: 'pause', to: 'call' },
        { from: 'call', to: 'done' },
      ] },
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
  description: "One step of a flow's graph, as stored; read-only (change the graph through its flow).",
  operationDocs: {
    list: "Filter by flow_id for a flow's steps.",
    get: "Use it to read the node an enrollment's current_node_id names.",
  },
  fields: {
    id: baseFields.id,
    svc_uid: baseFields.svc_uid,
    flow_id: { type: 'uuid', readOnly: true, nullable: false, filter: true, description: 'The flow the node belongs to.' },
    key: { type: 'string', readOnly: true, nullable: false, maxLength: 64, description: "The node's key, unique in its flow (1 to 64 of A-Z a-z 0-9 _ -).", example: 'hello', filter: false },
    type: { type: 'enum', values: NODE_TYPES, readOnly: true, nullable: false, filter: true, sort: true, description: 'email, wait, task, call, chat_message, professional_network, branch or end.' },
    label: { type: 'string', readOnly: true, nullable: true, search: true, description: 'A label for people, up to 255 characters; null when none.', example: 'First email', filter: false },
    config: { type: 'json', readOnly: true, nullable: false, schema: { type: 'object' }, description: "The step's settings by type (an email's subject and body, a wait's duration_seconds, a branch's condition).", example: { subject: 'Hello {{ first_name }}', body: '<p>Hi {{ first_name }}</p>' } },
    position: { type: 'integer', readOnly: true, nullable: false, min: 0, max: 1000, description: "The node's place in the graph's order, 0 to 1000.", example: 0, filter: false },
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
  flow_id: { type: 'uuid', required: true, nullable: false, description: 'The flow (flows resource); required on create.' },
  contact_id: { type: 'uuid', required: true, nullable: false, description: 'The contact (contacts resource) enrolled; required on create. One active or paused enrollment per contact and flow.' },
  // PATCH moves it: paused, active (resume), exited (manual).
  status: { type: 'enum', values: ENROLLMENT_STATUSES, nullable: false, description: 'active, paused, completed, exited or failed. A PATCH may move it to paused, back to active, or to exited (manual); completed, exited and failed are final.' },
  exit_reason: { type: 'enum', values: EXIT_REASONS, readOnly: true, nullable: true, description: 'Why it exited: replied, bounced, unsubscribed, meeting_booked, contact_deleted, flow_archived or manual; set by the server, null unless exited.', example: null },
  failure_reason: { type: 'string', readOnly: true, nullable: true, description: 'Why it failed, set by the server; null unless failed.', example: null, filter: false },
  current_node_id: { type: 'uuid', readOnly: true, nullable: true, description: 'The node (flow_nodes) the enrollment is at, set by the server; null once finished.', filter: false },
  next_run_at: { type: 'datetime', readOnly: true, nullable: true, description: 'When the engine next works on it (RFC 3339), set by the server; null when nothing is due.' },
  enrolled_by: { type: 'uuid', readOnly: true, nullable: true, description: 'The user behind the API key that enrolled the contact, set by the server; null for keys without a user.' },
  enrolled_at: { type: 'datetime', readOnly: true, nullable: false, description: 'When the contact was enrolled (RFC 3339), set by the server.' },
  started_at: { type: 'datetime', readOnly: true, nullable: false, description: 'When the run started: the same as enrolled_at; set by the server.' },
  completed_at: { type: 'datetime', readOnly: true, nullable: true, description: 'When the enrollment finished (completed, exited or failed), set by the server; null until then.', example: null },
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
  description: 'One contact worked through one flow.',
  operationDocs: {
    list: 'Filter by flow_id, contact_id or status; bounded by enrolled_at.',
    get: 'status and next_run_at say where it stands; its history is at /v1/enrollments/{id}/steps.',
    create: 'Enrolls one contact; for many, or a whole pool, use POST /v1/flows/{id}/enrollments. A contact already active or paused in the flow is 409.',
    update: 'PATCH status to paused, back to active, or to exited (manual exit).',
  },
  updateExample: { status: 'paused' },
  fields: {
    ...enrollmentFields,
    flow_id: { ...enrollmentFields.flow_id, filter: true },
    contact_id: { ...enrollmentFields.contact_id, filter: true },
    status: { ...enrollmentFields.status, filter: true },
    // The same rows filter on these as flow_runs (its indexes); the enrollments list stays lean.
    exit_reason: { ...enrollmentFields.exit_reason, filter: false, description: `${enrollmentFields.exit_reason.description} Filter on it with /v1/flow_runs.` },
    enrolled_by: { ...enrollmentFields.enrolled_by, filter: false, description: `${enrollmentFields.enrolled_by.description} Filter on it with /v1/flow_runs.` },
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
  description: "An enrollment seen as a run of its flow, with the run's own filters and sorts.",
  operationDocs: {
    list: "Filter by flow_id, status, exit_reason or enrolled_by, sort by completed_at: use it for a flow's run report.",
    get: 'The same record as the enrollment with this id.',
  },
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
  description: "One thing the engine did for an enrollment: the node, the outcome, the email or task it created.",
  singular: 'enrollment_step',
  table: 'enrollment_steps',
  timeField: 'occurred_at',
  maxLimit: 100,
  customFields: false,
  uniqueConstraints: { enrollment_steps_svc_uid_key: 'svc_uid' },
  fields: {
    id: baseFields.id,
    svc_uid: baseFields.svc_uid,
    enrollment_id: { type: 'uuid', readOnly: true, nullable: false, filter: true, description: "The enrollment the step belongs to (the path's id)." },
    flow_id: { type: 'uuid', readOnly: true, nullable: false, description: "The enrollment's flow.", filter: false },
    node_id: { type: 'uuid', readOnly: true, nullable: true, description: 'The node the engine worked on; null for steps about the whole enrollment.', filter: false },
    node_key: { type: 'string', readOnly: true, nullable: true, maxLength: 64, description: "That node's key.", example: 'hello', filter: false },
    node_type: { type: 'enum', values: NODE_TYPES, readOnly: true, nullable: true, description: "That node's type.", example: 'email', filter: false },
    visit: { type: 'integer', readOnly: true, nullable: false, min: 0, max: 1_000_000, description: 'How many times the enrollment had reached that node, counting this one (loops revisit).', example: 1, filter: false },
    outcome: { type: 'enum', values: STEP_OUTCOMES, readOnly: true, nullable: false, description: 'What the engine did: email_queued, waited, task_created, task_completed, branch_true, branch_false, completed, exited, failed, rescheduled, paused or resumed.', example: 'email_queued', filter: false },
    detail: { type: 'string', readOnly: true, nullable: true, maxLength: 1_000, description: 'More about the outcome, up to 1,000 characters; null when none.', example: null, filter: false },
    sent_email_id: { type: 'uuid', readOnly: true, nullable: true, description: 'The sent email (sent_emails resource) an email step queued; null otherwise.', filter: false },
    task_id: { type: 'uuid', readOnly: true, nullable: true, description: 'The task (tasks resource) a task or call step created; null otherwise.', example: null, filter: false },
    occurred_at: { type: 'datetime', readOnly: true, nullable: false, sort: true, description: 'When the engine did it (RFC 3339).' },
    created_at: baseFields.created_at,
    updated_at: baseFields.updated_at,
  },
});
