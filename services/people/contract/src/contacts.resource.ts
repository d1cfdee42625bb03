import { baseFields, defineResource } from '@crm/kit';

/** Contacts: people records (gateway/README.md, "Contacts"). */
export const contacts = defineResource({
  name: 'contacts',
  singular: 'contact',
  table: 'contacts',
  timeField: 'created_at',
  maxLimit: 100,
  customFields: true,
  requireOneOf: ['email', 'first_name', 'last_name'],
  uniqueConstraints: { contacts_email_key: 'email', contacts_svc_uid_key: 'svc_uid' },
  // `q` reads one stored, lowered column with its own trigram index (people migration 007).
  searchColumn: 'search_text',
  fields: {
    id: baseFields.id,
    svc_uid: baseFields.svc_uid,
    first_name: { type: 'string', sort: true, search: true },
    last_name: { type: 'string', sort: true, search: true },
    email: { type: 'email', search: true },
    phone: { type: 'string', maxLength: 64 },
    title: { type: 'string' },
    company_name: { type: 'string', sort: true, search: true },
    company_domain: { type: 'string', filter: true },
    internal_stage: { type: 'string', filter: true, sort: true },
    priority: { type: 'integer', min: 0, max: 1000, sort: true },
    owner_id: { type: 'uuid', filter: true },
    organization_id: { type: 'uuid', filter: true },
    source: { type: 'string', filter: true },
    country: { type: 'string', filter: true },
    state: { type: 'string', filter: true },
    city: { type: 'string', filter: true },
    // Moved forward by activity events (email sent, replies, calls, meetings); never by clients.
    last_engagement_at: { type: 'datetime', readOnly: true, nullable: true, sort: true },
    last_touchpoint_at: { type: 'datetime', readOnly: true, nullable: true, sort: true },
    created_at: { ...baseFields.created_at, sort: true },
    updated_at: { ...baseFields.updated_at, sort: true },
  },
});
