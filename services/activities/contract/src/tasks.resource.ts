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
  fields: {
    id: baseFields.id,
    svc_uid: baseFields.svc_uid,
    title: { type: 'string', required: true, nullable: false, search: true },
    description: { type: 'text', search: true },
    // Defaults to open; applied by the service.
    status: { type: 'enum', values: TASK_STATUSES, nullable: false, filter: true, sort: true },
    priority: { type: 'integer', min: 0, max: 1000, filter: true, sort: true },
    due_at: { type: 'datetime', sort: true },
    assignee_id: { type: 'uuid', filter: true },
    contact_id: { type: 'uuid', filter: true },
    organization_id: { type: 'uuid', filter: true },
    type: { type: 'enum', values: ACTIVITY_CHANNELS, filter: true },
    suggested_action: { type: 'enum', values: ACTIVITY_CHANNELS, filter: true },
    flow_enrollment_id: { type: 'uuid', readOnly: true, nullable: true, filter: true },
    completed_at: { type: 'datetime', readOnly: true, nullable: true },
    created_at: { ...baseFields.created_at, sort: true },
    updated_at: { ...baseFields.updated_at, sort: true },
  },
});
