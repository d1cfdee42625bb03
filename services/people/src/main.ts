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
import { activityDurableFor, subscribeActivityTimestamps } from './activity-timestamps.consumer';
import { migrations } from './migrations';
import { peopleGrpcBinding } from './people.grpc';
import { type PeopleService, createPeopleService } from './people.service';

export interface PeopleRuntime {
  db: SqlClient;
  bus: EventBus;
  cursorSecret: string;
  grpcAddr: string;
  log: Logger;
}

export interface RunningPeople {
  readonly server: RunningGrpcServer;
  readonly service: PeopleService;
  stop(): Promise<void>;
}

/**
 * Migrates, starts the outbox relay, consumes activity events (contacts' activity timestamps) and
 * serves PeopleService (+ grpc.health.v1).
 */
export async function startPeople(runtime: PeopleRuntime): Promise<RunningPeople> {
  const { db, bus, log } = runtime;
  const applied = await runMigrations(db, migrations);
  if (applied.length) log.info({ applied }, 'people migrations applied');
  const relay = createOutboxRelay({
    db,
    bus,
    onError: (error: unknown) => log.warn({ err: error }, 'outbox relay: publish failed, will retry'),
  });
  const service = createPeopleService({ db, cursors: createCursorCodec(runtime.cursorSecret), afterCommit: () => relay.nudge(), log });
  const activity = await subscribeActivityTimestamps(bus, service.activity, activityDurableFor(db.schema));
  const server = await startGrpcServer(runtime.grpcAddr, [peopleGrpcBinding(service, log)]);
  relay.start();
  const stopPruner = startIdempotencyPruner(db, (error) => log.warn({ err: error }, 'pruning idempotency keys failed'));
  log.info({ address: server.address, consumer: activity.durable }, 'people service listening');
  return {
    server,
    service,
    async stop() {
      await server.shutdown();
      await activity.stop();
      stopPruner();
      await relay.stop();
    },
  };
}
