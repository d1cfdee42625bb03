import {
  type ApiRecord,
  type CursorCodec,
  type ResourceStore,
  type SqlClient,
  type WriteContext,
  createResourceStore,
  requireIdempotencyKey,
} from '@crm/kit';
import { callLogs, meetings, tasks } from '@crm/activities-contract';
import { callLogEvents, callLogRules } from './call-logs.rules';
import { meetingEvents, meetingRules } from './meetings.rules';
import { taskEvents, taskRules } from './tasks.rules';

/** What the flow engine asks for: a task of an enrollment's step. */
export interface EnrollmentTaskInput {
  flowEnrollmentId: string;
  /** The task's fields, as a create body (title required; status is always open). */
  fields: Record<string, unknown>;
}

export interface ActivitiesService {
  tasks: ResourceStore;
  callLogs: ResourceStore;
  meetings: ResourceStore;
  /**
   * Creates the open task of an enrollment's step. Must run under the engine's idempotency key
   * (kit/idempotency, the same mechanism as the API's Idempotency-Key): a retry answers the task
   * created first, even if it has since been completed or deleted, and creates nothing.
   */
  createEnrollmentTask(ctx: WriteContext, input: EnrollmentTaskInput): Promise<ApiRecord>;
}

export interface ActivitiesServiceDeps {
  db: SqlClient;
  cursors: CursorCodec;
  /** Wakes the outbox relay after a commit. */
  afterCommit?: () => void;
}

export function createActivitiesService({ db, cursors, afterCommit }: ActivitiesServiceDeps): ActivitiesService {
  const common = { db, cursors, afterCommit };
  const taskStore = createResourceStore({ ...common, spec: tasks, beforeWrite: taskRules, events: taskEvents });
  const callLogStore = createResourceStore({ ...common, spec: callLogs, beforeWrite: callLogRules, events: callLogEvents });
  const meetingStore = createResourceStore({ ...common, spec: meetings, beforeWrite: meetingRules, events: meetingEvents });

  return {
    tasks: taskStore,
    callLogs: callLogStore,
    meetings: meetingStore,

    async createEnrollmentTask(ctx, input) {
      requireIdempotencyKey();
      return taskStore.create(ctx, { ...input.fields, status: 'open' }, { systemFields: { flow_enrollment_id: input.flowEnrollmentId } });
    },
  };
}
