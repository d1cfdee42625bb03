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
  description: "One contact's membership of one pool.",
  operationDocs: {
    list: "Filter by pool_id to read a pool's members, or by contact_id for a contact's pools.",
    get: 'Use it to read one membership.',
    create: 'Adds one contact to one pool; for many at once use POST /v1/pools/{id}/members.',
    delete: 'Removes the contact from the pool; the contact stays.',
  },
  fields: {
    id: baseFields.id,
    svc_uid: baseFields.svc_uid,
    pool_id: { type: 'uuid', required: true, filter: true, description: 'The pool (pools resource); required on create.' },
    contact_id: { type: 'uuid', required: true, filter: true, description: 'The contact (contacts resource); required on create, once per pool (409 if already a member).' },
    // The user behind the API key that added the contact; null for keys without a user.
    added_by: { type: 'uuid', readOnly: true, nullable: true, filter: true, description: 'The user behind the API key that added the contact, set by the server; null for keys without a user.' },
    added_at: { type: 'datetime', readOnly: true, nullable: false, sort: true, description: 'When the contact was added to the pool (RFC 3339, UTC), set by the server.' },
    created_at: baseFields.created_at,
    updated_at: baseFields.updated_at,
  },
});
