import type { SqlQueryable } from '@crm/kit';
import { type SendingSchedule, nextOpening, parseSchedule, startOfLocalDay } from '../schedule/sending-schedule';
import { type StepRow, insertSteps } from './enrollment-records';

/**
 * Out of office (gateway/README.md, Flows, "Out of office"): an automatic reply to one of our
 * emails pauses every active enrollment of its contact until the person is back, and the engine
 * resumes each at that time.
 *
 * - **When.** The day after the day the reply says the person is back (messaging reads it, with
 *   the reply's own Date as reference), from its first instant in the flow's zone, then at the
 *   flow's next sending window; without a schedule, that day's midnight in the reply's own offset.
 *   A reply that names no day: its Date plus `OUT_OF_OFFICE_DEFAULT_DAYS` (7), at the next window.
 * - **Which.** Every active enrollment of the contact, in any flow (as Outreach pauses a
 *   prospect's sequences): whichever email the reply answers, every step meanwhile would go to the
 *   same absent person. One paused this way already moves its resume later when another reply
 *   says so, never earlier. One paused by hand is left alone (a person decided; an auto-reply
 *   will not resume it), and an ended one is never touched.
 * - **Once.** Each reply is applied once, by its event id (`auto_replies`): a redelivered event
 *   changes nothing, even after the pause it made is over.
 * - **Resume.** The engine's round flips due pauses back to active before it claims, so a resumed
 *   enrollment takes its step in the same round: its step falls due at the later of the resume
 *   and when it was due before the pause (a wait is never cut short).
 * Both write the enrollment's history: `paused` with what was read, `resumed`.
 */

const DAY_MS = 86_400_000;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** An automatic reply, as messaging's `auto_reply.received` tells it. */
export interface AutoReply {
  eventId: string;
  contactId: string;
  /** The reply's own Date. */
  receivedAt: Date;
  /** Its Date header's UTC offset, in minutes. */
  utcOffsetMinutes: number;
  /** YYYY-MM-DD: the first day the person is back, when the reply names one. */
  returnsOn?: string;
  /** The words it was read from. */
  returnsOnText?: string;
}

/** The day after `date` (YYYY-MM-DD), or undefined when `date` is not a calendar date. */
function dayAfter(date: string): string | undefined {
  const m = DATE.exec(date);
  if (!m) return undefined;
  const day = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  if (new Date(day).toISOString().slice(0, 10) !== date) return undefined;
  return new Date(day + DAY_MS).toISOString().slice(0, 10);
}

/** When an enrollment of a flow with `schedule` resumes after `reply`, and the history's words for it. */
export function resumeAfter(reply: AutoReply, schedule: SendingSchedule | null, defaultDays: number): { at: Date; detail: string } {
  const resumeDay = reply.returnsOn === undefined ? undefined : dayAfter(reply.returnsOn);
  let at: Date;
  let read: string;
  if (resumeDay) {
    at = schedule
      ? startOfLocalDay(schedule.timezone, resumeDay)
      : new Date(Date.parse(`${resumeDay}T00:00:00.000Z`) - reply.utcOffsetMinutes * 60_000);
    read = `back on ${reply.returnsOn}${reply.returnsOnText ? ` ("${reply.returnsOnText}")` : ''}`;
  } else {
    at = new Date(reply.receivedAt.getTime() + defaultDays * DAY_MS);
    read = `no return date read: ${defaultDays} days after the reply`;
  }
  if (schedule) at = nextOpening(schedule, at);
  return { at, detail: `out-of-office reply, ${read}; resumes ${at.toISOString()}` };
}

interface Open {
  id: string;
  flow_id: string;
  status: 'active' | 'paused';
  resume_at: Date | string | null;
  current_node_id: string | null;
  visits: Record<string, number> | string | null;
  node_key: string | null;
  node_type: string | null;
  schedule: unknown;
}

const json = (value: unknown) => (typeof value === 'string' ? (JSON.parse(value) as unknown) : value);

/**
 * Applies an automatic reply to the contact's enrollments, in the caller's transaction. Returns
 * how many were paused or had their resume moved (0 for a reply applied before).
 */
