import { callLogs, meetings, tasks } from '@crm/activities-contract';
import { loadActivities } from '@crm/proto';
import type { ServiceContext } from '../contexts';
import { resourceClient } from '../clients';

/**
 * The activities context: tasks, call logs and meetings. Call logs are records of calls that
 * happened, so they offer no update or delete (405); `POST /v1/call_logs` is how dialers log them.
 */
export const activitiesContext: ServiceContext = {
  name: 'activities',
  client: () => loadActivities().crm.activities.v1.ActivitiesService,
  routes: (client, deadlineMs) => [
    { spec: tasks, client: resourceClient(client, tasks), operations: ['list', 'create', 'get', 'update', 'delete'], deadlineMs },
    { spec: callLogs, client: resourceClient(client, callLogs), operations: ['list', 'create', 'get'], deadlineMs },
    { spec: meetings, client: resourceClient(client, meetings), operations: ['list', 'create', 'get', 'update', 'delete'], deadlineMs },
  ],
};
