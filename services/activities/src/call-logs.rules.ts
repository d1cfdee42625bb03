import { type EventInit, CrmError, type FieldValue, type PendingWrite, type RecordChange } from '@crm/kit';
import { ActivitiesEvents, type EventData } from '@crm/proto';
import { present, timeOf } from './rules';

const MAX_DURATION_SECONDS = 2_147_483_647;

/**
 * Call log rules: mode defaults to manual; `ended_at` may not precede `started_at`. With both
 * given, `duration_seconds` is talk time: from 0 (it rang, nobody answered) up to the call's span,
 * with a second's leeway for a dialer that rounds up; left out, it is derived as the span (rounded
 * to the nearest second).
 */
export function callLogRules(write: PendingWrite): Record<string, FieldValue> {
  const derived: Record<string, FieldValue> = {};
  if (write.mode === 'create' && write.fields.mode === undefined) derived.mode = 'manual';
  const started = timeOf(write.next.started_at);
  const ended = timeOf(write.next.ended_at);
  if (started === undefined || ended === undefined) return derived;
  const elapsedMs = ended - started;
  if (elapsedMs < 0) throw CrmError.validation([{ field: 'ended_at', message: 'must not be before started_at' }]);
  const seconds = Math.round(elapsedMs / 1000);
  if (seconds > MAX_DURATION_SECONDS) {
    throw CrmError.validation([{ field: 'ended_at', message: 'is too far after started_at' }]);
  }
  const given = write.next.duration_seconds;
  if (typeof given !== 'number') {
    derived.duration_seconds = seconds;
  } else if (given * 1000 - elapsedMs >= 1000) {
    throw CrmError.validation([
      {
        field: 'duration_seconds',
        message: `is talk time, at most the ${seconds} seconds between started_at and ended_at (leave it out to use the whole span)`,
      },
    ]);
  }
  return derived;
}

/** A call log publishes one event, when it is logged: it is never changed afterwards. */
export function callLogEvents(change: RecordChange): EventInit[] {
  if (change.verb !== 'created') return [];
  const log = change.after!;
  const data: EventData<typeof ActivitiesEvents.CallLogged> = {
    call_log_id: String(log.id),
    status: String(log.status),
    occurred_at: String(log.started_at ?? log.created_at),
    ...present(log, 'contact_id', 'owner_id', 'outcome'),
    ...(typeof log.duration_seconds === 'number' ? { duration_seconds: log.duration_seconds } : {}),
  };
  return [{ type: ActivitiesEvents.CallLogged, data }];
}