export async function pauseForAutoReply(tx: SqlQueryable, workspaceId: string, reply: AutoReply, defaultDays: number, now: Date): Promise<number> {
  const { rows: first } = await tx.query(
    `INSERT INTO auto_replies (workspace_id, event_id, contact_id, received_at, returns_on, created_at)
     VALUES ($1::uuid, $2::uuid, $3::uuid, $4::timestamptz, $5::date, $6::timestamptz)
     ON CONFLICT (workspace_id, event_id) DO NOTHING RETURNING 1`,
    [workspaceId, reply.eventId, reply.contactId, reply.receivedAt.toISOString(), reply.returnsOn && dayAfter(reply.returnsOn) ? reply.returnsOn : null, now.toISOString()],
  );
  if (!first.length) return 0;
  // Locked: an engine round holding one of them commits first, and its new status is what is read.
  const { rows } = await tx.query<Open>(
    `SELECT e.id, e.flow_id, e.status, e.resume_at, e.current_node_id, e.visits, n.key AS node_key, n.type AS node_type, f.schedule
       FROM enrollments e
       JOIN flows f ON f.workspace_id = e.workspace_id AND f.id = e.flow_id
       LEFT JOIN flow_nodes n ON n.workspace_id = e.workspace_id AND n.id = e.current_node_id
      WHERE e.workspace_id = $1::uuid AND e.contact_id = $2::uuid
        AND (e.status = 'active' OR (e.status = 'paused' AND e.resume_at IS NOT NULL))
      ORDER BY e.id
      FOR UPDATE OF e`,
    [workspaceId, reply.contactId],
  );
  const changes: { id: string; resume_at: string }[] = [];
  const history: StepRow[] = [];
  for (const row of rows) {
    const schedule = row.schedule ? parseSchedule(json(row.schedule)) : null;
    const { at, detail } = resumeAfter(reply, schedule, defaultDays);
    const extending = row.status === 'paused';
    if (extending && new Date(row.resume_at!).getTime() >= at.getTime()) continue;
    changes.push({ id: row.id, resume_at: at.toISOString() });
    history.push(historyRow({ ...row, workspace_id: workspaceId }, 'paused', extending ? `${detail} (later than the pause before)` : detail, now));
  }
  if (!changes.length) return 0;
  await tx.query(
    `UPDATE enrollments e
        SET held_next_run_at = CASE WHEN e.status = 'active' THEN e.next_run_at ELSE e.held_next_run_at END,
            status = 'paused', resume_at = t.resume_at, next_run_at = t.resume_at, updated_at = $3::timestamptz
       FROM jsonb_to_recordset($2::jsonb) AS t(id uuid, resume_at timestamptz)
      WHERE e.workspace_id = $1::uuid AND e.id = t.id`,
    [workspaceId, JSON.stringify(changes), now.toISOString()],
  );
  await insertSteps(tx, history, now);
  return changes.length;
}

/**
 * The engine's resumes ($1 now, $2 how many): the out-of-office pauses that are over, oldest
 * first, a seek on `enrollments_resume_idx` (enrollments.plan.test.ts holds the plan).
 */
export const RESUME_DUE_SQL = `WITH due AS (
     SELECT workspace_id, id, resume_at FROM enrollments
      WHERE status = 'paused' AND resume_at <= $1::timestamptz
      ORDER BY resume_at
      LIMIT $2
      FOR UPDATE SKIP LOCKED
   )
   UPDATE enrollments e
      SET status = 'active', next_run_at = GREATEST(e.resume_at, e.held_next_run_at), resume_at = NULL, held_next_run_at = NULL,
          updated_at = $1::timestamptz
     FROM due WHERE e.workspace_id = due.workspace_id AND e.id = due.id
   RETURNING e.workspace_id, e.id, e.flow_id, e.current_node_id, e.visits, due.resume_at AS was_due,
             (SELECT n.key FROM flow_nodes n WHERE n.workspace_id = e.workspace_id AND n.id = e.current_node_id) AS node_key,
             (SELECT n.type FROM flow_nodes n WHERE n.workspace_id = e.workspace_id AND n.id = e.current_node_id) AS node_type
   -- all workspaces: the engine resumes every tenant's pauses`;

