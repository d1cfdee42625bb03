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
  fields: {
    id: baseFields.id,
    svc_uid: baseFields.svc_uid,
    sent_email_id: { type: 'uuid', readOnly: true, nullable: false, filter: true },
    contact_id: { type: 'uuid', readOnly: true, nullable: false, filter: true },
    event_type: { type: 'enum', values: EMAIL_EVENT_TYPES, readOnly: true, nullable: false, filter: true },
    occurred_at: { type: 'datetime', readOnly: true, nullable: false, sort: true },
    is_bot: { type: 'boolean', readOnly: true, nullable: false },
    url: { type: 'text', readOnly: true, nullable: true },
    user_agent: { type: 'string', readOnly: true, nullable: true, maxLength: 1_000 },
    bounce_type: { type: 'enum', values: BOUNCE_TYPES, readOnly: true, nullable: true },
    status_code: { type: 'string', readOnly: true, nullable: true, maxLength: 32 },
    detail: { type: 'text', readOnly: true, nullable: true },
    flow_id: { type: 'uuid', readOnly: true, nullable: true },
    flow_node_id: { type: 'uuid', readOnly: true, nullable: true },
    flow_enrollment_id: { type: 'uuid', readOnly: true, nullable: true },
    created_at: { ...baseFields.created_at, sort: true },
    updated_at: baseFields.updated_at,
  },
});
