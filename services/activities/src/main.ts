import type { SqlServiceDefinition } from '@crm/kit';
import { activitiesGrpcBinding } from './activities.grpc';
import { type ActivitiesService, createActivitiesService } from './activities.service';
import { migrations } from './migrations';

/** The activities service: tasks, call logs and meetings over ActivitiesService. */
export const activitiesService: SqlServiceDefinition<ActivitiesService> = {
  name: 'activities',
  migrations,
  create: ({ db, cursors, afterCommit }) => createActivitiesService({ db, cursors, afterCommit }),
  bindings: (service, log) => [activitiesGrpcBinding(service, log)],
};
