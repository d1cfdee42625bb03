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
  description: 'A call placed by hand or by a dialer; never changed once logged.',
  operationDocs: {
    list: "Use it for a contact's or a user's calls.",
    get: 'Use it to read one logged call.',
    create: "Log a call after it happened; it moves the contact's last_engagement_at and appears in the timeline.",
    delete: 'Use it to remove a call logged by mistake.',
  },
  fields: {
    id: baseFields.id,
    svc_uid: baseFields.svc_uid,
    contact_id: { type: 'uuid', filter: true, description: 'The contact (contacts resource) called.' },
    owner_id: { type: 'uuid', filter: true, description: 'The user (users resource) who placed the call.' },
    status: { type: 'enum', values: CALL_STATUSES, required: true, nullable: false, filter: true, description: 'completed, missed or failed; required.', example: 'completed' },
    outcome: { type: 'enum', values: CALL_OUTCOMES, filter: true, description: 'What came of it: connected, voicemail, no_answer, busy or wrong_number.', example: 'connected' },
    // Defaults to manual; applied by the service.
    mode: { type: 'enum', values: CALL_MODES, nullable: false, filter: true, description: 'manual (dialled by hand) or dialer; manual when omitted, set by the server.' },
    notes: { type: 'text', search: true, description: 'Notes on the call, free text up to 10,000 characters.', example: 'Interested in a demo next week.' },
    started_at: { type: 'datetime', sort: true, description: 'When the call started (RFC 3339).', example: '2026-03-02T09:30:00Z' },
    ended_at: { type: 'datetime', sort: true, description: 'When the call ended (RFC 3339).', example: '2026-03-02T09:42:30Z' },
    duration_seconds: { type: 'integer', min: 0, sort: true, description: 'Length in seconds, 0 or more; derived by the server from started_at and ended_at when both are given.', example: 750, filter: false },
    created_at: { ...baseFields.created_at, sort: true },
    updated_at: baseFields.updated_at,
  },
});
