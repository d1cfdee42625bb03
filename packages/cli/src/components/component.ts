import type { EventBus, Logger, Migration } from '@crm/kit';
import type { RunMode } from '../runtime';

export type Stop = () => Promise<void>;

export interface ComponentContext {
  log: Logger;
  /** Where to bind gRPC (`host:port`; port 0 picks a free one). */
  grpcAddr: string;
  bus: EventBus;
  mode: RunMode;
}

/**
 * A back-end service the `crm` command can run: alone (`crm start <name>`) or inside all-in-one.
 * Adding a service is a file in this folder and an entry in SERVICE_COMPONENTS.
 */
export interface ServiceComponent {
  name: string;
  defaultPort: number;
  /** Postgres-backed services: their schema and migrations, for `crm migrate`. */
  database?: { schema: string; migrations: readonly Migration[] };
  start(ctx: ComponentContext): Promise<{ address: string; stop: Stop }>;
}
