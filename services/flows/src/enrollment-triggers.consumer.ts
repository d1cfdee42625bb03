import { type CrmEvent, type Logger, type SqlClient, createOutboxCommit, defineDurableConsumer, isEventOf, isUuid } from '@crm/kit';
import { ActivitiesEvents, MessagingEvents, PeopleEvents } from '@crm/proto';
import { type ExitReason, exitEnrollments } from './engine/enrollment-records';
import { pauseForAutoReply } from './engine/out-of-office';

/**
 * What the flows context does with other contexts' events (services/flows/README.md, "Events"),
 * durably: every handler is idempotent (an exit only applies to active or paused enrollments, a
 * signal is recorded once, a task completes its step once), so a redelivered event changes nothing.
 *
 * - reply → `replied` and bounce → `bounced`: the contact's enrollments in the flow whose email it
 *   answers (an email sent outside a flow exits nothing);
 * - unsubscribe → `unsubscribed`, a meeting scheduled with the contact → `meeting_booked`, the
 *   contact deleted → `contact_deleted`: every enrollment of the contact;
 * - opens and clicks (never those flagged as automated) and replies of an enrollment's email: its
 *   branch signals, which wake a branch waiting for them;
 * - a task of an enrollment completed (or deleted): its step is done and the enrollment moves on;
 * - an automatic reply (out of office): the contact's active enrollments pause until the person is
 *   back (`engine/out-of-office.ts`), each reply once.
 *
 * While an out-of-office pause holds an enrollment, its next_run_at is the resume: a signal or a
 * task outcome moves the step's own due time (`held_next_run_at`) instead.
 */
export interface EnrollmentTriggersDeps {
  db: SqlClient;
  log: Logger;
  afterCommit: () => void;
  clock: { now(): Date };
  /** New due work for the engine. */
  onWake: () => void;
  /** Enrollments exited: their sends are to be cancelled. */
  onExits: () => void;
  /** `OUT_OF_OFFICE_DEFAULT_DAYS`: how long a reply that names no return date pauses. */
  outOfOfficeDefaultDays: number;
}

const uuid = (value: unknown): string | undefined => (typeof value === 'string' && isUuid(value) ? value.toLowerCase() : undefined);

