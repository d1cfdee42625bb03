import { type RunningSqlService, type SqlServiceRuntime, startSqlService } from '@crm/kit';
import { activitiesGrpcBinding } from './activities.grpc';
import { type ActivitiesService, createActivitiesService } from './activities.service';
import { migrations } from './migrations';

export type ActivitiesRuntime = SqlServiceRuntime;
export type RunningActivities = RunningSqlService<ActivitiesService>;

/** Migrates, starts the outbox relay and serves ActivitiesService (+ grpc.health.v1). */
export function startActivities(runtime: ActivitiesRuntime): Promise<RunningActivities> {
  return startSqlService(
    {
      name: 'activities',
      migrations,
      create: ({ db, cursors, afterCommit }) => createActivitiesService({ db, cursors, afterCommit }),
      bindings: (service, log) => [activitiesGrpcBinding(service, log)],
    },
    runtime,
  );
}
