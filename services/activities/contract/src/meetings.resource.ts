import { baseFields, defineResource } from '@crm/kit';

export const MEETING_STATUSES = ['scheduled', 'completed', 'canceled', 'no_show'] as const;
export const MEETING_OUTCOMES = ['held', 'rescheduled', 'no_show', 'qualified', 'disqualified'] as const;

/**
 * Meetings: calendar meetings with contacts (activities context; gateway/README.md, "Activities").
 * `scheduled_end` is after `scheduled_start`, on create and after any update.
 */
export const meetings = defineResource({
  name: 'meetings',
  singular: 'meeting',
  table: 'meetings',
  timeField: 'scheduled_start',
  maxLimit: 100,
  customFields: true,
  uniqueConstraints: { meetings_svc_uid_key: 'svc_uid' },
  description: 'A calendar meeting with a contact.',
  operationDocs: {
    list: 'Bounded by scheduled_start: use since/until for a calendar window.',
    get: 'Use it to read one meeting.',
    create: "Book a meeting: title, scheduled_start and scheduled_end (after the start) are required.",
    update: 'Reschedule, cancel or record the outcome; scheduled_end must stay after scheduled_start.',
    delete: 'Use it to remove a meeting entered by mistake; cancel with status instead to keep its history.',
  },
  updateExample: { status: 'completed', outcome: 'qualified' },
  fields: {
    id: baseFields.id,
    svc_uid: baseFields.svc_uid,
    contact_id: { type: 'uuid', filter: true, description: 'The contact (contacts resource) met.' },
    owner_id: { type: 'uuid', filter: true, description: 'The user (users resource) who holds the meeting.' },
    // Defaults to scheduled; applied by the service.
    status: { type: 'enum', values: MEETING_STATUSES, nullable: false, filter: true, description: 'scheduled, completed, canceled or no_show; scheduled when omitted, set by the server.' },
    outcome: { type: 'enum', values: MEETING_OUTCOMES, filter: true, description: 'What came of it: held, rescheduled, no_show, qualified or disqualified.' },
    title: { type: 'string', required: true, nullable: false, search: true, description: "The meeting's title, up to 255 characters; required.", example: 'Product demo', filter: false },
    description: { type: 'text', search: true, description: 'Agenda or notes, free text up to 10,000 characters.', example: 'Walk through the flows builder.' },
    location: { type: 'string', maxLength: 1000, search: true, description: 'Where: an address or a call link, up to 1,000 characters.', example: 'https://meet.example.com/abc-defg-hij', filter: false },
    scheduled_start: { type: 'datetime', required: true, nullable: false, sort: true, description: 'Start (RFC 3339); required.', example: '2026-03-09T14:00:00Z' },
    scheduled_end: { type: 'datetime', required: true, nullable: false, sort: true, description: 'End (RFC 3339), after scheduled_start; required.', example: '2026-03-09T14:30:00Z' },
    created_at: { ...baseFields.created_at, sort: true },
    updated_at: baseFields.updated_at,
  },
});
