import {
  type AddressEnv,
  type ConfigOf,
  type ConfigSchema,
  DEFAULT_PORTS,
  MAX_STREAM_REPLICAS,
  type Setting,
  addressEnv,
  parseNatsServers,
  setting,
} from '@crm/kit';

/**
 * The environment the `crm` command itself reads, as schemas (kit/config): what every process
 * reads, the databases it opens for the services and where the components are reached. Each
 * component's own schema lives beside it (the gateway's in gateway/src/settings.ts, a service's in
 * its package). `crm start` merges the schemas of everything it is about to start and reads them
 * once, so a deployment's every missing or malformed variable is reported in one error before
 * anything starts.
 */
export type RunMode = 'all-in-one' | 'component';

/** NATS_URL: unset (the in-process bus), or a server list the NATS client takes, checked here so a typo fails the start. */
function natsServersSetting(): Setting<string | undefined> {
  return {
    describe: 'nats://host:port, or several separated by commas; optional',
    read(raw, name) {
      if (raw === undefined) return { value: undefined };
      try {
        parseNatsServers(raw);
        return { value: raw };
      } catch (error) {
        return { problem: `${name}: ${(error as Error).message}` };
      }
    },
  };
}

export const COMMON = {
  CRM_DATA_DIR: setting.string('.data'),
  LOG_LEVEL: setting.oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], 'info'),
  // The NATS servers: one URL, or the servers of a cluster separated by commas.
  NATS_URL: natsServersSetting(),
  // Copies of the event stream the cluster keeps (kit/events/nats-bus.ts, streamReplicas): 3 on a
  // 3-node cluster, so losing a server loses no event; 1 on a single server.
  NATS_STREAM_REPLICAS: setting.int(1, 1, MAX_STREAM_REPLICAS),
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

/** A component, by the name its address variable and its well-known port go by. */
export type ComponentName = keyof typeof DEFAULT_PORTS;

/** One `<NAME>_ADDR` per component named. */
type AddressSchema<N extends ComponentName, T> = { readonly [K in N as AddressEnv<K>]: Setting<T> };

const addressSchema = <N extends ComponentName, T>(names: readonly N[], kind: (name: N) => Setting<T>) =>
  Object.fromEntries(names.map((name) => [addressEnv(name), kind(name)])) as AddressSchema<N, T>;

/** Where each component is reached (`<NAME>_ADDR`), default its well-known loopback port. */
export const addressSettings = <N extends ComponentName>(names: readonly N[]) =>
  addressSchema(names, (name) => setting.address(`127.0.0.1:${DEFAULT_PORTS[name]}`));

/** All-in-one binds each service where its `<NAME>_ADDR` says, or on a free port when it is unset. */
export const optionalAddressSettings = <N extends ComponentName>(names: readonly N[]) => addressSchema(names, () => setting.optionalAddress());

export type CommonSettings = ConfigOf<typeof COMMON>;
export type SqlSettings = ConfigOf<ReturnType<typeof sqlSettings>>;
