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
  description: 'One interaction with a contact on any channel: logged by hand or written by the server for emails, replies, calls and meetings.',
  operationDocs: {
    list: "Filter by contact_id and channel for a contact's history on a channel; bounded by occurred_at.",
    get: 'Use it to read one touchpoint.',
    create: 'Log an interaction that happened elsewhere (a chat message, a connection request, a call outside the dialer).',
  },
  fields: {
    id: baseFields.id,
    svc_uid: baseFields.svc_uid,
    contact_id: { type: 'uuid', required: true, nullable: false, filter: true, description: 'The contact (contacts resource) it was with; required.' },
    owner_id: { type: 'uuid', filter: true, description: 'The user (users resource) on your side.' },
    channel: { type: 'enum', values: TOUCHPOINT_CHANNELS, required: true, nullable: false, filter: true, description: 'email, chat_app, call or professional_network; required.', example: 'professional_network' },
    direction: { type: 'enum', values: TOUCHPOINT_DIRECTIONS, required: true, nullable: false, filter: true, description: 'inbound (from the contact) or outbound (to them); required.', example: 'outbound' },
    // Defaults to completed.
    status: { type: 'enum', values: TOUCHPOINT_STATUSES, nullable: false, filter: true, description: 'completed or failed; completed when omitted.' },
    summary: { type: 'text', search: true, description: 'What was said, free text up to 10,000 characters.', example: 'Sent a connection request after the webinar.' },
    subject: { type: 'string', search: true, description: 'Subject or topic, up to 255 characters.', example: 'Webinar follow-up', filter: false },
    // Defaults to the time it was logged.
    occurred_at: { type: 'datetime', nullable: false, sort: true, description: 'When it happened (RFC 3339); the time it was logged when omitted.', example: '2026-03-02T09:30:00Z' },
    source: { type: 'enum', values: TOUCHPOINT_SOURCES, readOnly: true, nullable: false, description: 'What recorded it, set by the server: manual (logged over the API), sent_email, email_event, inbound_email, call_log or meeting.', example: 'manual', filter: false },
    source_id: { type: 'uuid', readOnly: true, nullable: true, description: 'The record it was written for (the sent email, event, call log or meeting), set by the server; null when logged by hand.', example: null, filter: false },
    created_at: { ...baseFields.created_at, sort: true },
    updated_at: baseFields.updated_at,
  },
});
