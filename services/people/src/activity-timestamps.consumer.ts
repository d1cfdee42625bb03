import { type CrmEvent, type EventBus, type Logger, type SqlClient, type Subscription, createGroupCommit, defineDurableConsumer, isUuid, newEvent, parseDateTime } from '@crm/kit';
import { ActivitiesEvents, type EventData, MessagingEvents, PeopleEvents } from '@crm/proto';

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

/** One event's effect waiting for its group, and what the group made of it. */
interface Pending {
  event: CrmEvent;
  contactId: string;
  touchAt: string | null;
  engageAt: string | null;
  outcome?: 'updated' | 'unchanged';
}

/** Events of one group per statement at most; the subscription hands over up to this many at once. */
export const ACTIVITY_GROUP_LIMIT = 64;

/**
 * Events are applied in groups (kit's group commit): those that arrive while a group commits go
 * together in the next transaction, one statement whatever their number, so a campaign's stream
 * of sends and touchpoints costs a few commits rather than one each. An event is acknowledged only
 * once its group committed. Within a group a contact's columns move to the latest of its events,
 * and the first event holding that latest time is the one reported as moving it (one
 * `contact.updated` for it); the group's other events for that contact change nothing, as if it had
 * been applied before them.
 */
export function createActivityTimestamps({ db, log, afterCommit }: { db: SqlClient; log: Logger; afterCommit?: () => void }): ActivityTimestamps {
  const groups = createGroupCommit<Pending>({
    db,
    limit: ACTIVITY_GROUP_LIMIT,
    afterCommit,
    writeAll: async (q, items) => {
      // The latest wanted time of each contact of the group.
      const wanted = new Map<string, { workspaceId: string; contactId: string; touchAt: string | null; engageAt: string | null }>();
      for (const item of items) {
        const key = `${item.event.workspace_id}/${item.contactId}`;
        const w = wanted.get(key) ?? { workspaceId: item.event.workspace_id, contactId: item.contactId, touchAt: null, engageAt: null };
        if (item.touchAt && (!w.touchAt || item.touchAt > w.touchAt)) w.touchAt = item.touchAt;
        if (item.engageAt && (!w.engageAt || item.engageAt > w.engageAt)) w.engageAt = item.engageAt;
        wanted.set(key, w);
      }
      const rows = [...wanted.values()];
      // Each column only moves forward; a row is touched (updated_at) only if one of them moved.
      // Rows are locked in (workspace, contact) order, so two groups (two replicas) cannot
      // deadlock on each other.
      const { rows: moved } = await q.query<{ workspace_id: string; id: string; touch_moved: boolean; engage_moved: boolean }>(
        `WITH wanted AS (
           SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::timestamptz[], $4::timestamptz[]) AS w(workspace_id, contact_id, touch_at, engage_at)
         ), target AS (
           SELECT c.workspace_id, c.id, w.touch_at, w.engage_at,
                  w.touch_at > coalesce(c.last_touchpoint_at, '-infinity') AS touch_moved,
                  w.engage_at > coalesce(c.last_engagement_at, '-infinity') AS engage_moved
             FROM wanted AS w JOIN contacts AS c ON c.workspace_id = w.workspace_id AND c.id = w.contact_id
            ORDER BY c.workspace_id, c.id
              FOR NO KEY UPDATE OF c
         )
         UPDATE contacts AS c SET
           last_touchpoint_at = CASE WHEN t.touch_moved THEN t.touch_at ELSE c.last_touchpoint_at END,
           last_engagement_at = CASE WHEN t.engage_moved THEN t.engage_at ELSE c.last_engagement_at END,
           updated_at = $5::timestamptz
          FROM target AS t
         WHERE c.workspace_id = t.workspace_id AND c.id = t.id AND (t.touch_moved IS TRUE OR t.engage_moved IS TRUE)
         RETURNING c.workspace_id, c.id, t.touch_moved IS TRUE AS touch_moved, t.engage_moved IS TRUE AS engage_moved`,
        [
          rows.map((r) => r.workspaceId),
          rows.map((r) => r.contactId),
          rows.map((r) => r.touchAt),
          rows.map((r) => r.engageAt),
          new Date().toISOString(),
        ],
      );
      const movedOf = new Map(moved.map((r) => [`${r.workspace_id}/${r.id}`, { touch: r.touch_moved, engage: r.engage_moved }]));
      return items.map((item) => {
        const key = `${item.event.workspace_id}/${item.contactId}`;
        const w = wanted.get(key)!;
        const m = movedOf.get(key);
        // The first event of the group holding the contact's latest time is the one that moved it.
        const changed: string[] = [];
        if (m?.touch && item.touchAt === w.touchAt) {
          changed.push('last_touchpoint_at');
          m.touch = false;
        }
        if (m?.engage && item.engageAt === w.engageAt) {
          changed.push('last_engagement_at');
          m.engage = false;
        }
        item.outcome = changed.length ? 'updated' : 'unchanged';
        return changed.length ? [newEvent(PeopleEvents.ContactUpdated, item.event.workspace_id, { id: item.contactId, changed, cause: item.event.type })] : [];
      });
    },
  });

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
      const pending: Pending = {
        event: { ...event, workspace_id: event.workspace_id.toLowerCase() },
        contactId: effect.contactId,
        touchAt: clamp(effect.touchpointAt),
        engageAt: clamp(effect.engagementAt),
      };
      await groups.add(pending);
      return pending.outcome ?? 'unchanged';
    },
  };
}

/** The durable consumer, acknowledging after the commit. */
export const activityTimestampsConsumer = defineDurableConsumer({
  name: 'people-activity-timestamps',
  home: 'people',
  subjects: ACTIVITY_SUBJECTS,
  // Enough events at once to fill a group while the previous one commits.
  concurrency: ACTIVITY_GROUP_LIMIT,
});

export function subscribeActivityTimestamps(bus: EventBus, timestamps: ActivityTimestamps, schema: string): Promise<Subscription> {
  return activityTimestampsConsumer.subscribe(bus, schema, async (event) => {
    await timestamps.apply(event);
  });
}
