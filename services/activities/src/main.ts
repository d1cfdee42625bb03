import {
  type EventBus,
  type Logger,
  type RunningGrpcServer,
  type SqlClient,
  createCursorCodec,
  createOutboxRelay,
  runMigrations,
  startGrpcServer,
  startIdempotencyPruner,
} from '@crm/kit';
import { activitiesGrpcBinding } from './activities.grpc';
import { type ActivitiesService, createActivitiesService } from './activities.service';
import { migrations } from './migrations';

export interface ActivitiesRuntime {
  db: SqlClient;
  bus: EventBus;
  cursorSecret: string;
  grpcAddr: string;
  log: Logger;
}

export interface RunningActivities {
  readonly server: RunningGrpcServer;
  readonly service: ActivitiesService;
  stop(): Promise<void>;
}

/** Migrates, starts the outbox relay and serves ActivitiesService (+ grpc.health.v1). */
export async function startActivities(runtime: ActivitiesRuntime): Promise<RunningActivities> {
  const { db, bus, log } = runtime;
  const applied = await runMigrations(db, migrations);
  if (applied.length) log.info({ applied }, 'activities migrations applied');
  const relay = createOutboxRelay({
    db,
    bus,
    onError: (error: unknown) => log.warn({ err: error }, 'outbox relay: publish failed, will retry'),
  });
  const service = createActivitiesService({ db, cursors: createCursorCodec(runtime.cursorSecret), afterCommit: () => relay.nudge() });
  const server = await startGrpcServer(runtime.grpcAddr, [activitiesGrpcBinding(service, log)]);
  relay.start();
  const stopPruner = startIdempotencyPruner(db, (error) => log.warn({ err: error }, 'pruning idempotency keys failed'));
  log.info({ address: server.address }, 'activities service listening');
  return {
    server,
    service,
    async stop() {
      await server.shutdown();
      stopPruner();
      await relay.stop();
    },
  };
}
