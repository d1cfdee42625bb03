import { type HealthMonitor, type Logger, type RunningGrpcServer, monitorHealth, startGrpcServer } from '@crm/kit';
import { directoryGrpcBinding } from './directory.grpc';
import { COLLECTIONS, ensureDirectoryIndexes } from './directory.schema';
import { type DirectoryService, createDirectoryService } from './directory.service';
import type { DocumentStore } from './store/document-store';

export interface DirectoryRuntime {
  store: DocumentStore;
  secretsKey: Buffer;
  keyPepper: string;
  /** CURSOR_SECRET: signs list cursors; the same on every replica. */
  cursorSecret: string | Buffer;
  grpcAddr: string;
  log: Logger;
  /** How often readiness re-checks the document store (default 5 s). */
  healthIntervalMs?: number;
}

export interface RunningDirectory {
  readonly server: RunningGrpcServer;
  readonly service: DirectoryService;
  readonly health: HealthMonitor;
  /** Stops taking calls and lets those in flight finish for up to `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

/**
 * Ensures indexes and serves DirectoryService (+ grpc.health.v1, NOT_SERVING while the document
 * store does not answer: the directory's only dependency; it publishes no events).
 */
export async function startDirectory(runtime: DirectoryRuntime): Promise<RunningDirectory> {
  await ensureDirectoryIndexes(runtime.store);
  const service = createDirectoryService({ store: runtime.store, secretsKey: runtime.secretsKey, keyPepper: runtime.keyPepper, cursorSecret: runtime.cursorSecret });
  const server = await startGrpcServer(runtime.grpcAddr, [directoryGrpcBinding(service, runtime.log)]);
  const health = monitorHealth(
    (serving) => server.setServing(serving),
    [{ name: 'document store', check: () => runtime.store.collection(COLLECTIONS.workspaces).findOne({ _id: '__readiness__' }) }],
    { intervalMs: runtime.healthIntervalMs, log: runtime.log },
  );
  runtime.log.info({ address: server.address }, 'directory service listening');
  return {
    server,
    service,
    health,
    stop: async (graceMs) => {
      health.stop();
      await server.shutdown(graceMs);
    },
  };
}
