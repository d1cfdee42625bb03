import type { ApiRecord, EventInit, FieldValue, PendingWrite, RecordChange } from '@crm/kit';
import { ActivitiesEvents, type EventData } from '@crm/proto';
import { present, requireNotBlank } from './rules';

/**
 * Task rules (gateway/README.md, "Transitions"): status defaults to open; open ⇄ completed, with
 * `completed_at` set on completion and cleared on reopening. Any other status value is refused by
 * the declaration's enum (422). Setting the status it already has changes nothing.
 */
export function taskRules(write: PendingWrite): Record<string, FieldValue> {
  requireNotBlank(write, 'title');
  const derived: Record<string, FieldValue> = {};
  const status = write.fields.status;
  if (write.mode === 'create') {
    derived.status = status ?? 'open';
    derived.completed_at = derived.status === 'completed' ? new Date() : null;
  } else if (status !== undefined && status !== write.current!.status) {
    derived.completed_at = status === 'completed' ? new Date() : null;
  }
  return derived;
}

const completed = (task: ApiRecord): EventInit => ({
  type: ActivitiesEvents.TaskCompleted,
  data: {
    task_id: String(task.id),
    completed_at: String(task.completed_at),
    ...present(task, 'contact_id', 'assignee_id', 'flow_enrollment_id', 'title'),
  },
});

/**
 * Events of a task change: created (and completed, for a task created done); completed or
 * reopened when an update moves the status; deleted. Other updates publish nothing.
 */
export function taskEvents(change: RecordChange): EventInit[] {
  switch (change.verb) {
    case 'created': {
      const task = change.after!;
      const data: EventData<typeof ActivitiesEvents.TaskCreated> = {
        task_id: String(task.id),
        status: String(task.status),
        created_at: String(task.created_at),
        ...present(task, 'contact_id', 'assignee_id', 'flow_enrollment_id', 'type', 'due_at', 'title'),
      };
      return [{ type: ActivitiesEvents.TaskCreated, data }, ...(task.status === 'completed' ? [completed(task)] : [])];
    }
    case 'updated': {
      const before = change.before!;
      const task = change.after!;
      if (before.status === task.status) return [];
      if (task.status === 'completed') return [completed(task)];
      const data: EventData<typeof ActivitiesEvents.TaskReopened> = {
        task_id: String(task.id),
        reopened_at: String(task.updated_at),
        ...present(task, 'contact_id', 'flow_enrollment_id'),
      };
      return [{ type: ActivitiesEvents.TaskReopened, data }];
    }
    case 'deleted': {
      const task = change.before!;
      const data: EventData<typeof ActivitiesEvents.TaskDeleted> = {
        task_id: String(task.id),
        status: String(task.status),
        ...present(task, 'svc_uid', 'contact_id', 'flow_enrollment_id'),
      };
      return [{ type: ActivitiesEvents.TaskDeleted, data }];
    }
  }
}