export function createEnrollmentTriggers(deps: EnrollmentTriggersDeps): (event: CrmEvent) => Promise<void> {
  const { db } = deps;
  const commit = createOutboxCommit(db, deps.afterCommit);

  async function exit(workspaceId: string, selector: { contactId: string; flowId?: string }, reason: ExitReason): Promise<void> {
    const exited = await commit((tx) => exitEnrollments(tx, workspaceId, selector, reason, deps.clock.now()));
    if (exited.length) deps.onExits();
  }

  async function signal(workspaceId: string, enrollmentId: string, sentEmailId: string, kind: 'opened' | 'clicked' | 'replied', at: string): Promise<void> {
    const woke = await db.transaction(async (tx) => {
      const { rows } = await tx.query(
        `INSERT INTO enrollment_signals (workspace_id, enrollment_id, sent_email_id, kind, at)
         VALUES ($1::uuid, $2::uuid, $3::uuid, $4, $5::timestamptz)
         ON CONFLICT DO NOTHING RETURNING 1`,
        [workspaceId, enrollmentId, sentEmailId, kind, at],
      );
      if (!rows.length) return false;
      // A branch waiting on this email decides now rather than at the end of its window.
      const { rows: woken } = await tx.query(
        `UPDATE enrollments
            SET next_run_at = CASE WHEN resume_at IS NULL THEN LEAST(next_run_at, $4::timestamptz) ELSE next_run_at END,
                held_next_run_at = CASE WHEN resume_at IS NULL THEN held_next_run_at ELSE LEAST(held_next_run_at, $4::timestamptz) END
          WHERE workspace_id = $1::uuid AND id = $2::uuid AND status IN ('active', 'paused')
            AND branch_until IS NOT NULL AND last_sent_email_id = $3::uuid
          RETURNING 1`,
        [workspaceId, enrollmentId, sentEmailId, deps.clock.now().toISOString()],
      );
      return woken.length > 0;
    });
    if (woke) deps.onWake();
  }

  async function taskEnded(workspaceId: string, enrollmentId: string, taskId: string, outcome: 'completed' | 'deleted'): Promise<void> {
    const { rows } = await db.query(
      `UPDATE enrollments
          SET task_outcome = $4, updated_at = $5::timestamptz,
              next_run_at = CASE WHEN resume_at IS NULL THEN $5::timestamptz ELSE next_run_at END,
              held_next_run_at = CASE WHEN resume_at IS NULL THEN held_next_run_at ELSE $5::timestamptz END
        WHERE workspace_id = $1::uuid AND id = $2::uuid AND waiting_task_id = $3::uuid AND task_outcome IS NULL
          AND status IN ('active', 'paused')
        RETURNING 1`,
      [workspaceId, enrollmentId, taskId, outcome, deps.clock.now().toISOString()],
    );
    if (rows.length) deps.onWake();
  }

  return async function handle(event: CrmEvent): Promise<void> {
    const workspaceId = uuid(event.workspace_id);
    if (!workspaceId) return;
    if (isEventOf(event, MessagingEvents.EmailEventRecorded)) {
      const data = event.data;
      const contactId = uuid(data.contact_id);
      const flowId = uuid(data.flow?.flow_id);
      const enrollmentId = uuid(data.flow?.enrollment_id);
      const sentEmailId = uuid(data.sent_email_id);
      if (!contactId) return;
      switch (data.event_type) {
        case 'reply':
          if (enrollmentId && sentEmailId) await signal(workspaceId, enrollmentId, sentEmailId, 'replied', data.occurred_at);
          if (flowId) await exit(workspaceId, { contactId, flowId }, 'replied');
          return;
        case 'bounce':
          if (flowId) await exit(workspaceId, { contactId, flowId }, 'bounced');
          return;
        case 'unsubscribe':
          await exit(workspaceId, { contactId }, 'unsubscribed');
          return;
        case 'open':
        case 'click':
          if (!data.is_bot && enrollmentId && sentEmailId) {
            await signal(workspaceId, enrollmentId, sentEmailId, data.event_type === 'open' ? 'opened' : 'clicked', data.occurred_at);
          }
          return;
        default:
          return;
      }
    }
    if (isEventOf(event, MessagingEvents.AutoReplyReceived)) {
      const data = event.data;
      const contactId = uuid(data.contact_id);
      const eventId = uuid(event.id);
      const receivedAt = new Date(data.received_at);
      if (!contactId || !eventId || Number.isNaN(receivedAt.getTime())) return;
      await commit(async (tx) => {
        await pauseForAutoReply(
          tx,
          workspaceId,
          {
            eventId,
            contactId,
            receivedAt,
            utcOffsetMinutes: Number.isFinite(data.utc_offset_minutes) ? data.utc_offset_minutes : 0,
            ...(data.returns_on ? { returnsOn: data.returns_on } : {}),
            ...(data.returns_on_text ? { returnsOnText: data.returns_on_text } : {}),
          },
          deps.outOfOfficeDefaultDays,
          deps.clock.now(),
        );
        return [];
      });
      return;
    }
    if (isEventOf(event, ActivitiesEvents.MeetingScheduled)) {
      const contactId = uuid(event.data.contact_id);
      if (contactId) await exit(workspaceId, { contactId }, 'meeting_booked');
      return;
    }
    if (isEventOf(event, PeopleEvents.ContactDeleted)) {
      const contactId = uuid(event.data.id);
      if (contactId) await exit(workspaceId, { contactId }, 'contact_deleted');
      return;
    }
    if (isEventOf(event, ActivitiesEvents.TaskCompleted) || isEventOf(event, ActivitiesEvents.TaskDeleted)) {
      const enrollmentId = uuid(event.data.flow_enrollment_id);
      const taskId = uuid(event.data.task_id);
      if (!enrollmentId || !taskId) return;
      // A deleted task that was still open releases its enrollment too: nobody will complete it.
      if (isEventOf(event, ActivitiesEvents.TaskDeleted) && event.data.status !== 'open') return;
      await taskEnded(workspaceId, enrollmentId, taskId, isEventOf(event, ActivitiesEvents.TaskCompleted) ? 'completed' : 'deleted');
    }
  };
}

/** The durable `flows-engine-events`: the events above, from every other context. */
export const enrollmentTriggers = defineDurableConsumer({
  name: 'flows-engine-events',
  home: 'flows',
  subjects: [
    MessagingEvents.EmailEventRecorded,
    MessagingEvents.AutoReplyReceived,
    ActivitiesEvents.MeetingScheduled,
    ActivitiesEvents.TaskCompleted,
    ActivitiesEvents.TaskDeleted,
    PeopleEvents.ContactDeleted,
  ],
});
