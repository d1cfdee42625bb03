import { type RunningSqlService, type SqlServiceRuntime, startSqlService } from '@crm/kit';
import { activityDurableFor, subscribeActivityTimestamps } from './activity-timestamps.consumer';
import { migrations } from './migrations';
import { peopleGrpcBinding } from './people.grpc';
import { type PeopleService, createPeopleService } from './people.service';

export type PeopleRuntime = SqlServiceRuntime;
export type RunningPeople = RunningSqlService<PeopleService>;

/**
 * Migrates, starts the outbox relay, consumes activity events (contacts' activity timestamps) and
 * serves PeopleService (+ grpc.health.v1).
 */
export function startPeople(runtime: PeopleRuntime): Promise<RunningPeople> {
  return startSqlService(
    {
      name: 'people',
      migrations,
      create: ({ db, cursors, afterCommit, log }) => createPeopleService({ db, cursors, afterCommit, log }),
      bindings: (service, log) => [peopleGrpcBinding(service, log)],
      consumers: async (service, { bus, db }) => [await subscribeActivityTimestamps(bus, service.activity, activityDurableFor(db.schema))],
    },
    runtime,
  );
}
