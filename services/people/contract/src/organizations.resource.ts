import { baseFields, defineResource } from '@crm/kit';

/** Organizations: the companies contacts belong to (gateway/README.md, "People"). Owned by people. */
export const organizations = defineResource({
  name: 'organizations',
  singular: 'organization',
  table: 'organizations',
  timeField: 'created_at',
  maxLimit: 100,
  customFields: true,
  uniqueConstraints: { organizations_svc_uid_key: 'svc_uid' },
  description: 'A company contacts belong to.',
  operationDocs: {
    list: 'Use it to page through companies or find one by domain.',
    get: "Use it to read a company named by a contact's organization_id.",
    create: 'Needs a name (not null); domains need not be unique.',
    update: "Use it to correct a company's details.",
    delete: 'Use it to remove a company record.',
  },
  updateExample: { industry: 'Manufacturing' },
  fields: {
    id: baseFields.id,
    svc_uid: baseFields.svc_uid,
    name: { type: 'string', required: true, sort: true, search: true, description: "The organization's name, up to 255 characters; required, never null.", example: 'Analytical Engines Ltd', filter: false },
    // Not unique: subsidiaries and imports legitimately share a domain (see people README).
    domain: { type: 'string', maxLength: 253, filter: true, search: true, description: 'Web domain, e.g. example.com (not unique: subsidiaries may share one).', example: 'example.com' },
    website_url: { type: 'url', search: true, description: 'Website, an absolute URI.', example: 'https://example.com', filter: false },
    industry: { type: 'string', filter: true, sort: true, description: 'Industry, free text.', example: 'Software' },
    country: { type: 'string', filter: true, description: 'Country, free text (ISO 3166-1 alpha-2 such as GB is best).', example: 'GB' },
    created_at: { ...baseFields.created_at, sort: true },
    updated_at: { ...baseFields.updated_at, sort: true },
  },
});
