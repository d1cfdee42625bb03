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
  } as const satisfies ConfigSchema;
};

export type DirectorySettings = ConfigOf<ReturnType<typeof directorySettings>>;
