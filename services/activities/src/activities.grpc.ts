import { type GrpcServiceBinding, type Logger, implement, recordToMessage, requireUuid, resourceHandlers } from '@crm/kit';
import { tasks } from '@crm/activities-contract';
import { type ActivitiesServiceHandlers, type CreateEnrollmentTaskRequest__Output, loadActivities } from '@crm/proto';
import type { ActivitiesService } from './activities.service';

export const ACTIVITIES_SERVICE_NAME = 'crm.activities.v1.ActivitiesService';

/** Task fields the flow engine may give, as they appear in the request. */
const ENROLLMENT_TASK_FIELDS = [
  'title',
  'description',
  'type',
  'suggested_action',
  'priority',
  'due_at',
  'assignee_id',
  'contact_id',
  'organization_id',
] as const satisfies readonly (keyof CreateEnrollmentTaskRequest__Output)[];

export function activitiesGrpcBinding(service: ActivitiesService, log: Logger): GrpcServiceBinding {
  const taskRpc = resourceHandlers(service.tasks);
  const callLogRpc = resourceHandlers(service.callLogs);
  const meetingRpc = resourceHandlers(service.meetings);
  // Records travel as the generic message shape of their declaration (see kit/resource-rpc).
  const implementation = implement<ActivitiesServiceHandlers>(
    {
      ListTasks: taskRpc.list,
      GetTask: taskRpc.get,
      CreateTask: taskRpc.create,
      UpdateTask: taskRpc.update,
      DeleteTask: taskRpc.delete,
      async CreateEnrollmentTask(request: CreateEnrollmentTaskRequest__Output) {
        const fields: Record<string, unknown> = {};
        for (const key of ENROLLMENT_TASK_FIELDS) if (request[key] !== undefined && request[key] !== null) fields[key] = request[key];
        const task = await service.createEnrollmentTask(
          { workspaceId: requireUuid(request.workspace_id, 'workspace_id') },
          {
            flowEnrollmentId: requireUuid(request.flow_enrollment_id, 'flow_enrollment_id'),
            idempotencyKey: request.idempotency_key ?? '',
            fields,
          },
        );
        return recordToMessage(tasks, task);
      },
      ListCallLogs: callLogRpc.list,
      GetCallLog: callLogRpc.get,
      CreateCallLog: callLogRpc.create,
      ListMeetings: meetingRpc.list,
      GetMeeting: meetingRpc.get,
      CreateMeeting: meetingRpc.create,
      UpdateMeeting: meetingRpc.update,
      DeleteMeeting: meetingRpc.delete,
    } as never,
    log,
  );
  return { name: ACTIVITIES_SERVICE_NAME, definition: loadActivities().crm.activities.v1.ActivitiesService.service, implementation };
}
