import { type GrpcServiceBinding, type Logger, bindContext, recordToMessage, requireUuid } from '@crm/kit';
import { activitiesApi, tasks } from '@crm/activities-contract';
import type { CreateEnrollmentTaskRequest__Output } from '@crm/proto';
import type { ActivitiesService } from './activities.service';

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

/** ActivitiesService: the route table's resources bound to their stores, and CreateEnrollmentTask. */
export function activitiesGrpcBinding(service: ActivitiesService, log: Logger): GrpcServiceBinding {
  return bindContext(
    activitiesApi,
    { tasks: service.tasks, call_logs: service.callLogs, meetings: service.meetings },
    {
      async CreateEnrollmentTask(request) {
        const fields: Record<string, unknown> = {};
        for (const key of ENROLLMENT_TASK_FIELDS) if (request[key] !== undefined && request[key] !== null) fields[key] = request[key];
        const task = await service.createEnrollmentTask(
          { workspaceId: requireUuid(request.workspace_id, 'workspace_id') },
          { flowEnrollmentId: requireUuid(request.flow_enrollment_id, 'flow_enrollment_id'), fields },
        );
        return recordToMessage(tasks, task);
      },
    },
    log,
  );
}
