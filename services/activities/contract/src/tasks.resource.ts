import { baseFields, defineResource } from '@crm/kit';

/**
 * Channels an activity belongs to: a task's `type` and `suggested_action` (gateway/README.md,
 * "Enumerations").
 */
export const ACTIVITY_CHANNELS = ['email', 'call', 'chat_app', 'professional_network', 'other'] as const;
export const TASK_STATUSES = ['open', 'completed'] as const;

/**
 * Tasks: operator to-dos, some created by the flow engine for an enrollment (activities context;
 * gateway/README.md, "Activities"). `status` moves open ⇄ completed, which sets and clears
 * `completed_at`. `flow_enrollment_id` is set only by the flow engine's RPC, so it is read-only
 * here.
 */
export const tasks = defineResource({
  name: 'tasks',
  singular: 'task',
  table: 'tasks',
  timeField: 'created_at',
  maxLimit: 200,
  customFields: true,
  uniqueConstraints: { tasks_svc_uid_key: 'svc_uid' },
  description: "An operator's to-do, created over the API or by a flow's task and call steps.",
  operationDocs: {
    list: "Filter by assignee_id and status=open for a work queue, or by flow_enrollment_id for a flow's tasks.",
    get: 'Use it to read one task.',
    create: 'Create a to-do; a title is required.',
    update: 'Set status to completed when done (a flow waiting on the task moves on); completed_at is set for you.',
    delete: 'Use it to remove a task created by mistake.',
  },
  updateExample: { status: 'completed' },
  fields: {
    id: baseFields.id,
    svc_uid: baseFields.svc_uid,
    title: { type: 'string', required: true, nullable: false, search: true, description: "The task's title, up to 255 characters; required.", example: 'Call Ada about the demo', filter: false },
    description: { type: 'text', search: true, description: 'Details, free text up to 10,000 characters.', example: 'She asked for pricing for 20 seats.' },
    // Defaults to open; applied by the service.
    status: { type: 'enum', values: TASK_STATUSES, nullable: false, filter: true, sort: true, description: 'open or completed; open when omitted. Completing sets completed_at, reopening clears it.' },
    priority: { type: 'integer', min: 0, max: 1000, filter: true, sort: true, description: 'Ranking, 0 to 1000 (higher is more urgent).', example: 700 },
    due_at: { type: 'datetime', sort: true, description: 'When it is due (RFC 3339).', example: '2026-03-03T17:00:00Z' },
    assignee_id: { type: 'uuid', filter: true, description: 'The user (users resource) who should do it.' },
    contact_id: { type: 'uuid', filter: true, description: 'The contact (contacts resource) it is about.' },
    organization_id: { type: 'uuid', filter: true, description: 'The organization (organizations resource) it is about.' },
    type: { type: 'enum', values: ACTIVITY_CHANNELS, filter: true, description: 'The channel of the work: email, call, chat_app, professional_network or other.', example: 'call' },
    suggested_action: { type: 'enum', values: ACTIVITY_CHANNELS, filter: true, description: 'The channel suggested for the next step: email, call, chat_app, professional_network or other.' },
    flow_enrollment_id: { type: 'uuid', readOnly: true, nullable: true, filter: true, description: 'The enrollment whose flow step created the task, set by the server; null for tasks created over the API.' },
    completed_at: { type: 'datetime', readOnly: true, nullable: true, description: 'When the task was completed, set by the server; null while open.' },
    created_at: { ...baseFields.created_at, sort: true },
    updated_at: { ...baseFields.updated_at, sort: true },
  },
});
