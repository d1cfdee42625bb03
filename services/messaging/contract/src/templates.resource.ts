import { baseFields, defineResource } from '@crm/kit';
import { MAX_BODY_LENGTH, MAX_SUBJECT_LENGTH } from './sent-emails.resource';

/**
 * Email templates: Liquid subject and bodies over a contact's fields and `sender.*`, validated when
 * saved (a source that does not parse, or renders past the limits against a sample contact, is
 * 422 naming the field).
 */
export const emailTemplates = defineResource({
  name: 'email_templates',
  singular: 'email_template',
  table: 'email_templates',
  timeField: 'created_at',
  maxLimit: 100,
  customFields: true,
  uniqueConstraints: { email_templates_svc_uid_key: 'svc_uid' },
  description: 'A reusable email: Liquid subject and bodies, checked when saved.',
  operationDocs: {
    list: 'Use it to pick a template by name (q searches name and subject).',
    get: "Use it to read a template's sources.",
    create: 'Saved only if subject and body parse and render within the limits against a sample contact (422 naming the field otherwise).',
    update: 'Changes apply to emails queued after the change; sent emails keep what they rendered.',
    delete: 'Emails already sent from it are not affected.',
  },
  updateExample: { subject: 'The slides, {{ first_name }}' },
  fields: {
    id: baseFields.id,
    svc_uid: baseFields.svc_uid,
    name: { type: 'string', required: true, nullable: false, sort: true, search: true, description: "The template's name, up to 255 characters; required.", example: 'Webinar follow-up', filter: false },
    description: { type: 'text', description: 'What the template is for, free text.', example: 'Sent the day after a webinar.' },
    subject: { type: 'string', required: true, nullable: false, maxLength: MAX_SUBJECT_LENGTH, search: true, description: "Subject, a Liquid source over the contact's fields and sender.*, up to 998 characters; required. Checked when saved (422 if it does not parse).", example: 'Thanks for joining, {{ first_name }}', filter: false },
    body: { type: 'text', required: true, nullable: false, maxLength: MAX_BODY_LENGTH, description: 'HTML body, a Liquid source up to 262,144 characters; required. Checked when saved.', example: '<p>Hi {{ first_name }},</p><p>Here are the slides.</p><p>{{ sender.full_name }}</p>' },
    body_text: { type: 'text', maxLength: MAX_BODY_LENGTH, description: 'Plain-text body, a Liquid source; derived from body when omitted.' },
    created_at: { ...baseFields.created_at, sort: true },
    updated_at: { ...baseFields.updated_at, sort: true },
  },
});

export const CHATAPP_CHANNELS = ['chat_app', 'professional_network'] as const;

/** Chat-app templates: Liquid messages for chat apps and professional networks, validated when saved. */
export const chatappTemplates = defineResource({
  name: 'chatapp_templates',
  singular: 'chatapp_template',
  table: 'chatapp_templates',
  timeField: 'created_at',
  maxLimit: 100,
  customFields: true,
  uniqueConstraints: { chatapp_templates_svc_uid_key: 'svc_uid' },
  description: 'A reusable chat-app or professional-network message in Liquid, checked when saved.',
  operationDocs: {
    list: 'Filter by channel.',
    get: "Use it to read a template's source.",
    create: 'Saved only if the body parses and renders within the limits.',
    update: 'Use it to change a message.',
    delete: 'Use it to remove a template no longer used.',
  },
  updateExample: { body: 'Hi {{ first_name }}, thanks for connecting.' },
  fields: {
    id: baseFields.id,
    svc_uid: baseFields.svc_uid,
    name: { type: 'string', required: true, nullable: false, sort: true, search: true, description: "The template's name, up to 255 characters; required.", example: 'Connection request', filter: false },
    description: { type: 'text', description: 'What the template is for, free text.' },
    // Defaults to chat_app.
    channel: { type: 'enum', values: CHATAPP_CHANNELS, nullable: false, filter: true, description: 'chat_app or professional_network; chat_app when omitted.', example: 'professional_network' },
    body: { type: 'text', required: true, nullable: false, maxLength: 10_000, description: "The message, a Liquid source over the contact's fields and sender.*, up to 10,000 characters; required.", example: 'Hi {{ first_name }}, good to meet you at the webinar.' },
    created_at: { ...baseFields.created_at, sort: true },
    updated_at: { ...baseFields.updated_at, sort: true },
  },
});
