import {
  type ConfigOf,
  type ConfigSchema,
  type EventBus,
  type ListenTarget,
  type Logger,
  type Migration,
  type Peers,
  type ResourceSpec,
  type SqlServiceDefinition,
  startSqlService,
} from '@crm/kit';
import { loadSecret, openSql } from '../runtime';
import { type CommonSettings, type RunMode, type SqlSettings, sqlSettings } from '../settings';

/**
 * Stops a started part: it stops taking work, lets what is in flight run until `drainUntil` (epoch
 * ms), then cuts it short and releases what it holds.
 */
export type Stop = (drainUntil: number) => Promise<void>;

/** What a component is given to start; `Settings` is what it reads of the process's configuration. */
export interface ComponentContext<Settings = Readonly<Record<string, unknown>>> {
  log: Logger;
  /** Where to bind gRPC (`host:port`; port 0 picks a free one). */
  grpcAddr: string;
  bus: EventBus;
  mode: RunMode;
  /** The process's configuration, read once with every started component's schema (main.ts). */
  settings: Settings;
  /** Where a peer component is reached. */
  peerAddress(name: string): string;
}

/**
 * A back-end service the `crm` command can run: alone (`crm start <name>`) or inside all-in-one.
 * Adding a service is its definition and a line in SERVICE_COMPONENTS. `Settings` is the typed
 * configuration its `settings` schema (with COMMON) reads as.
 */
export interface ServiceComponent<Settings = Readonly<Record<string, unknown>>> {
  name: string;
  defaultPort: number;
  /**
   * Postgres-backed services: their schema and migrations, for `crm migrate`, and the declarations
   * of the resources kept there, for `crm check`.
   */
  database?: { schema: string; migrations: readonly Migration[]; resources: readonly ResourceSpec[] };
  /** The variables this component reads, in this mode. */
  settings(mode: RunMode): ConfigSchema;
  /** Ports it listens on beyond gRPC, checked with the others before anything starts. */
  listens?(settings: Settings): ListenTarget[];
  start(ctx: ComponentContext<Settings>): Promise<{ address: string; stop: Stop }>;
}

/** The one factory of every Postgres-backed component: its settings, its database, its service. */
export function sqlComponent<S, P extends Peers, C extends ConfigSchema>(
  definition: SqlServiceDefinition<S, P, C>,
  defaultPort: number,
  more: Pick<ServiceComponent<CommonSettings & SqlSettings & ConfigOf<C>>, 'listens'> = {},
): ServiceComponent<CommonSettings & SqlSettings & ConfigOf<C>> {
  return {
    ...more,
    name: definition.name,
    defaultPort,
    database: { schema: definition.name, migrations: definition.migrations, resources: definition.resources ?? [] },
    settings: (mode) => ({ ...sqlSettings(definition.name, mode), ...(definition.config ?? {}) }),
    async start({ log, grpcAddr, bus, mode, settings, peerAddress }) {
      const cursorSecret = loadSecret('CURSOR_SECRET', settings, mode);
      const schema = settings.DB_SCHEMA ?? definition.name;
      const db = await openSql(schema, settings, log);
      try {
        // The merged settings hold the definition's own (`config`), read and checked with its schema.
        const config: ConfigOf<C> = settings;
        const migrations = settings.DB_MIGRATE === 'skip' ? 'verify' : 'apply';
        const running = await startSqlService(definition, { db, bus, cursorSecret, grpcAddr, log, config, peerAddress, migrations });
        return {
          address: running.server.address,
          stop: async (drainUntil) => {
            await running.stop(drainUntil - Date.now());
            await db.close();
          },
        };
      } catch (error) {
        await db.close().catch(() => undefined);
        throw error;
      }
    },
  };
}
