import type { CrmEvent } from '@crm/kit';
import { ActivitiesEvents, FlowsEvents, MessagingEvents, PeopleEvents } from '@crm/proto';
import type { WebhookEventType } from '@crm/webhooks-contract';

/** The context that owns a public record, and its resource declaration's name there. */
export type OwningContext = 'people' | 'messaging' | 'flows' | 'activities';

interface Source {
  type: WebhookEventType;
  /** The fact of the internal event that is the record's id. */
  idField: string;
  /** Who owns the record and which resource it is: the body's data is read from there. */
  context: OwningContext;
  resource: string;
  /** The record is gone: data is `{id, svc_uid?, deleted: true}`, read from nowhere. */
  deleted?: true;
}

/**
 * Which internal event (proto/crm/events/v1) is which public event type, which of its facts is
 * the record's id, and which context's resource the record is (README.md, "Event types"). Internal
 * events with no public counterpart (a pool's, a task's reopening or deletion, a queued send, an
 * auto-reply) are not delivered. A meeting's cancellation is a change of its status, so
 * MeetingCanceled is `meeting.updated` too.
 */
const SOURCES: Readonly<Record<string, Source>> = {
  [PeopleEvents.ContactCreated]: { type: 'contact.created', idField: 'id', context: 'people', resource: 'contacts' },
  [PeopleEvents.ContactUpdated]: { type: 'contact.updated', idField: 'id', context: 'people', resource: 'contacts' },
  [PeopleEvents.ContactDeleted]: { type: 'contact.deleted', idField: 'id', context: 'people', resource: 'contacts', deleted: true },
  [PeopleEvents.OrganizationCreated]: { type: 'organization.created', idField: 'id', context: 'people', resource: 'organizations' },
  [PeopleEvents.OrganizationUpdated]: { type: 'organization.updated', idField: 'id', context: 'people', resource: 'organizations' },
  [PeopleEvents.OrganizationDeleted]: { type: 'organization.deleted', idField: 'id', context: 'people', resource: 'organizations', deleted: true },
  [MessagingEvents.EmailSent]: { type: 'sent_email.sent', idField: 'sent_email_id', context: 'messaging', resource: 'sent_emails' },
  [MessagingEvents.SentEmailBounced]: { type: 'sent_email.bounced', idField: 'sent_email_id', context: 'messaging', resource: 'sent_emails' },
  [MessagingEvents.SentEmailFailed]: { type: 'sent_email.failed', idField: 'sent_email_id', context: 'messaging', resource: 'sent_emails' },
  [MessagingEvents.EmailEventRecorded]: { type: 'email_event.created', idField: 'email_event_id', context: 'messaging', resource: 'email_events' },
  [MessagingEvents.TouchpointRecorded]: { type: 'touchpoint.created', idField: 'touchpoint_id', context: 'messaging', resource: 'touchpoints' },
  [FlowsEvents.EnrollmentCreated]: { type: 'enrollment.created', idField: 'enrollment_id', context: 'flows', resource: 'enrollments' },
  [FlowsEvents.EnrollmentCompleted]: { type: 'enrollment.completed', idField: 'enrollment_id', context: 'flows', resource: 'enrollments' },
  [FlowsEvents.EnrollmentExited]: { type: 'enrollment.exited', idField: 'enrollment_id', context: 'flows', resource: 'enrollments' },
  [FlowsEvents.EnrollmentFailed]: { type: 'enrollment.failed', idField: 'enrollment_id', context: 'flows', resource: 'enrollments' },
  [ActivitiesEvents.TaskCreated]: { type: 'task.created', idField: 'task_id', context: 'activities', resource: 'tasks' },
  [ActivitiesEvents.TaskCompleted]: { type: 'task.completed', idField: 'task_id', context: 'activities', resource: 'tasks' },
  [ActivitiesEvents.CallLogged]: { type: 'call_log.created', idField: 'call_log_id', context: 'activities', resource: 'call_logs' },
  [ActivitiesEvents.MeetingScheduled]: { type: 'meeting.created', idField: 'meeting_id', context: 'activities', resource: 'meetings' },
  [ActivitiesEvents.MeetingUpdated]: { type: 'meeting.updated', idField: 'meeting_id', context: 'activities', resource: 'meetings' },
  [ActivitiesEvents.MeetingCanceled]: { type: 'meeting.updated', idField: 'meeting_id', context: 'activities', resource: 'meetings' },
};

/** The subjects the consumer takes: exactly those with a public type. */
export const SOURCE_SUBJECTS: readonly string[] = Object.keys(SOURCES);

/** Every (context, resource) a body's data is read from. */
export const SOURCE_RESOURCES: readonly { context: OwningContext; resource: string }[] = [
  ...new Map(Object.values(SOURCES).filter((s) => !s.deleted).map((s) => [`${s.context}/${s.resource}`, { context: s.context, resource: s.resource }])).values(),
];

/** The body of a webhook: `{type, timestamp, data}`. */
export interface WebhookBody {
  type: WebhookEventType;
  timestamp: string;
  data: Record<string, unknown>;
}

/** What an internal event becomes: its public type and time, and where its record is read. */
export interface PublicEvent {
  type: WebhookEventType;
  timestamp: string;
  context: OwningContext;
  resource: string;
  id: string;
  /** Set for a deleted record: the body's data, read from nowhere. */
  gone?: Record<string, unknown>;
}

/**
 * The public form of an internal event, or undefined when it has none. `timestamp` is when it
 * happened. The body's data is the record as the API returns it, read from its owning context when
 * the event is consumed (event-stream.consumer.ts); for a deletion the record is gone and data is
 * `{id, svc_uid?, deleted: true}` (svc_uid when the event carries one).
 */
export function publicEvent(event: Pick<CrmEvent, 'type' | 'occurred_at' | 'data'>): PublicEvent | undefined {
  const source = Object.hasOwn(SOURCES, event.type) ? SOURCES[event.type] : undefined;
  if (!source) return undefined;
  const facts = (event.data ?? {}) as Record<string, unknown>;
  const id = facts[source.idField];
  if (typeof id !== 'string') return undefined;
  const found: PublicEvent = { type: source.type, timestamp: event.occurred_at, context: source.context, resource: source.resource, id };
  if (source.deleted) found.gone = goneData(id, facts.svc_uid);
  return found;
}

/** The data of a record that no longer exists. */
export function goneData(id: string, svcUid?: unknown): Record<string, unknown> {
  return { id, ...(typeof svcUid === 'string' && svcUid ? { svc_uid: svcUid } : {}), deleted: true };
}
