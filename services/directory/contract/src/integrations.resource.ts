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
  description: 'A configured integration of the workspace (its own mail server); read-only over the API.',
  operationDocs: {
    list: "Use it to see whether the workspace's mail server is connected.",
    get: 'status and status_reason say what the last check found.',
  },
  fields: {
    id: baseFields.id,
    svc_uid: { ...baseFields.svc_uid, readOnly: true, nullable: true, description: 'An external id of the integration, set by whoever configured it; null when none.' },
    type: { type: 'enum', values: INTEGRATION_TYPES, readOnly: true, nullable: false, filter: true, sort: true, description: "What the integration is: smtp (the workspace's own mail server)." },
    name: { type: 'string', readOnly: true, nullable: false, maxLength: 200, description: 'Its name as configured, up to 200 characters.', example: 'Company mail server', filter: false },
    status: { type: 'enum', values: INTEGRATION_STATUS_VALUES, readOnly: true, nullable: false, filter: true, description: 'checking until the first check answers, then connected or error (see status_reason); disconnected when turned off.', example: 'connected' },
    /** Why the last check failed, as the server or the network said it (never the secret); null unless `error`. */
    status_reason: { type: 'string', readOnly: true, nullable: true, maxLength: 500, description: 'Why the last check failed, as the server or network said it (never the secret); null unless status is error.', example: null, filter: false },
    enabled: { type: 'boolean', readOnly: true, nullable: false, filter: true, description: 'Whether messaging uses it.' },
    config: {
      type: 'json',
      readOnly: true,
      nullable: false,
      schema: { type: 'object' },
      description: 'Non-secret settings of the integration, never its secret; for smtp: host, port, secure, username, from_email, from_name, verp.',
      example: { host: 'smtp.example.com', port: 587, secure: false, username: 'crm', from_email: 'sales@example.com', from_name: 'Example Sales', verp: false },
      // Integration field 11; the directory of the previous release wrote it to field 10 only
      // (directory.proto, legacy_config): read there when 11 is absent, until 10 is reserved.
      legacyProtoField: 'legacy_config',
    },
    created_at: { ...baseFields.created_at, sort: true },
    updated_at: { ...baseFields.updated_at, sort: true },
  },
});
