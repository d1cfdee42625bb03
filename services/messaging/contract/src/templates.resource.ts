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
  fields: {
    id: baseFields.id,
    svc_uid: baseFields.svc_uid,
    name: { type: 'string', required: true, nullable: false, sort: true, search: true },
    description: { type: 'text' },
    subject: { type: 'string', required: true, nullable: false, maxLength: MAX_SUBJECT_LENGTH, search: true },
    body: { type: 'text', required: true, nullable: false, maxLength: MAX_BODY_LENGTH },
    body_text: { type: 'text', maxLength: MAX_BODY_LENGTH },
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
  fields: {
    id: baseFields.id,
    svc_uid: baseFields.svc_uid,
    name: { type: 'string', required: true, nullable: false, sort: true, search: true },
    description: { type: 'text' },
    // Defaults to chat_app.
    channel: { type: 'enum', values: CHATAPP_CHANNELS, nullable: false, filter: true },
    body: { type: 'text', required: true, nullable: false, maxLength: 10_000 },
    created_at: { ...baseFields.created_at, sort: true },
    updated_at: { ...baseFields.updated_at, sort: true },
  },
});
