import { type ConfigOf, type ConfigSchema, setting } from '@crm/kit';

/**
 * The variables the webhooks service reads beyond the common ones; their names are contracts.
 * SECRETS_KEY (base64 of 32 bytes) seals endpoint secrets at rest: a component requires it, and
 * all-in-one shares the one it keeps under its data folder with the directory. The two flags lift
 * the egress rules, for development and tests only.
 */
export const webhooksSettings = {
  SECRETS_KEY: setting.optionalSecret(),
  WEBHOOKS_ALLOW_PRIVATE: setting.oneOf(['0', '1'], '0'),
  WEBHOOKS_ALLOW_HTTP: setting.oneOf(['0', '1'], '0'),
} as const satisfies ConfigSchema;

export type WebhooksSettings = ConfigOf<typeof webhooksSettings>;
