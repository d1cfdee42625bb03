import { type CrmEvent, type EventBus, type Logger, type Subscription, isUuid, newEvent, parseDateTime } from '@crm/kit';
import { contacts } from '@crm/people-contract';
import { ActivitiesEvents, type EventData, MessagingEvents, PeopleEvents } from '@crm/proto';
import type { TransactionRunner } from '@crm/kit';

/**
 * A contact's `last_touchpoint_at` (the last time anyone reached out to or dealt with the contact)
 * and `last_engagement_at` (the last time the contact responded), fed by the activity events that
 * messaging and activities publish (proto/crm/events/v1/messaging-events.proto and activities-events.proto).
 *
 * | event                                   | last_touchpoint_at | last_engagement_at |
 * |-----------------------------------------|--------------------|--------------------|
 * | email sent                              | sent_at            |                    |
 * | email event open, click (not is_bot)    |                    | occurred_at        |
 * | email event reply                       | occurred_at        | occurred_at        |
 * | email event bounce, unsubscribe         |                    |                    |
 * | touchpoint completed, outbound          | occurred_at        |                    |
 * | touchpoint completed, inbound           | occurred_at        | occurred_at        |
 * | touchpoint failed                       |                    |                    |
 * | call completed or missed                | occurred_at        | if connected       |
 * | call failed                             |                    |                    |
 * | meeting scheduled                       | occurred_at        | occurred_at        |
 * | task completed (with a contact)         | completed_at       |                    |
 *
 * Both only move forward: an event older than the stored value, or seen twice, changes nothing. A
 * time in the future (a skewed clock) counts as the time it is processed.
 */
export const ACTIVITY_SUBJECTS = [
  MessagingEvents.EmailSent,
  MessagingEvents.EmailEventRecorded,
  MessagingEvents.TouchpointRecorded,
  ActivitiesEvents.CallLogged,
  ActivitiesEvents.MeetingScheduled,
  ActivitiesEvents.TaskCompleted,
] as const;

/** What one event means for one contact; both times absent means it does not count. */
export interface ActivityEffect {
  contactId: string;
  touchpointAt?: Date;
  engagementAt?: Date;
}

export type Interpretation = { ok: true; effect: ActivityEffect | undefined } | { ok: false; reason: string };

const ignored: Interpretation = { ok: true, effect: undefined };

/** Reads an event into its effect; a malformed one is reported, never retried. */
export function interpretActivity(event: Pick<CrmEvent, 'type' | 'data'>): Interpretation {
  const data = event.data as Record<string, unknown>;
  const contactId = data.contact_id;
  const time = (name: string): Date | undefined => {
    const value = data[name];
    return typeof value === 'string' ? parseDateTime(value) : undefined;
  };
  const effect = (at: Date | undefined, what: { touch: boolean; engage: boolean }, field: string): Interpretation => {
    if (!what.touch && !what.engage) return ignored;
    if (typeof contactId !== 'string' || !isUuid(contactId)) return { ok: false, reason: 'contact_id is not a UUID' };
    if (!at) return { ok: false, reason: `${field} is not an RFC 3339 date-time` };
    return {
      ok: true,
      effect: {
        contactId: contactId.toLowerCase(),
        ...(what.touch ? { touchpointAt: at } : {}),
        ...(what.engage ? { engagementAt: at } : {}),
      },
    };
  };

  switch (event.type) {
    case MessagingEvents.EmailSent:
      return effect(time('sent_at' satisfies keyof EventData<typeof MessagingEvents.EmailSent>), { touch: true, engage: false }, 'sent_at');
    case MessagingEvents.EmailEventRecorded: {
      const kind = data.event_type as EventData<typeof MessagingEvents.EmailEventRecorded>['event_type'];
      const at = time('occurred_at' satisfies keyof EventData<typeof MessagingEvents.EmailEventRecorded>);
      if (kind === 'reply') return effect(at, { touch: true, engage: true }, 'occurred_at');
      // An open or click that looked automated (a scanner, a privacy proxy) is nobody engaging.
      if ((kind === 'open' || kind === 'click') && data.is_bot === true) return ignored;
      if (kind === 'open' || kind === 'click') return effect(at, { touch: false, engage: true }, 'occurred_at');
      // bounce and unsubscribe are not engagement; unknown kinds are left alone.
      return ignored;
    }
    case MessagingEvents.TouchpointRecorded: {
      const { status, direction } = data as Partial<EventData<typeof MessagingEvents.TouchpointRecorded>>;
      if (status !== 'completed') return ignored;
      return effect(time('occurred_at'), { touch: true, engage: direction === 'inbound' }, 'occurred_at');
    }
    case ActivitiesEvents.CallLogged: {
      const { status, outcome } = data as Partial<EventData<typeof ActivitiesEvents.CallLogged>>;
      if (contactId === undefined || contactId === null || contactId === '') return ignored;
      if (status !== 'completed' && status !== 'missed') return ignored;
      return effect(time('occurred_at'), { touch: true, engage: status === 'completed' && outcome === 'connected' }, 'occurred_at');
    }
    case ActivitiesEvents.MeetingScheduled: {
      if (contactId === undefined || contactId === null || contactId === '') return ignored;
      return effect(time('occurred_at' satisfies keyof EventData<typeof ActivitiesEvents.MeetingScheduled>), { touch: true, engage: true }, 'occurred_at');
    }
    case ActivitiesEvents.TaskCompleted: {
      if (contactId === undefined || contactId === null || contactId === '') return ignored;
      return effect(time('completed_at' satisfies keyof EventData<typeof ActivitiesEvents.TaskCompleted>), { touch: true, engage: false }, 'completed_at');
    }
    default:
      return ignored;
  }
}

