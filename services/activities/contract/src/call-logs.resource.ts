import { baseFields, defineResource } from '@crm/kit';

export const CALL_STATUSES = ['completed', 'missed', 'failed'] as const;
export const CALL_OUTCOMES = ['connected', 'voicemail', 'no_answer', 'busy', 'wrong_number'] as const;
export const CALL_MODES = ['manual', 'dialer'] as const;

/**
 * Call logs: calls placed by hand or by a dialer (activities context; gateway/README.md,
 * "Activities"). A log is a record of something that happened: created, never changed.
 * `duration_seconds` is derived from `started_at`/`ended_at` when both are given.
 */
export const callLogs = defineResource({
  name: 'call_logs',
  singular: 'call_log',
  table: 'call_logs',
  timeField: 'created_at',
  maxLimit: 100,
  customFields: true,
  uniqueConstraints: { call_logs_svc_uid_key: 'svc_uid' },
  fields: {
    id: baseFields.id,
    svc_uid: baseFields.svc_uid,
    contact_id: { type: 'uuid', filter: true },
    owner_id: { type: 'uuid', filter: true },
    status: { type: 'enum', values: CALL_STATUSES, required: true, nullable: false, filter: true },
    outcome: { type: 'enum', values: CALL_OUTCOMES, filter: true },
    // Defaults to manual; applied by the service.
    mode: { type: 'enum', values: CALL_MODES, nullable: false, filter: true },
    notes: { type: 'text', search: true },
    started_at: { type: 'datetime', sort: true },
    ended_at: { type: 'datetime', sort: true },
    duration_seconds: { type: 'integer', min: 0, sort: true },
    created_at: { ...baseFields.created_at, sort: true },
    updated_at: baseFields.updated_at,
  },
});
