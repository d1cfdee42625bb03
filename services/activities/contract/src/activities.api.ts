import { defineContextApi, route } from '@crm/kit';
import { loadActivities } from '@crm/proto';
import { callLogs } from './call-logs.resource';
import { meetings } from './meetings.resource';
import { tasks } from './tasks.resource';

/**
 * The activities context's route table. Call logs are records of calls that happened: created,
 * never changed or deleted (405). CreateEnrollmentTask, for the flow engine, is the context's own
 * RPC beside them.
 */
export const activitiesApi = defineContextApi({
  name: 'activities',
  service: () => loadActivities().crm.activities.v1.ActivitiesService,
  routes: [
    route(tasks, ['list', 'create', 'get', 'update', 'delete']),
    route(callLogs, ['list', 'create', 'get']),
    route(meetings, ['list', 'create', 'get', 'update', 'delete']),
  ],
});
