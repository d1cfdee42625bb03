import { type CursorCodec, createCursorCodec } from './cursor';
import { type EventBus, type Subscription, createOutboxRelay } from './events';
import { type GrpcServiceBinding, type RunningGrpcServer, startGrpcServer } from './grpc';
import { startIdempotencyPruner } from './idempotency';
import type { Logger } from './logger';
import { type Migration, runMigrations } from './migrate';
import type { SqlClient } from './sql';

/** What a Postgres-backed service process is given by its host (`crm start`, tests). */
export interface SqlServiceRuntime {
  db: SqlClient;
  bus: EventBus;
  cursorSecret: string;
  grpcAddr: string;
  log: Logger;
}

export interface SqlServiceDeps {
  db: SqlClient;
  bus: EventBus;
  cursors: CursorCodec;
  /** Wakes the outbox relay after a commit that wrote events. */
  afterCommit: () => void;
  log: Logger;
}

/** A Postgres-backed bounded context, described by its parts. */
export interface SqlServiceDefinition<S> {
  name: string;
  migrations: readonly Migration[];
  create(deps: SqlServiceDeps): S;
  bindings(service: S, log: Logger): GrpcServiceBinding[];
  /** Durable event consumers the service runs while it serves. */
  consumers?(service: S, runtime: SqlServiceRuntime): Promise<Subscription[]>;
}

export interface RunningSqlService<S> {
  readonly server: RunningGrpcServer;
  readonly service: S;
  stop(): Promise<void>;
}

/**
 * The one start-up sequence of every Postgres-backed service: migrate, build the service, start
 * its consumers, serve gRPC (+ grpc.health.v1), then relay the outbox and prune idempotency
 * records. `stop()` undoes it in reverse: no new calls, no new events consumed, outbox drained.
 */
export async function startSqlService<S>(definition: SqlServiceDefinition<S>, runtime: SqlServiceRuntime): Promise<RunningSqlService<S>> {
  const { db, bus, log } = runtime;
  const applied = await runMigrations(db, definition.migrations);
  if (applied.length) log.info({ applied }, `${definition.name} migrations applied`);
  const relay = createOutboxRelay({
    db,
    bus,
    onError: (error: unknown) => log.warn({ err: error }, 'outbox relay: publish failed, will retry'),
  });
  const service = definition.create({ db, bus, cursors: createCursorCodec(runtime.cursorSecret), afterCommit: () => relay.nudge(), log });
  const consumers = (await definition.consumers?.(service, runtime)) ?? [];
  const server = await startGrpcServer(runtime.grpcAddr, definition.bindings(service, log));
  relay.start();
  const stopPruner = startIdempotencyPruner(db, (error) => log.warn({ err: error }, 'pruning idempotency keys failed'));
  log.info({ address: server.address, consumers: consumers.map((c) => c.durable) }, `${definition.name} service listening`);
  return {
    server,
    service,
    async stop() {
      await server.shutdown();
      for (const consumer of consumers) await consumer.stop();
      stopPruner();
      await relay.stop();
    },
  };
}
