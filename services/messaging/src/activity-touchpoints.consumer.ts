import { type CrmEvent, type Logger, type SqlClient, createOutboxCommit, defineDurableConsumer, isEventOf, isUuid, parseDateTime } from '@crm/kit';
import { ActivitiesEvents } from '@crm/proto';
import { recordTouchpoint } from './send-lifecycle.store';

/**
 * Touchpoints of what activities records (services/messaging/README.md, "Events"): a call logged
 * (channel `call`, failed when the call failed) and a meeting booked with a contact (channel
 * `call`: a conversation held by voice or video). One touchpoint per call log or meeting, so a
 * redelivered event writes nothing. Events without a contact are not touchpoints.
 */
export function createActivityTouchpoints({ db, log, afterCommit }: { db: SqlClient; log: Logger; afterCommit: () => void }) {
  const commit = createOutboxCommit(db, afterCommit);
  return async function apply(event: CrmEvent): Promise<void> {
    if (!isUuid(event.workspace_id)) return;
    let input: Parameters<typeof recordTouchpoint>[2] | undefined;
    if (isEventOf(event, ActivitiesEvents.CallLogged)) {
      const data = event.data;
      const at = typeof data.occurred_at === 'string' ? parseDateTime(data.occurred_at) : undefined;
      if (typeof data.contact_id === 'string' && isUuid(data.contact_id) && at) {
        input = {
          contactId: data.contact_id,
          ownerId: typeof data.owner_id === 'string' && isUuid(data.owner_id) ? data.owner_id : null,
          channel: 'call',
          direction: 'outbound',
          status: data.status === 'failed' ? 'failed' : 'completed',
          summary: `Call ${data.status}${data.outcome ? ` (${data.outcome})` : ''}${typeof data.duration_seconds === 'number' ? `, ${data.duration_seconds} s` : ''}`,
          occurredAt: at,
          source: 'call_log',
          sourceId: data.call_log_id,
        };
      }
    } else if (isEventOf(event, ActivitiesEvents.MeetingScheduled)) {
      const data = event.data;
      const at = typeof data.occurred_at === 'string' ? parseDateTime(data.occurred_at) : undefined;
      if (typeof data.contact_id === 'string' && isUuid(data.contact_id) && at) {
        input = {
          contactId: data.contact_id,
          ownerId: typeof data.owner_id === 'string' && isUuid(data.owner_id) ? data.owner_id : null,
          channel: 'call',
          direction: 'outbound',
          status: 'completed',
          summary: `Meeting booked for ${data.scheduled_start}`,
          occurredAt: at,
          source: 'meeting',
          sourceId: data.meeting_id,
        };
      }
    }
    if (!input || !isUuid(input.sourceId)) {
      if (input) log.warn({ eventId: event.id, type: event.type }, 'activity event ignored: malformed');
      return;
    }
    const touch = input;
    await commit((tx) => recordTouchpoint(tx, event.workspace_id, touch));
  };
}

export const activityTouchpoints = defineDurableConsumer({
  name: 'messaging-activity-touchpoints',
  home: 'messaging',
  subjects: [ActivitiesEvents.CallLogged, ActivitiesEvents.MeetingScheduled],
});
