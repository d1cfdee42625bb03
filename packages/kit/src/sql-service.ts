import type { ConfigOf, ConfigSchema } from './config';
import type { ContextApi } from './context-api';
import { type CursorCodec, createCursorCodec } from './cursor';
import { type EventBus, type Subscription, createOutboxRelay } from './events';
import { type GrpcServiceBinding, type RunningGrpcServer, type ServiceClient, createServiceClient, startGrpcServer } from './grpc';
import { startIdempotencyPruner } from './idempotency';
import { type DependencyCheck, EVENT_BUS_HEALTH, type HealthMonitor, monitorHealth } from './health';
import type { Logger } from './logger';
import { type Observe, observeGauges } from './metrics';
import { type Migration, runMigrations, verifyMigrations } from './migrate';
import type { PoolUse, SqlClient } from './sql';
import type { ResourceSpec } from './resource';
import { type Clock, type Worker, superviseWorkers, systemClock } from './workers';

/** The contexts a service calls, by the name it uses for them. */
export type Peers = Readonly<Record<string, ContextApi<any, any>>>;

/** A typed client per peer. */
export type PeerClients<P extends Peers> = { readonly [K in keyof P]: P[K] extends ContextApi<infer D, any> ? ServiceClient<D> : never };

/** What a Postgres-backed service process is given by its host (`crm start`, tests). */
export interface SqlServiceRuntime<C extends ConfigSchema = {}> {
  db: SqlClient;
  bus: EventBus;
  cursorSecret: string;
  grpcAddr: string;
  log: Logger;
  /** The service's own settings, read with the rest of the process's configuration. */
  config: ConfigOf<C>;
  /** Where a peer context is reached: `<NAME>_ADDR`, or in all-in-one the address it started on. */
  peerAddress(name: string): string;
  clock?: Clock;
  /**
   * `apply` (the default) runs pending migrations at start; `verify` only checks that the schema is
   * at the latest migration and refuses to start otherwise, for a service whose database role may
   * not change its schema (`DB_MIGRATE=skip`: `crm migrate` ran first with the migration role).
   */
  migrations?: 'apply' | 'verify';
  /** How often readiness re-checks the database and the bus (default 5 s). */
  healthIntervalMs?: number;
}

export interface SqlServiceDeps<P extends Peers = {}, C extends ConfigSchema = {}> {
  db: SqlClient;
  bus: EventBus;
  cursors: CursorCodec;
  /** The deployment's signing secret (CURSOR_SECRET), for tokens a service signs beyond cursors. */
  cursorSecret: string;
  /** Wakes the outbox relay after a commit that wrote events. */
  afterCommit: () => void;
  log: Logger;
  clock: Clock;
  /** Typed clients of the peers; calls carry the caller's deadline and trace. */
  peers: PeerClients<P>;
  config: ConfigOf<C>;
}

/** A Postgres-backed bounded context, described by its parts. */
export interface SqlServiceDefinition<S, P extends Peers = {}, C extends ConfigSchema = {}> {
  name: string;
  migrations: readonly Migration[];
  /** The declarations of the resources its schema keeps, each in its table (`crm check` reads them). */
  resources?: readonly ResourceSpec[];
  /** The contexts this service calls over gRPC. */
  peers?: P;
  /** The environment variables this service reads beyond the common ones. */
  config?: C;
  create(deps: SqlServiceDeps<P, C>): S;
  bindings(service: S, log: Logger): GrpcServiceBinding[];
  /** Durable event consumers the service runs while it serves; `afterCommit` wakes the outbox relay. */
  consumers?(service: S, runtime: SqlServiceRuntime<C> & { afterCommit: () => void }): Promise<Subscription[]>;
  /** Long-running loops (delivery, the engine), supervised while the service runs. */
  workers?(service: S, deps: SqlServiceDeps<P, C>): Worker[];
  /** Releases what `create` opened, after everything else has stopped. */
  close?(service: S): Promise<void>;
}

export interface RunningSqlService<S> {
  readonly server: RunningGrpcServer;
  readonly service: S;
  /** The readiness loop over the database and the bus. */
  readonly health: HealthMonitor;
  /** Stops taking calls, lets those in flight finish for up to `graceMs`, then stops the rest. */
  stop(graceMs?: number): Promise<void>;
}

/**
 * The one start-up sequence of every Postgres-backed service: migrate, build the service with its
 * peers, start its consumers, then its workers, serve gRPC (+ grpc.health.v1), then relay the
 * outbox and prune idempotency records. `stop()` undoes it in reverse: no new calls, workers
 * stopped, no new events consumed, outbox drained, peers and resources closed.
 */
