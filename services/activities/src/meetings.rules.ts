import { ActivitiesError, ActivitiesErrorCode } from '@crm/activities-contract';
import type { ApiRecord, EventInit, FieldValue, PendingWrite, RecordChange } from '@crm/kit';
import { ActivitiesEvents, type EventData } from '@crm/proto';
import { present, requireNotBlank, timeOf } from './rules';

/**
 * Meeting rules: status defaults to scheduled; `scheduled_end` is after `scheduled_start`, checked
 * on the record as it will be, so a PATCH of either bound cannot invert them. The error names the
 * bound the request moved.
 */
export function meetingRules(write: PendingWrite): Record<string, FieldValue> {
  requireNotBlank(write, 'title');
  const derived: Record<string, FieldValue> = {};
  if (write.mode === 'create' && write.fields.status === undefined) derived.status = 'scheduled';
  const start = timeOf(write.next.scheduled_start);
  const end = timeOf(write.next.scheduled_end);
  if (start !== undefined && end !== undefined && end <= start) {
    const movedStartOnly = write.fields.scheduled_start !== undefined && write.fields.scheduled_end === undefined;
    throw movedStartOnly
      ? new ActivitiesError(ActivitiesErrorCode.EndsBeforeStart, 'scheduled_start', 'must be before scheduled_end')
      : new ActivitiesError(ActivitiesErrorCode.EndsBeforeStart, 'scheduled_end', 'must be after scheduled_start');
  }
  return derived;
}

const scheduled = (meeting: ApiRecord, at: unknown): EventInit => {
  const data: EventData<typeof ActivitiesEvents.MeetingScheduled> = {
    meeting_id: String(meeting.id),
    scheduled_start: String(meeting.scheduled_start),
    occurred_at: String(at),
    ...present(meeting, 'contact_id', 'owner_id'),
  };
  return { type: ActivitiesEvents.MeetingScheduled, data };
};

const canceled = (meeting: ApiRecord, at: string, deleted: boolean): EventInit => {
  const data: EventData<typeof ActivitiesEvents.MeetingCanceled> = {
    meeting_id: String(meeting.id),
    scheduled_start: String(meeting.scheduled_start),
    deleted,
    occurred_at: at,
    ...present(meeting, 'contact_id', 'owner_id'),
  };
  return { type: ActivitiesEvents.MeetingCanceled, data };
};

/**
 * Events of a meeting change. Create: scheduled (every meeting was booked; one created canceled
 * is canceled at once too). Update: updated, plus canceled when the status moves to canceled, or
 * scheduled when a canceled meeting is scheduled again. Delete: canceled with `deleted: true`.
 */
export function meetingEvents(change: RecordChange): EventInit[] {
  switch (change.verb) {
    case 'created': {
      const meeting = change.after!;
      const events = [scheduled(meeting, meeting.created_at)];
      if (meeting.status === 'canceled') events.push(canceled(meeting, String(meeting.created_at), false));
      return events;
    }
    case 'updated': {
      const before = change.before!;
      const meeting = change.after!;
      const data: EventData<typeof ActivitiesEvents.MeetingUpdated> = {
        meeting_id: String(meeting.id),
        status: String(meeting.status),
        scheduled_start: String(meeting.scheduled_start),
        scheduled_end: String(meeting.scheduled_end),
        changed: change.changed,
        occurred_at: String(meeting.updated_at),
        ...present(meeting, 'contact_id', 'owner_id', 'outcome'),
      };
      const events: EventInit[] = [{ type: ActivitiesEvents.MeetingUpdated, data }];
      if (before.status !== 'canceled' && meeting.status === 'canceled') {
        events.push(canceled(meeting, String(meeting.updated_at), false));
      } else if (before.status === 'canceled' && meeting.status === 'scheduled') {
        events.push(scheduled(meeting, meeting.updated_at));
      }
      return events;
    }
    case 'deleted':
      return [canceled(change.before!, new Date().toISOString(), true)];
  }
}
