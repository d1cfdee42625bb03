import { baseFields, defineResource } from '@crm/kit';

export const EMAIL_EVENT_TYPES = ['open', 'click', 'reply', 'bounce', 'unsubscribe'] as const;
export const BOUNCE_TYPES = ['hard', 'soft'] as const;

/**
 * Email events (gateway/README.md, "Messaging"): engagement with a sent email, recorded by the
 * tracking paths, inbound mail and the delivery worker; read-only over the API. Opens and clicks
 * that look automated are kept with `is_bot: true` and counted nowhere.
 */
export const emailEvents = defineResource({
  name: 'email_events',
  singular: 'email_event',
  table: 'email_events',
  timeField: 'occurred_at',
  maxLimit: 100,
  customFields: false,
  uniqueConstraints: { email_events_svc_uid_key: 'svc_uid' },
  description: 'What happened to a sent email: opens, clicks, replies, bounces, unsubscribes; recorded by the server.',
  operationDocs: {
    list: 'Filter by sent_email_id, contact_id or event_type; bounded by occurred_at.',
    get: 'Use it to read one event.',
  },
  fields: {
    id: baseFields.id,
    svc_uid: baseFields.svc_uid,
    sent_email_id: { type: 'uuid', readOnly: true, nullable: false, filter: true, description: 'The sent email (sent_emails resource) the event is about.' },
    contact_id: { type: 'uuid', readOnly: true, nullable: false, filter: true, description: 'The contact it was sent to.' },
    event_type: { type: 'enum', values: EMAIL_EVENT_TYPES, readOnly: true, nullable: false, filter: true, description: 'open, click, reply, bounce or unsubscribe.', example: 'open' },
    occurred_at: { type: 'datetime', readOnly: true, nullable: false, sort: true, description: 'When it happened (RFC 3339), set by the server.' },
    is_bot: { type: 'boolean', readOnly: true, nullable: false, description: 'true when an open or click looks automated (a link scanner, a prefetching proxy); such events are counted nowhere.', example: false, filter: false },
    url: { type: 'text', readOnly: true, nullable: true, description: "A click's target link; null for other events.", example: null },
    user_agent: { type: 'string', readOnly: true, nullable: true, maxLength: 1_000, description: 'The User-Agent of an open or click, up to 1,000 characters; null for other events.', example: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_4) AppleWebKit/605.1.15', filter: false },
    bounce_type: { type: 'enum', values: BOUNCE_TYPES, readOnly: true, nullable: true, description: "A bounce's kind: hard (the address is suppressed) or soft; null for other events.", example: null, filter: false },
    status_code: { type: 'string', readOnly: true, nullable: true, maxLength: 32, description: "A bounce's enhanced status code (RFC 3463), e.g. 5.1.1; null for other events.", example: null, filter: false },
    detail: { type: 'text', readOnly: true, nullable: true, description: "A bounce's diagnostic or a reply's summary; null when none.", example: null },
    flow_id: { type: 'uuid', readOnly: true, nullable: true, description: 'The flow whose email it was; null for emails sent over the API.', filter: false },
    flow_node_id: { type: 'uuid', readOnly: true, nullable: true, description: 'The flow node that sent the email; null for emails sent over the API.', filter: false },
    flow_enrollment_id: { type: 'uuid', readOnly: true, nullable: true, description: 'The enrollment the email was sent for; null for emails sent over the API.', filter: false },
    created_at: { ...baseFields.created_at, sort: true },
    updated_at: baseFields.updated_at,
  },
});
