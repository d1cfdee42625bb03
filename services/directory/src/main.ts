import { type Logger, type RunningGrpcServer, startGrpcServer } from '@crm/kit';
import { directoryGrpcBinding } from './directory.grpc';
import { type DirectoryService, createDirectoryService, ensureDirectoryIndexes } from './directory.service';
import type { DocumentStore } from './store/document-store';

export interface DirectoryRuntime {
  store: DocumentStore;
  secretsKey: Buffer;
  keyPepper: string;
  grpcAddr: string;
  log: Logger;
}

export interface RunningDirectory {
  readonly server: RunningGrpcServer;
  readonly service: DirectoryService;
  /** Stops taking calls and lets those in flight finish for up to `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

/** Ensures indexes and serves DirectoryService (+ grpc.health.v1). */
export async function startDirectory(runtime: DirectoryRuntime): Promise<RunningDirectory> {
  await ensureDirectoryIndexes(runtime.store);
  const service = createDirectoryService({ store: runtime.store, secretsKey: runtime.secretsKey, keyPepper: runtime.keyPepper });
  const server = await startGrpcServer(runtime.grpcAddr, [directoryGrpcBinding(service, runtime.log)]);
  runtime.log.info({ address: server.address }, 'directory service listening');
  return { server, service, stop: (graceMs) => server.shutdown(graceMs) };
}
