import { type ConfigSchema, DEFAULT_LEASE_MAX, DEFAULT_LIMITS, DEFAULT_PORTS, addressEnv, setting } from '@crm/kit';

/**
 * The environment each process reads, as schemas (kit/config). `crm start` merges the schemas of
 * everything it is about to start and reads them once, so a deployment's every missing or
 * malformed variable is reported in one error before anything starts.
 */
export type RunMode = 'all-in-one' | 'component';

export const COMMON = {
  CRM_DATA_DIR: setting.string('.data'),
  LOG_LEVEL: setting.oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], 'info'),
  NATS_URL: setting.optionalString(),
  // Where a consumer group created for the first time starts reading the stream (default: all it holds).
  NATS_NEW_DURABLES_FROM: setting.optionalTime(),
  // From SIGTERM (or SIGINT) to exit, whatever is still running: in-flight work gets this long less
  // a reserve for closing the rest, then the process exits anyway (main.ts, onShutdown).
  SHUTDOWN_TIMEOUT_MS: setting.int(10_000, 1_000, 600_000),
} as const satisfies ConfigSchema;

/**
 * A server secret. A component (`crm start <component>`) requires it in the environment: every
 * replica must share it. All-in-one generates it once under the data folder when it is not set.
 */
export const secretSetting = (mode: RunMode) => (mode === 'component' ? setting.secret() : setting.optionalSecret());

export const sqlSettings = (name: string, mode: RunMode) =>
  ({
    DATABASE_URL: setting.optionalUrl('postgres', 'postgresql'),
    DB_POOL_SIZE: setting.int(10, 1, 1000),
    // No statement outlives the longest deadline a caller can set (the gateway's, 5 s by default).
    DB_STATEMENT_TIMEOUT_MS: setting.int(10_000, 0, 3_600_000),
    // All-in-one keeps each service in the schema named after it; a component may be told another.
    // DB_MIGRATE=skip: the component's role may not change its schema (`crm migrate` ran first with
    // the migration role), so it only checks the schema is at its latest migration, or refuses to start.
    ...(mode === 'component' ? { DB_SCHEMA: setting.identifier(name), DB_MIGRATE: setting.oneOf(['apply', 'skip'], 'apply') } : {}),
    CURSOR_SECRET: secretSetting(mode),
  }) satisfies ConfigSchema;

export const directorySettings = (mode: RunMode) =>
  ({
    MONGO_URL: setting.optionalUrl('mongodb', 'mongodb+srv'),
    MONGO_DB: setting.string('crm'),
    SECRETS_KEY: secretSetting(mode),
    KEY_PEPPER: secretSetting(mode),
    CURSOR_SECRET: secretSetting(mode),
  }) satisfies ConfigSchema;

/** Where each component is reached (`<NAME>_ADDR`), default its well-known loopback port. */
export const addressSettings = (names: readonly (keyof typeof DEFAULT_PORTS)[]): ConfigSchema =>
  Object.fromEntries(names.map((name) => [addressEnv(name), setting.address(`127.0.0.1:${DEFAULT_PORTS[name]}`)]));

export const GATEWAY = {
  HOST: setting.string('127.0.0.1'),
  PORT: setting.port(DEFAULT_PORTS.gateway),
  UPSTREAM_TIMEOUT_MS: setting.int(5_000, 1, 600_000),
  // Slow clients (gateway/README.md): a request's headers, and the whole request, must arrive
  // within these; an idle keep-alive connection is closed after the last.
  HEADERS_TIMEOUT_MS: setting.int(10_000, 1_000, 600_000),
  REQUEST_TIMEOUT_MS: setting.int(30_000, 1_000, 3_600_000),
  KEEP_ALIVE_TIMEOUT_MS: setting.int(5_000, 1_000, 600_000),
  REDIS_URL: setting.optionalUrl('redis', 'rediss'),
  RATE_LIMIT_KEY: setting.int(DEFAULT_LIMITS.keyLimit, 1),
  RATE_LIMIT_KEY_WINDOW_MS: setting.int(DEFAULT_LIMITS.keyWindowMs, 1),
  RATE_LIMIT_WORKSPACE: setting.int(DEFAULT_LIMITS.workspaceLimit, 1),
  RATE_LIMIT_WORKSPACE_WINDOW_MS: setting.int(DEFAULT_LIMITS.workspaceWindowMs, 1),
  // Most admissions a gateway takes from Redis in one call while both windows are under half full
  // (gateway/README.md, "Rate limits"); 1 asks Redis for every request.
  RATE_LIMIT_LEASE: setting.int(DEFAULT_LEASE_MAX, 1, 1_000),
} as const satisfies ConfigSchema;

/** One component's view of the process's configuration: every variable read, by name. */
export type Settings = Readonly<Record<string, unknown>>;

export const str = (settings: Settings, name: string): string => settings[name] as string;
export const optionalStr = (settings: Settings, name: string): string | undefined => settings[name] as string | undefined;
export const num = (settings: Settings, name: string): number => settings[name] as number;
export const optionalTime = (settings: Settings, name: string): Date | undefined => settings[name] as Date | undefined;