/**
 * The engine's resumes (every workspace): up to `limit` enrollments whose out-of-office pause is
 * over become active, due at the later of the resume and their own step's time, with a `resumed`
 * history row each. In the round's transaction, before its claim. Returns how many.
 */
export async function resumeDue(tx: SqlQueryable, now: Date, limit: number): Promise<number> {
  const { rows } = await tx.query<{
    workspace_id: string;
    id: string;
    flow_id: string;
    current_node_id: string | null;
    visits: Record<string, number> | string | null;
    was_due: Date | string;
    node_key: string | null;
    node_type: string | null;
  }>(
    RESUME_DUE_SQL,
    [now.toISOString(), limit],
  );
  // Written before the round's own steps, so their ids (time-ordered) list the resume first.
  await insertSteps(
    tx,
    rows.map((row) => historyRow(row, 'resumed', `out-of-office pause over (resume was due ${new Date(row.was_due).toISOString()})`, now)),
    now,
  );
  return rows.length;
}

/** The history row of a pause or a resume: at the enrollment's current node, creating nothing. */
function historyRow(
  row: {
    workspace_id: string;
    id: string;
    flow_id: string;
    current_node_id: string | null;
    visits: Record<string, number> | string | null;
    node_key: string | null;
    node_type: string | null;
  },
  outcome: 'paused' | 'resumed',
  detail: string,
  now: Date,
): StepRow {
  const visits = (json(row.visits) ?? {}) as Record<string, number>;
  return {
    workspaceId: row.workspace_id,
    enrollmentId: row.id,
    flowId: row.flow_id,
    step: {
      nodeId: row.current_node_id,
      nodeKey: row.node_key,
      nodeType: row.node_type as StepRow['step']['nodeType'],
      visit: row.current_node_id ? (visits[row.current_node_id] ?? 0) : 0,
      outcome,
      detail,
      sentEmailId: null,
      taskId: null,
      at: now,
      seconds: 0,
    },
  };
}

/** When the next out-of-office pause ends (every workspace), for the engine's idle wait. */
export const NEXT_RESUME_SQL = `SELECT min(resume_at) AS at FROM enrollments
  WHERE status = 'paused' AND resume_at IS NOT NULL -- all workspaces: the engine's own schedule`;

/**
 * A person's `PATCH {status}` on an enrollment an out-of-office reply paused, after the row took
 * the new status: `active` resumes it now, `paused` keeps it paused by hand (no resume of its
 * own). Either way its step is due when it was before the pause, and the history says so. False
 * when the enrollment was not paused that way.
 */
export async function endOutOfOfficePause(tx: SqlQueryable, workspaceId: string, id: string, now: Date): Promise<boolean> {
  const { rows } = await tx.query(
    `WITH ended AS (
       UPDATE enrollments
          SET next_run_at = held_next_run_at, resume_at = NULL, held_next_run_at = NULL
        WHERE workspace_id = $1::uuid AND id = $2::uuid AND resume_at IS NOT NULL AND status IN ('active', 'paused')
        RETURNING workspace_id, id, flow_id, current_node_id, visits, status
     ), history AS (
       INSERT INTO enrollment_steps (workspace_id, id, enrollment_id, flow_id, node_id, node_key, node_type, visit, outcome, detail,
                                     occurred_at, created_at, updated_at)
       SELECT x.workspace_id, gen_random_uuid(), x.id, x.flow_id, x.current_node_id, n.key, n.type,
              COALESCE((x.visits ->> x.current_node_id::text)::int, 0),
              CASE WHEN x.status = 'active' THEN 'resumed' ELSE 'paused' END,
              CASE WHEN x.status = 'active' THEN 'resumed by hand before its out-of-office pause was over'
                   ELSE 'paused by hand: no longer resumes when the out-of-office pause is over' END,
              $3::timestamptz, $3::timestamptz, $3::timestamptz
         FROM ended x LEFT JOIN flow_nodes n ON n.workspace_id = x.workspace_id AND n.id = x.current_node_id
     )
     SELECT 1 FROM ended`,
    [workspaceId, id, now.toISOString()],
  );
  return rows.length > 0;
}
