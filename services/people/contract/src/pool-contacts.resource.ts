import { baseFields, defineResource } from '@crm/kit';

/**
 * Pool memberships: join records between pools and contacts (gateway/README.md, "People"). Owned
 * by people. Created and deleted, never updated; `added_at` is their time field.
 */
export const poolContacts = defineResource({
  name: 'pool_contacts',
  singular: 'pool_contact',
  table: 'pool_contacts',
  timeField: 'added_at',
  maxLimit: 100,
  customFields: true,
  uniqueConstraints: {
    pool_contacts_pool_id_contact_id_key: 'contact_id',
    pool_contacts_svc_uid_key: 'svc_uid',
  },
  fields: {
    id: baseFields.id,
    svc_uid: baseFields.svc_uid,
    pool_id: { type: 'uuid', required: true, filter: true },
    contact_id: { type: 'uuid', required: true, filter: true },
    // The user behind the API key that added the contact; null for keys without a user.
    added_by: { type: 'uuid', readOnly: true, nullable: true, filter: true },
    added_at: { type: 'datetime', readOnly: true, nullable: false, sort: true },
    created_at: baseFields.created_at,
    updated_at: baseFields.updated_at,
  },
});
