import {
  type ApiRecord,
  type CursorCodec,
  type ResourceStore,
  type SqlClient,
  type WriteContext,
  CrmError,
  createResourceStore,
} from '@crm/kit';
import { callLogs, meetings, tasks } from '@crm/activities-contract';
import { callLogEvents, callLogRules } from './call-logs.rules';
import { meetingEvents, meetingRules } from './meetings.rules';
import { taskEvents, taskRules } from './tasks.rules';

const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

/** What the flow engine asks for: a task of an enrollment's step. */
export interface EnrollmentTaskInput {
  flowEnrollmentId: string;
  /** Chosen by the engine per step; a retry with the same key answers the task created first. */
  idempotencyKey: string;
  /** The task's fields, as a create body (title required; status is always open). */
  fields: Record<string, unknown>;
}

export interface ActivitiesService {
  tasks: ResourceStore;
  callLogs: ResourceStore;
  meetings: ResourceStore;
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

  /** The task an earlier call made for this key, if any. */
  async function earlierTask(ctx: WriteContext, input: EnrollmentTaskInput): Promise<ApiRecord | undefined> {
    const { rows } = await db.query<{ task_id: string }>(
      `SELECT task_id FROM enrollment_task_keys
        WHERE workspace_id = $1::uuid AND flow_enrollment_id = $2::uuid AND idempotency_key = $3`,
      [ctx.workspaceId, input.flowEnrollmentId, input.idempotencyKey],
    );
    if (!rows[0]) return undefined;
    try {
      return await taskStore.get(ctx.workspaceId, rows[0].task_id);
    } catch (error) {
      if (error instanceof CrmError && error.code === 'not_found') {
        throw new CrmError('conflict', 'the task created for this enrollment and idempotency key has since been deleted', {
          field: 'idempotency_key',
        });
      }
      throw error;
    }
  }

  return {
    tasks: taskStore,
    callLogs: callLogStore,
    meetings: meetingStore,

    async createEnrollmentTask(ctx, input) {
      if (input.idempotencyKey.length === 0 || input.idempotencyKey.length > MAX_IDEMPOTENCY_KEY_LENGTH) {
        throw CrmError.invalid(`idempotency_key must be 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} characters`, { parameter: 'idempotency_key' });
      }
      const earlier = await earlierTask(ctx, input);
      if (earlier) return earlier;
      try {
        return await taskStore.create(ctx, { ...input.fields, status: 'open' }, {
          systemFields: { flow_enrollment_id: input.flowEnrollmentId },
          inTransaction: async (tx, task) => {
            await tx.query(
              `INSERT INTO enrollment_task_keys (workspace_id, flow_enrollment_id, idempotency_key, task_id)
               VALUES ($1::uuid, $2::uuid, $3, $4::uuid)`,
              [ctx.workspaceId, input.flowEnrollmentId, input.idempotencyKey, task.id],
            );
          },
        });
      } catch (error) {
        // Two attempts raced: the one that lost answers with the winner's task.
        if (error instanceof CrmError && error.code === 'conflict') {
          const raced = await earlierTask(ctx, input);
          if (raced) return raced;
        }
        throw error;
      }
    },
  };
}
