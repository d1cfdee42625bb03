import { type Clock, type HealthMonitor, type Logger, type RunningGrpcServer, monitorHealth, startGrpcServer, superviseWorkers } from '@crm/kit';
import { directoryGrpcBinding } from './directory.grpc';
import { COLLECTIONS, ensureDirectoryIndexes } from './directory.schema';
import { type DirectoryService, createDirectoryService } from './directory.service';
import { DEFAULT_CHECK_TIMEOUT_MS, type SmtpCheck, createSmtpCheck } from './integration-check';
import { integrationChecksWorker } from './integration-checks.worker';
import type { PasswordHasher } from './password';
import type { PasswordMailer } from './password-mail';
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
  /** INTEGRATION_CHECK_INTERVAL_MS: how often each smtp integration is checked again (default 5 min). */
  integrationCheckIntervalMs?: number;
  /** INTEGRATION_CHECK_TIMEOUT_MS: the bound on one check (default 10 s). */
  integrationCheckTimeoutMs?: number;
  /** Replaces the check itself (tests: a certificate authority of their own). */
  smtpCheck?: SmtpCheck;
  /** PUBLIC_URL: the gateway's public origin, the base of set-password links (default http://127.0.0.1:8080). */
  publicUrl?: string;
  /** Replace how passwords are hashed and links are mailed (tests only). */
  passwordHasher?: PasswordHasher;
  passwordMailer?: PasswordMailer;
  clock?: Clock;
}

export interface RunningDirectory {
  readonly server: RunningGrpcServer;
  readonly service: DirectoryService;
  readonly health: HealthMonitor;
  /** Stops taking calls and lets those in flight finish for up to `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

export const DEFAULT_INTEGRATION_CHECK_INTERVAL_MS = 300_000;

/**
 * Ensures indexes and serves DirectoryService (+ grpc.health.v1, NOT_SERVING while the document
 * store does not answer: the directory's only dependency; it publishes no events), and runs the
 * periodic check of the smtp integrations.
 */
export async function startDirectory(runtime: DirectoryRuntime): Promise<RunningDirectory> {
  await ensureDirectoryIndexes(runtime.store);
  const smtpCheck = runtime.smtpCheck ?? createSmtpCheck({ timeoutMs: runtime.integrationCheckTimeoutMs ?? DEFAULT_CHECK_TIMEOUT_MS });
  const service = createDirectoryService({
    store: runtime.store,
    secretsKey: runtime.secretsKey,
    keyPepper: runtime.keyPepper,
    cursorSecret: runtime.cursorSecret,
    smtpCheck,
    publicUrl: runtime.publicUrl,
    passwordHasher: runtime.passwordHasher,
    passwordMailer: runtime.passwordMailer,
    log: runtime.log,
  });
  const server = await startGrpcServer(runtime.grpcAddr, [directoryGrpcBinding(service, runtime.log)]);
  const health = monitorHealth(
    (serving) => server.setServing(serving),
    [{ name: 'document store', check: () => runtime.store.collection(COLLECTIONS.workspaces).findOne({ _id: '__readiness__' }) }],
    { intervalMs: runtime.healthIntervalMs, log: runtime.log },
  );
  const workers = superviseWorkers(
    [integrationChecksWorker({ integrations: service, intervalMs: runtime.integrationCheckIntervalMs ?? DEFAULT_INTEGRATION_CHECK_INTERVAL_MS, log: runtime.log, clock: runtime.clock })],
    runtime.log,
    runtime.clock,
  );
  runtime.log.info({ address: server.address }, 'directory service listening');
  return {
    server,
    service,
    health,
    stop: async (graceMs) => {
      health.stop();
      await server.shutdown(graceMs);
      // A round's checks stop at once (recording nothing); the next start checks them again.
      await workers.stop();
    },
  };
}
