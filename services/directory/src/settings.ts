import { type ConfigOf, type ConfigSchema, setting } from '@crm/kit';

/**
 * The variables the directory reads; their names are contracts (the root README.md, "Running
 * distributed"). Its secrets are `required` where replicas must share them (a component); where the
 * host keeps generated ones (all-in-one, under its data folder) they are `optional`.
 */
export const directorySettings = (secrets: 'required' | 'optional') => {
  const secret = secrets === 'required' ? setting.secret : setting.optionalSecret;
  return {
    MONGO_URL: setting.optionalUrl('mongodb', 'mongodb+srv'),
    MONGO_DB: setting.string('crm'),
    SECRETS_KEY: secret(),
    KEY_PEPPER: secret(),
    CURSOR_SECRET: secret(),
    // The gateway's public origin: set-password links point at its /settings/password. The same
    // variable, read the same way, as messaging's tracking links.
    PUBLIC_URL: setting.url('http://127.0.0.1:8080', 'http', 'https'),
    // How often each enabled smtp integration's server is checked again, and the bound on one check
    // (integration-check.ts): the host is the user's, so no check may run on.
    INTEGRATION_CHECK_INTERVAL_MS: setting.int(300_000, 1_000, 86_400_000),
    INTEGRATION_CHECK_TIMEOUT_MS: setting.int(10_000, 1_000, 60_000),
  } as const satisfies ConfigSchema;
};

export type DirectorySettings = ConfigOf<ReturnType<typeof directorySettings>>;
