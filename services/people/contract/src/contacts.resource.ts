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
  description: 'A person you reach out to.',
  operationDocs: {
    list: 'Use it to page through contacts, find one by svc_uid, company_domain or owner, or sync changes with updated_since.',
    get: 'Use it to read a contact after an event names it.',
    create: 'Needs at least one of email, first_name or last_name; an email already used by another contact is 409.',
    update: 'Use it to correct details, change the owner or stage, or set custom fields.',
    delete: 'Its open enrollments exit with exit_reason contact_deleted.',
  },
  updateExample: { internal_stage: 'qualified', priority: 800 },
  fields: {
    id: baseFields.id,
    svc_uid: baseFields.svc_uid,
    first_name: { type: 'string', sort: true, search: true, description: 'Given name, up to 255 characters.', example: 'Ada', filter: false },
    last_name: { type: 'string', sort: true, search: true, description: 'Family name, up to 255 characters.', example: 'Lovelace', filter: false },
    email: { type: 'email', search: true, description: 'Email address, unique in the workspace (409 on a second contact with it); the address flows send to. To find a contact by address, search with q.', example: 'ada.lovelace@example.com', filter: false },
    phone: { type: 'string', maxLength: 64, description: 'Phone number as written, up to 64 characters (no format is imposed; E.164 is best for dialers).', example: '+44 20 7946 0958', filter: false },
    title: { type: 'string', description: 'Job title.', example: 'Head of Engineering', filter: false },
    company_name: { type: 'string', sort: true, search: true, description: "The company's name as given on the contact (free text; organization_id links a record).", example: 'Analytical Engines Ltd', filter: false },
    company_domain: { type: 'string', filter: true, description: "The company's web domain, e.g. example.com.", example: 'example.com' },
    internal_stage: { type: 'string', filter: true, sort: true, description: 'Your own pipeline stage, free text (e.g. lead, qualified, customer).', example: 'lead' },
    priority: { type: 'integer', min: 0, max: 1000, sort: true, description: 'Your ranking of the contact, 0 to 1000 (higher first when sorted descending).', example: 500, filter: false },
    owner_id: { type: 'uuid', filter: true, description: 'The user (users resource) who owns the contact; flows send as the owner by default.' },
    organization_id: { type: 'uuid', filter: true, description: 'The organization (organizations resource) the contact belongs to.' },
    source: { type: 'string', filter: true, description: 'Where the contact came from, free text (e.g. import, webinar, referral).', example: 'webinar' },
    country: { type: 'string', filter: true, description: 'Country, free text (ISO 3166-1 alpha-2 such as GB is best).', example: 'GB' },
    state: { type: 'string', filter: true, description: 'State, region or county, free text.', example: 'Greater London' },
    city: { type: 'string', filter: true, description: 'City, free text.', example: 'London' },
    // Moved forward by activity events (email sent, replies, calls, meetings); never by clients.
    last_engagement_at: { type: 'datetime', readOnly: true, nullable: true, sort: true, description: 'When the contact last engaged (email sent, reply, call, meeting); set by the server from activity, never by clients.' },
    last_touchpoint_at: { type: 'datetime', readOnly: true, nullable: true, sort: true, description: 'When the last touchpoint with the contact occurred; set by the server.' },
    created_at: { ...baseFields.created_at, sort: true },
    updated_at: { ...baseFields.updated_at, sort: true },
  },
});
