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
  description: 'One email to one contact: queued over the API or by a flow, delivered by the worker.',
  operationDocs: {
    list: 'Filter by contact_id, status, flow_id or flow_enrollment_id to follow deliveries; bounded by sent_at.',
    get: 'Poll it to see a send go from queued to sent, bounced or failed.',
    create: "Queues one email to the contact's address: give subject and body (Liquid over the contact's fields), or a template_id. Poll the record (or list email_events) to follow it.",
  },
  fields: {
    id: baseFields.id,
    svc_uid: baseFields.svc_uid,
    contact_id: { type: 'uuid', required: true, nullable: false, filter: true, description: 'The contact (contacts resource) to send to; required. The email goes to their address.' },
    // Defaults to the contact's owner; the sender's name and address come from this user.
    owner_id: { type: 'uuid', filter: true, description: "The user (users resource) it is sent as; the contact's owner when omitted." },
    template_id: { type: 'uuid', description: 'An email template (email_templates resource) to render subject and bodies from, instead of giving them.', filter: false },
    status: { type: 'enum', values: SENT_EMAIL_STATUSES, readOnly: true, nullable: false, filter: true, description: 'queued, then sent, bounced or failed; set by the server (the delivery worker and inbound bounces).' },
    provider: { type: 'enum', values: MAIL_PROVIDERS, readOnly: true, nullable: true, filter: true, description: 'How it was delivered: smtp, or log (written to the log, not sent); set by the server, null while queued.' },
    // Required unless template_id is given; stored rendered.
    subject: { type: 'string', maxLength: MAX_SUBJECT_LENGTH, nullable: false, search: true, description: "Subject, a Liquid source over the contact's fields and sender.* (rendered when queued), up to 998 characters; required unless template_id is given.", example: 'Hello {{ first_name }}', filter: false },
    body: { type: 'text', maxLength: MAX_BODY_LENGTH, nullable: false, description: 'HTML body, a Liquid source (rendered when queued), up to 262,144 characters; required unless template_id is given.', example: '<p>Hi {{ first_name }}, thanks for joining the webinar.</p>' },
    body_text: { type: 'text', maxLength: MAX_BODY_LENGTH, description: 'Plain-text body, a Liquid source; derived from body when omitted.', example: 'Hi {{ first_name }}, thanks for joining the webinar.' },
    to_email: { type: 'email', readOnly: true, nullable: false, search: true, description: "The contact's address when it was queued; set by the server.", filter: false },
    // Defaults to the workspace's smtp integration's from_email, else the owner's address, else MAIL_FROM.
    from_email: { type: 'email', nullable: false, search: true, description: "Sender address; defaults to the workspace's smtp integration's from_email, else the owner's address, else the server's MAIL_FROM.", example: 'sales@example.com', filter: false },
    from_name: { type: 'string', description: 'Sender display name.', example: 'Example Sales', filter: false },
    message_id: { type: 'string', readOnly: true, nullable: false, description: 'The RFC 5322 Message-ID header the email carries; set by the server.', example: '<4f2a9c10.e5b7@mail.example.com>', filter: false },
    failure_reason: { type: 'string', readOnly: true, nullable: true, description: 'Why it bounced or failed, set by the server; null otherwise.', example: null, filter: false },
    // Delivery attempts so far, as of the last one that ended; null for sends finished before they were counted.
    attempts: { type: 'integer', readOnly: true, nullable: true, min: 0, description: 'Delivery attempts so far, set by the server; null for sends finished before attempts were counted.', filter: false },
    // The last failed attempt: the server's answer (`451 4.3.0 …`) or the connection error, naming the smtp integration it came through.
    last_error: { type: 'text', readOnly: true, nullable: true, description: "The last failed attempt's error (the server's answer or the connection error, naming the smtp integration), set by the server; null if none failed.", example: null },
    // While a retry waits: when it goes. Null otherwise.
    next_attempt_at: { type: 'datetime', readOnly: true, nullable: true, description: 'While a retry waits, when it goes (RFC 3339); null otherwise. Set by the server.', example: null },
    sent_at: { type: 'datetime', readOnly: true, nullable: true, sort: true, description: 'When the mail server accepted it (RFC 3339), set by the server; null until then.' },
    flow_id: { type: 'uuid', readOnly: true, nullable: true, filter: true, description: 'The flow whose email step queued it, set by the server; null for emails sent over the API.' },
    flow_node_id: { type: 'uuid', readOnly: true, nullable: true, description: 'The flow node (email step) that queued it, set by the server; null for emails sent over the API.', filter: false },
    flow_enrollment_id: { type: 'uuid', readOnly: true, nullable: true, filter: true, description: 'The enrollment it was sent for, set by the server; null for emails sent over the API.' },
    created_at: { ...baseFields.created_at, sort: true },
    updated_at: baseFields.updated_at,
  },
});
