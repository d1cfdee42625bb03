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
  description: 'A person who uses the CRM; created with crm admin and the settings pages, read-only over the API.',
  operationDocs: {
    list: 'Use it to find owners and assignees by role or is_active.',
    get: 'Use it to read the user an owner_id names.',
  },
  fields: {
    id: baseFields.id,
    svc_uid: { ...baseFields.svc_uid, readOnly: true, nullable: true, description: 'An external id of the user, set by whoever created the user; null when none.' },
    email: { type: 'email', readOnly: true, nullable: false, search: true, maxLength: 254, description: 'The address the user signs in with and sends as, up to 254 characters.', example: 'grace.hopper@example.com', filter: false },
    full_name: { type: 'string', readOnly: true, nullable: false, search: true, sort: true, maxLength: 200, description: 'Full name, up to 200 characters.', example: 'Grace Hopper', filter: false },
    role: { type: 'enum', values: USER_ROLE_VALUES, readOnly: true, nullable: false, filter: true, sort: true, description: 'owner, admin or member: what the user may do in the settings pages.', example: 'admin' },
    is_active: { type: 'boolean', readOnly: true, nullable: false, filter: true, description: 'false once the user is deactivated (their sessions end, their keys stop working).' },
    created_at: { ...baseFields.created_at, sort: true },
    updated_at: baseFields.updated_at,
  },
});