export async function startSqlService<S, P extends Peers = {}, C extends ConfigSchema = {}>(
  definition: SqlServiceDefinition<S, P, C>,
  runtime: SqlServiceRuntime<C>,
): Promise<RunningSqlService<S>> {
  const { db, bus, log } = runtime;
  const clock = runtime.clock ?? systemClock;
  if (runtime.migrations === 'verify') {
    await verifyMigrations(db, definition.migrations);
  } else {
    const applied = await runMigrations(db, definition.migrations);
    if (applied.length) log.info({ applied }, `${definition.name} migrations applied`);
  }
  const relay = createOutboxRelay({
    db,
    bus,
    context: definition.name,
    onError: (error: unknown) => log.warn({ err: error }, 'outbox relay: publish failed, will retry'),
  });
  const peers = Object.fromEntries(
    Object.entries(definition.peers ?? {}).map(([key, api]) => [
      key,
      createServiceClient(api.service(), runtime.peerAddress(api.name), { origin: definition.name }),
    ]),
  ) as PeerClients<P>;
  const deps: SqlServiceDeps<P, C> = {
    db,
    bus,
    cursors: createCursorCodec(runtime.cursorSecret),
    cursorSecret: runtime.cursorSecret,
    afterCommit: () => relay.nudge(),
    log,
    clock,
    peers,
    config: runtime.config,
  };
  const service = definition.create(deps);
  const consumers = (await definition.consumers?.(service, { ...runtime, afterCommit: deps.afterCommit })) ?? [];
  const workers = superviseWorkers(definition.workers?.(service, deps) ?? [], log, clock);
  const server = await startGrpcServer(runtime.grpcAddr, definition.bindings(service, log));
  relay.start();
  const stopPruner = startIdempotencyPruner(db, (error) => log.warn({ err: error }, 'pruning idempotency keys failed'));
  // Readiness means "can serve": this service answers from its own database. A peer that is down
  // fails the calls that need it, not the whole service; and the event bus being down takes no
  // request with it (the outbox keeps each commit's events until it answers again), so it is
  // reported apart, under its own health name and by a gauge, and never takes the pods out of
  // their Service.
  const readiness: DependencyCheck[] = [{ name: 'database', check: () => db.query('SELECT 1') }];
  const health = monitorHealth((serving) => server.setServing(serving), readiness, { intervalMs: runtime.healthIntervalMs, log });
  const busHealth = bus.ping
    ? monitorHealth((up) => server.setStatus(EVENT_BUS_HEALTH, up), [{ name: 'event bus', check: () => bus.ping!() }], {
        intervalMs: runtime.healthIntervalMs,
        log,
        messages: {
          down: `the event bus is unreachable: ${EVENT_BUS_HEALTH} NOT_SERVING; still ready, events wait in the outbox`,
          up: `the event bus answers again: ${EVENT_BUS_HEALTH} SERVING`,
        },
      })
    : undefined;
  if (bus.ping) server.setStatus(EVENT_BUS_HEALTH, true);
  const unobserveDependencies = observeGauges((observe) => {
    observe('crm.dependency.available', health.serving ? 1 : 0, { 'crm.context': definition.name, 'crm.dependency': 'database' });
    if (busHealth) observe('crm.dependency.available', busHealth.serving ? 1 : 0, { 'crm.context': definition.name, 'crm.dependency': 'event_bus' });
  });
  const unobservePool = db.poolUse ? observeGauges((observe) => observePool(observe, definition.name, db.poolUse!())) : () => undefined;
  log.info({ address: server.address, consumers: consumers.map((c) => c.durable) }, `${definition.name} service listening`);
  return {
    server,
    service,
    health,
    async stop(graceMs) {
      health.stop();
      busHealth?.stop();
      unobserveDependencies();
      unobservePool();
      await server.shutdown(graceMs);
      await workers.stop();
      for (const consumer of consumers) await consumer.stop();
      stopPruner();
      await relay.stop();
      for (const client of Object.values(peers) as ServiceClient<unknown>[]) client.close();
      await definition.close?.(service);
    },
  };
}

/** The pool's connections by state, its size and its queue (OpenTelemetry's database client conventions). */
function observePool(observe: Observe, name: string, use: PoolUse): void {
  const pool = { 'db.client.connection.pool.name': name };
  observe('db.client.connection.count', use.total - use.idle, { ...pool, 'db.client.connection.state': 'used' });
  observe('db.client.connection.count', use.idle, { ...pool, 'db.client.connection.state': 'idle' });
  observe('db.client.connection.limit', use.max, pool);
  observe('db.client.connection.pending_requests', use.waiting, pool);
}
