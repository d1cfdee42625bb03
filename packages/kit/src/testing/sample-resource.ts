import { baseFields, defineResource } from '../resource';

/**
 * A contact-like declaration for kit's own tests: kit is machinery and depends on no context, so
 * its tests declare the resource they exercise.
 */
export const sampleContacts = defineResource({
  name: 'contacts',
  singular: 'contact',
  table: 'contacts',
  timeField: 'created_at',
  maxLimit: 100,
  customFields: true,
  fields: {
    id: baseFields.id,
    svc_uid: baseFields.svc_uid,
    first_name: { type: 'string', sort: true, search: true },
    last_name: { type: 'string', sort: true, search: true },
    email: { type: 'email', search: true },
    owner_id: { type: 'uuid', filter: true },
    country: { type: 'string', filter: true },
    last_engagement_at: { type: 'datetime', readOnly: true, nullable: true, sort: true },
    created_at: { ...baseFields.created_at, sort: true },
    updated_at: { ...baseFields.updated_at, sort: true },
  },
});
