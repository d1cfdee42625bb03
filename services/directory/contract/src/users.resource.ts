import { baseFields, defineResource } from '@crm/kit';

export const USER_ROLE_VALUES = ['owner', 'admin', 'member'] as const;

/**
 * Users of a workspace (gateway/README.md, "Users and integrations"): read over the API, created by
 * `crm admin` and the settings area. Stored by the directory in MongoDB (or the embedded store),
 * listed with the same query rules and cursors as every Postgres list.
 */
export const users = defineResource({
  name: 'users',
  singular: 'user',
  table: 'users',
  timeField: 'created_at',
  maxLimit: 200,
  customFields: false,
  fields: {
    id: baseFields.id,
    svc_uid: { ...baseFields.svc_uid, readOnly: true, nullable: true },
    email: { type: 'email', readOnly: true, nullable: false, search: true, maxLength: 254 },
    full_name: { type: 'string', readOnly: true, nullable: false, search: true, sort: true, maxLength: 200 },
    role: { type: 'enum', values: USER_ROLE_VALUES, readOnly: true, nullable: false, filter: true, sort: true },
    is_active: { type: 'boolean', readOnly: true, nullable: false, filter: true },
    created_at: { ...baseFields.created_at, sort: true },
    updated_at: baseFields.updated_at,
  },
});