export interface ActivityTimestamps {
  /** Applies one event; resolves once its effect (if any) is committed. Idempotent. */
  apply(event: CrmEvent): Promise<'updated' | 'unchanged' | 'ignored'>;
}

export function createActivityTimestamps({ tx, log }: { tx: TransactionRunner; log: Logger }): ActivityTimestamps {
  return {
    async apply(event) {
      const read = interpretActivity(event);
      if (!read.ok) {
        // Redelivering a malformed event would fail the same way forever: report it and move on.
        log.warn({ eventId: event.id, type: event.type, reason: read.reason }, 'activity event ignored: malformed');
        return 'ignored';
      }
      const effect = read.effect;
      if (!effect || !isUuid(event.workspace_id)) return 'ignored';
      const now = Date.now();
      const clamp = (at: Date | undefined) => (at ? new Date(Math.min(at.getTime(), now)).toISOString() : null);
      return tx.run(contacts, event.workspace_id, async (q) => {
        // Each column only moves forward; the row is touched (updated_at, event) only if one moved.
        const { rows } = await q.query<{ id: string; touch_moved: boolean; engage_moved: boolean }>(
          `WITH target AS (
             SELECT id,
                    $3::timestamptz > coalesce(last_touchpoint_at, '-infinity') AS touch_moved,
                    $4::timestamptz > coalesce(last_engagement_at, '-infinity') AS engage_moved
               FROM contacts WHERE workspace_id = $1::uuid AND id = $2::uuid FOR NO KEY UPDATE
           )
           UPDATE contacts AS c SET
             last_touchpoint_at = CASE WHEN t.touch_moved THEN $3::timestamptz ELSE c.last_touchpoint_at END,
             last_engagement_at = CASE WHEN t.engage_moved THEN $4::timestamptz ELSE c.last_engagement_at END,
             updated_at = $5::timestamptz
            FROM target AS t
           WHERE c.id = t.id AND (t.touch_moved IS TRUE OR t.engage_moved IS TRUE)
           RETURNING c.id, t.touch_moved IS TRUE AS touch_moved, t.engage_moved IS TRUE AS engage_moved`,
          [event.workspace_id, effect.contactId, clamp(effect.touchpointAt), clamp(effect.engagementAt), new Date(now).toISOString()],
        );
        const row = rows[0];
        if (!row) return { value: 'unchanged' as const, events: [] };
        const changed = [...(row.touch_moved ? ['last_touchpoint_at'] : []), ...(row.engage_moved ? ['last_engagement_at'] : [])];
        return {
          value: 'updated' as const,
          events: [newEvent(PeopleEvents.ContactUpdated, event.workspace_id, { id: row.id, changed, cause: event.type })],
        };
      });
    },
  };
}

/** The durable consumer: one per people deployment (schema), acknowledging after the commit. */
export const ACTIVITY_DURABLE = 'people-activity-timestamps';

export function activityDurableFor(schema: string): string {
  // Deployments sharing a NATS server but not a database (test runs, benchmarks) each need every
  // event, so each gets its own durable; the default schema keeps the plain name.
  return schema === 'people' ? ACTIVITY_DURABLE : `${ACTIVITY_DURABLE}_${schema}`.slice(0, 64);
}

export function subscribeActivityTimestamps(
  bus: EventBus,
  timestamps: ActivityTimestamps,
  durable: string = ACTIVITY_DURABLE,
): Promise<Subscription> {
  return bus.subscribe({
    durable,
    subjects: [...ACTIVITY_SUBJECTS],
    handler: async (event) => {
      await timestamps.apply(event);
    },
  });
}
