import { baseFields, defineResource } from '@crm/kit';

/**
 * The types the CRM does something with: an `smtp` integration is the workspace's own mail server.
 * Any other type would be a record nothing reads or checks, so it is refused at creation.
 */
export const INTEGRATION_TYPES = ['smtp'] as const;

/**
 * `checking` until the first check of the integration's server has answered; then `connected` or
 * `error` (with `status_reason`), as each later check finds it.
 */
export const INTEGRATION_STATUS_VALUES = ['connected', 'checking', 'error', 'disconnected'] as const;

/**
 * A workspace's configured integrations (gateway/README.md, "Users and integrations"): read-only
 * over the API (405 on writes). The secret is never a field: it stays encrypted in the directory.
 * `config` holds the non-secret settings (for `smtp`: host, port, secure, username, from_email,
 * from_name, verp).
 */
export const integrations = defineResource({
  name: 'integrations',
  singular: 'integration',
  table: 'integrations',
  timeField: 'created_at',
  maxLimit: 200,
  customFields: false,
  fields: {
    id: baseFields.id,
    svc_uid: { ...baseFields.svc_uid, readOnly: true, nullable: true },
    type: { type: 'enum', values: INTEGRATION_TYPES, readOnly: true, nullable: false, filter: true, sort: true },
    name: { type: 'string', readOnly: true, nullable: false, maxLength: 200 },
    status: { type: 'enum', values: INTEGRATION_STATUS_VALUES, readOnly: true, nullable: false, filter: true },
    /** Why the last check failed, as the server or the network said it (never the secret); null unless `error`. */
    status_reason: { type: 'string', readOnly: true, nullable: true, maxLength: 500 },
    enabled: { type: 'boolean', readOnly: true, nullable: false, filter: true },
    config: {
      type: 'json',
      readOnly: true,
      nullable: false,
      schema: { type: 'object', description: 'Non-secret settings of the integration; never its secret.' },
      // Integration field 11; the directory of the previous release wrote it to field 10 only
      // (directory.proto, legacy_config): read there when 11 is absent, until 10 is reserved.
      legacyProtoField: 'legacy_config',
    },
    created_at: { ...baseFields.created_at, sort: true },
    updated_at: { ...baseFields.updated_at, sort: true },
  },
});
