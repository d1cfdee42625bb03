import { type CrmEvent, type Logger, type SqlClient, defineDurableConsumer, isEventOf, isUuid, parseDateTime } from '@crm/kit';
import { ActivitiesEvents } from '@crm/proto';
import { type LedgerEntry, recordLedger } from './ledger';

/**
 * The engagement ledger's rows from activities' events (gateway/README.md, "Timeline and
 * performance"): a call logged, a meeting booked, a task created or completed. A row is one fact,
 * so a redelivered event (and a meeting booked again after a cancellation, or a task completed
 * again after reopening) writes nothing more. Events without a contact still count for their user;
 * a malformed one is skipped and logged, never retried forever.
 */
const uuidOr = (value: unknown): string | null => (typeof value === 'string' && isUuid(value) ? value.toLowerCase() : null);
const dateOf = (value: unknown): Date | undefined => (typeof value === 'string' ? parseDateTime(value) : undefined);

export function ledgerEntryOf(event: CrmEvent): LedgerEntry | undefined {
  if (isEventOf(event, ActivitiesEvents.CallLogged)) {
    const d = event.data;
    const at = dateOf(d.occurred_at);
    if (!at || !uuidOr(d.call_log_id)) return undefined;
    const seconds = typeof d.duration_seconds === 'number' && d.duration_seconds > 0 ? d.duration_seconds : 0;
    return {
      kind: 'call_log',
      sourceId: uuidOr(d.call_log_id)!,
      contactId: uuidOr(d.contact_id),
      userId: uuidOr(d.owner_id),
      occurredAt: at,
      summary: `Call ${d.status}${d.outcome ? ` (${d.outcome.replace('_', ' ')})` : ''}${seconds ? `, ${seconds} s` : ''}`,
      payload: { status: d.status, ...(d.outcome ? { outcome: d.outcome } : {}), ...(typeof d.duration_seconds === 'number' ? { duration_seconds: d.duration_seconds } : {}) },
      metric: 'calls_placed',
      talkSeconds: seconds,
    };
  }
  if (isEventOf(event, ActivitiesEvents.MeetingScheduled)) {
    const d = event.data;
    const at = dateOf(d.occurred_at);
    if (!at || !uuidOr(d.meeting_id)) return undefined;
    return {
      kind: 'meeting',
      sourceId: uuidOr(d.meeting_id)!,
      contactId: uuidOr(d.contact_id),
      userId: uuidOr(d.owner_id),
      occurredAt: at,
      summary: `Meeting booked for ${d.scheduled_start}`,
      payload: { scheduled_start: d.scheduled_start },
      metric: 'meetings_scheduled',
    };
  }
  if (isEventOf(event, ActivitiesEvents.TaskCreated)) {
    const d = event.data;
    const at = dateOf(d.created_at);
    if (!at || !uuidOr(d.task_id)) return undefined;
    return {
      kind: 'task',
      sourceId: uuidOr(d.task_id)!,
      action: 'created',
      contactId: uuidOr(d.contact_id),
      userId: uuidOr(d.assignee_id),
      occurredAt: at,
      summary: `Task created${d.title ? `: ${d.title}` : ''}`,
      payload: { action: 'created', status: d.status, ...(d.title ? { title: d.title } : {}), ...(d.type ? { type: d.type } : {}), ...(d.due_at ? { due_at: d.due_at } : {}) },
    };
  }
  if (isEventOf(event, ActivitiesEvents.TaskCompleted)) {
    const d = event.data;
    const at = dateOf(d.completed_at);
    if (!at || !uuidOr(d.task_id)) return undefined;
    return {
      kind: 'task',
      sourceId: uuidOr(d.task_id)!,
      action: 'completed',
      contactId: uuidOr(d.contact_id),
      userId: uuidOr(d.assignee_id),
      occurredAt: at,
      summary: `Task completed${d.title ? `: ${d.title}` : ''}`,
      payload: { action: 'completed', ...(d.title ? { title: d.title } : {}) },
      metric: 'tasks_completed',
    };
  }
  return undefined;
}

export function createActivityLedger({ db, log }: { db: SqlClient; log: Logger }) {
  return async function apply(event: CrmEvent): Promise<void> {
    if (!isUuid(event.workspace_id)) return;
    const entry = ledgerEntryOf(event);
    if (!entry) {
      log.warn({ eventId: event.id, type: event.type }, 'activity event not recorded in the engagement ledger: malformed');
      return;
    }
    await db.transaction((tx) => recordLedger(tx, event.workspace_id, entry));
  };
}

export const activityLedger = defineDurableConsumer({
  name: 'messaging-engagement-ledger',
  home: 'messaging',
  subjects: [ActivitiesEvents.CallLogged, ActivitiesEvents.MeetingScheduled, ActivitiesEvents.TaskCreated, ActivitiesEvents.TaskCompleted],
});
