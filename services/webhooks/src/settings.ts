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
  // How long a claimed delivery is held by its worker: past it, another worker (or this one,
  // restarted) takes it again. Above the 10 s attempt deadline with room to record the outcome, so
  // a live attempt is never taken twice.
  WEBHOOKS_DELIVERY_LEASE_MS: setting.int(60_000, 15_000, 3_600_000),
  // Deliveries in flight to one endpoint at once, across every replica; and per replica in all.
  WEBHOOKS_ENDPOINT_CONCURRENCY: setting.int(8, 1, 256),
  WEBHOOKS_CONCURRENCY: setting.int(256, 1, 4_096),
} as const satisfies ConfigSchema;

export type WebhooksSettings = ConfigOf<typeof webhooksSettings>;
