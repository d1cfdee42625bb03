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
  fields: {
    id: baseFields.id,
    svc_uid: baseFields.svc_uid,
    contact_id: { type: 'uuid', filter: true },
    owner_id: { type: 'uuid', filter: true },
    // Defaults to scheduled; applied by the service.
    status: { type: 'enum', values: MEETING_STATUSES, nullable: false, filter: true },
    outcome: { type: 'enum', values: MEETING_OUTCOMES, filter: true },
    title: { type: 'string', required: true, nullable: false, search: true },
    description: { type: 'text', search: true },
    location: { type: 'string', maxLength: 1000, search: true },
    scheduled_start: { type: 'datetime', required: true, nullable: false, sort: true },
    scheduled_end: { type: 'datetime', required: true, nullable: false, sort: true },
    created_at: { ...baseFields.created_at, sort: true },
    updated_at: baseFields.updated_at,
  },
});
