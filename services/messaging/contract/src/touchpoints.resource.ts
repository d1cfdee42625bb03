import { baseFields, defineResource } from '@crm/kit';

export const TOUCHPOINT_CHANNELS = ['email', 'chat_app', 'call', 'professional_network'] as const;
export const TOUCHPOINT_DIRECTIONS = ['inbound', 'outbound'] as const;
export const TOUCHPOINT_STATUSES = ['completed', 'failed'] as const;
export const TOUCHPOINT_SOURCES = ['manual', 'sent_email', 'email_event', 'inbound_email', 'call_log', 'meeting'] as const;

/**
 * Touchpoints (gateway/README.md, "Messaging"): the unified activity log. Logged by hand with
 * `POST /v1/touchpoints` (chat-app, professional network, calls logged elsewhere; `source:
 * manual`), and written by messaging for every email sent (`sent_email`), reply (`email_event`) and
 * auto-reply (`inbound_email`, naming the send it answered), and for the calls and meetings
 * activities publishes (`call_log`, `meeting`); `source` and `source_id` name what each records. Never
 * changed or deleted over the API.
 */
export const touchpoints = defineResource({
  name: 'touchpoints',
  singular: 'touchpoint',
  table: 'touchpoints',
  timeField: 'occurred_at',
  maxLimit: 100,
  customFields: true,
  uniqueConstraints: { touchpoints_svc_uid_key: 'svc_uid', touchpoints_source_key: 'source_id' },
  fields: {
    id: baseFields.id,
    svc_uid: baseFields.svc_uid,
    contact_id: { type: 'uuid', required: true, nullable: false, filter: true },
    owner_id: { type: 'uuid', filter: true },
    channel: { type: 'enum', values: TOUCHPOINT_CHANNELS, required: true, nullable: false, filter: true },
    direction: { type: 'enum', values: TOUCHPOINT_DIRECTIONS, required: true, nullable: false, filter: true },
    // Defaults to completed.
    status: { type: 'enum', values: TOUCHPOINT_STATUSES, nullable: false, filter: true },
    summary: { type: 'text', search: true },
    subject: { type: 'string', search: true },
    // Defaults to the time it was logged.
    occurred_at: { type: 'datetime', nullable: false, sort: true },
    source: { type: 'enum', values: TOUCHPOINT_SOURCES, readOnly: true, nullable: false },
    source_id: { type: 'uuid', readOnly: true, nullable: true },
    created_at: { ...baseFields.created_at, sort: true },
    updated_at: baseFields.updated_at,
  },
});
