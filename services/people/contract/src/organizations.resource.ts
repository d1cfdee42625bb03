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
  fields: {
    id: baseFields.id,
    svc_uid: baseFields.svc_uid,
    name: { type: 'string', required: true, sort: true, search: true },
    // Not unique: subsidiaries and imports legitimately share a domain (see people README).
    domain: { type: 'string', maxLength: 253, filter: true, search: true },
    website_url: { type: 'url', search: true },
    industry: { type: 'string', filter: true, sort: true },
    country: { type: 'string', filter: true },
    created_at: { ...baseFields.created_at, sort: true },
    updated_at: { ...baseFields.updated_at, sort: true },
  },
});
