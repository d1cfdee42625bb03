import { type SqlServiceDefinition, setting, withReferenceChecks } from '@crm/kit';
import { activitiesApi } from '@crm/activities-contract';
import { directoryApi, userReference } from '@crm/directory-contract';
import { messagingApi } from '@crm/messaging-contract';
import { peopleApi } from '@crm/people-contract';
import { enrollmentTriggers } from './enrollment-triggers.consumer';
import { flowsGrpcBinding } from './flows.grpc';
import { type FlowsService, createFlowsService } from './flows.service';
import { migrations } from './migrations';

/** The variables flows reads; their names are contracts (the root README.md, "Running distributed"). */
export const FLOWS_SETTINGS = {
  FLOW_ENGINE_POLL_MS: setting.int(1_000, 10, 60_000),
  /** Enrollments per engine round; default 200 on Postgres, 20 on PGlite. */
  FLOW_ENGINE_BATCH: setting.optionalInt(1, 1_000),
  /** Days an out-of-office reply that names no return date pauses the contact's enrollments. */
  OUT_OF_OFFICE_DEFAULT_DAYS: setting.int(7, 1, 90),
} as const;

/**
 * The flows service: flows and their graphs, enrollments, the engine that works them through their
 * steps (email through messaging, tasks through activities, contact tests through people), exits
 * from other contexts' events, and the cancels of exited enrollments' sends.
 */
export const flowsService: SqlServiceDefinition<
  FlowsService,
  { people: typeof peopleApi; messaging: typeof messagingApi; activities: typeof activitiesApi; directory: typeof directoryApi },
  typeof FLOWS_SETTINGS
> = {
  name: 'flows',
  migrations,
  peers: { people: peopleApi, messaging: messagingApi, activities: activitiesApi, directory: directoryApi },
  config: FLOWS_SETTINGS,
  create({ db, cursors, afterCommit, log, clock, peers, config }) {
    const service = createFlowsService({
      db,
      cursors,
      afterCommit,
      log,
      clock,
      people: peers.people,
      messaging: peers.messaging,
      activities: peers.activities,
      settings: {
        pollMs: config.FLOW_ENGINE_POLL_MS,
        batchSize: config.FLOW_ENGINE_BATCH ?? (db.kind === 'pglite' ? 20 : 200),
        outOfOfficeDefaultDays: config.OUT_OF_OFFICE_DEFAULT_DAYS,
      },
    });
    // A flow's owner is a user of the workspace (gateway/README.md, "References").
    return { ...service, flows: withReferenceChecks(service.flows, { owner_id: userReference(peers.directory) }) };
  },
  bindings: (service, log) => [flowsGrpcBinding(service, log)],
  consumers: async (service, { bus, db }) => [await enrollmentTriggers.subscribe(bus, db.schema, service.handleEvent)],
  workers: (service) => [service.engine, service.cancels],
};
