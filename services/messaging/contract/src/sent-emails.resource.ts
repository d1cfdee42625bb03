import { baseFields, defineResource } from '@crm/kit';

export const SENT_EMAIL_STATUSES = ['queued', 'sent', 'bounced', 'failed'] as const;
export const MAIL_PROVIDERS = ['smtp', 'log'] as const;

/** Longest subject: RFC 5322's line limit. Longest HTML body: 256 KiB (Gmail clips at ~100 KB). */
export const MAX_SUBJECT_LENGTH = 998;
export const MAX_BODY_LENGTH = 262_144;

/**
 * Sent emails (gateway/README.md, "Messaging"): queued by `POST /v1/sent_emails` or a flow's email
 * step, delivered by messaging's worker. `subject`, `body` and `body_text` are Liquid sources on
 * the way in (or come from `template_id`) and are stored rendered, as the contact receives them.
 * Status moves queued → sent | bounced | failed, by the worker and by inbound bounces only.
 */
export const sentEmails = defineResource({
  name: 'sent_emails',
  singular: 'sent_email',
  table: 'sent_emails',
  timeField: 'sent_at',
  maxLimit: 100,
  customFields: true,
  uniqueConstraints: { sent_emails_svc_uid_key: 'svc_uid' },
  fields: {
    id: baseFields.id,
    svc_uid: baseFields.svc_uid,
    contact_id: { type: 'uuid', required: true, nullable: false, filter: true },
    // Defaults to the contact's owner; the sender's name and address come from this user.
    owner_id: { type: 'uuid', filter: true },
    template_id: { type: 'uuid' },
    status: { type: 'enum', values: SENT_EMAIL_STATUSES, readOnly: true, nullable: false, filter: true },
    provider: { type: 'enum', values: MAIL_PROVIDERS, readOnly: true, nullable: true, filter: true },
    // Required unless template_id is given; stored rendered.
    subject: { type: 'string', maxLength: MAX_SUBJECT_LENGTH, nullable: false, search: true },
    body: { type: 'text', maxLength: MAX_BODY_LENGTH, nullable: false },
    body_text: { type: 'text', maxLength: MAX_BODY_LENGTH },
    to_email: { type: 'email', readOnly: true, nullable: false, search: true },
    // Defaults to the workspace's smtp integration's from_email, else the owner's address, else MAIL_FROM.
    from_email: { type: 'email', nullable: false, search: true },
    from_name: { type: 'string' },
    message_id: { type: 'string', readOnly: true, nullable: false },
    failure_reason: { type: 'string', readOnly: true, nullable: true },
    // Delivery attempts so far, as of the last one that ended; null for sends finished before they were counted.
    attempts: { type: 'integer', readOnly: true, nullable: true, min: 0 },
    // The last failed attempt: the server's answer (`451 4.3.0 …`) or the connection error, naming the smtp integration it came through.
    last_error: { type: 'text', readOnly: true, nullable: true },
    // While a retry waits: when it goes. Null otherwise.
    next_attempt_at: { type: 'datetime', readOnly: true, nullable: true },
    sent_at: { type: 'datetime', readOnly: true, nullable: true, sort: true },
    flow_id: { type: 'uuid', readOnly: true, nullable: true },
    flow_node_id: { type: 'uuid', readOnly: true, nullable: true },
    flow_enrollment_id: { type: 'uuid', readOnly: true, nullable: true, filter: true },
    created_at: { ...baseFields.created_at, sort: true },
    updated_at: baseFields.updated_at,
  },
});
