import { type CrmEvent, type SqlQueryable, newEvent, newId } from '@crm/kit';
import { FlowsEvents } from '@crm/proto';
import type { EnrollmentEnd, EnrollmentState, ExitReason, StepRecord, StepResult } from './step';

/**
 * The enrollment rows as the engine and the consumers write them: a step's result, its history
 * rows and events, and exits. Everything here runs in the caller's transaction.
 */

export type { ExitReason };

/** The columns of an enrollment the engine reads (`e.` prefixed where joined). */
export const STATE_COLUMNS = [
  'workspace_id',
  'id',
  'flow_id',
  'contact_id',
  'current_node_id',
  'visits',
  'waiting_task_id',
  'task_outcome',
  'branch_until',
  'last_sent_email_id',
  'retries',
] as const;

export interface StateRow {
  workspace_id: string;
  id: string;
  flow_id: string;
  contact_id: string;
  current_node_id: string | null;
  visits: Record<string, number> | string | null;
  waiting_task_id: string | null;
  task_outcome: 'completed' | 'deleted' | null;
  branch_until: Date | string | null;
  last_sent_email_id: string | null;
  retries: number;
}

export function stateOf(row: StateRow): EnrollmentState {
  const visits = typeof row.visits === 'string' ? (JSON.parse(row.visits) as Record<string, number>) : (row.visits ?? {});
  return {
    workspaceId: row.workspace_id,
    id: row.id,
    flowId: row.flow_id,
    contactId: row.contact_id,
    currentNodeId: row.current_node_id,
    visits,
    waitingTaskId: row.waiting_task_id,
    taskOutcome: row.task_outcome,
    branchUntil: row.branch_until === null ? null : new Date(row.branch_until),
    lastSentEmailId: row.last_sent_email_id,
    retries: row.retries,
  };
}

export interface StepRow {
  workspaceId: string;
  enrollmentId: string;
  flowId: string;
  step: StepRecord;
}

/** History rows, in one statement. */
export async function insertSteps(tx: SqlQueryable, rows: readonly StepRow[], now: Date): Promise<void> {
  if (!rows.length) return;
  const payload = rows.map(({ workspaceId, enrollmentId, flowId, step }) => ({
    workspace_id: workspaceId,
    id: newId(),
    enrollment_id: enrollmentId,
    flow_id: flowId,
    node_id: step.nodeId,
    node_key: step.nodeKey,
    node_type: step.nodeType,
    visit: step.visit,
    outcome: step.outcome,
    detail: step.detail?.slice(0, 1_000) ?? null,
    sent_email_id: step.sentEmailId,
    task_id: step.taskId,
    occurred_at: step.at.toISOString(),
  }));
  await tx.query(
    `INSERT INTO enrollment_steps (workspace_id, id, enrollment_id, flow_id, node_id, node_key, node_type, visit, outcome, detail,
                                   sent_email_id, task_id, occurred_at, created_at, updated_at)
     SELECT t.workspace_id, t.id, t.enrollment_id, t.flow_id, t.node_id, t.node_key, t.node_type, t.visit, t.outcome, t.detail,
            t.sent_email_id, t.task_id, t.occurred_at, $2::timestamptz, $2::timestamptz
       FROM jsonb_to_recordset($1::jsonb) AS t(workspace_id uuid, id uuid, enrollment_id uuid, flow_id uuid, node_id uuid, node_key text,
            node_type text, visit int, outcome text, detail text, sent_email_id uuid, task_id uuid, occurred_at timestamptz)`,
    [JSON.stringify(payload), now.toISOString()],
  );
}

/**
 * The event of an enrollment just created, written in the transaction that inserts its row, so only
 * an enrollment that exists is announced, and once. `at` is its `enrolled_at`. A bulk enrollment
 * writes the same event in SQL, with its insert (enrollments.ts `enroll`).
 */
export function createdEvent(state: Pick<EnrollmentState, 'workspaceId' | 'id' | 'flowId' | 'contactId'>, at: Date): CrmEvent {
  return newEvent(FlowsEvents.EnrollmentCreated, state.workspaceId, {
    enrollment_id: state.id,
    flow_id: state.flowId,
    contact_id: state.contactId,
    occurred_at: at.toISOString(),
  });
}

/** The event of an enrollment that ended. */
export function endEvent(state: Pick<EnrollmentState, 'workspaceId' | 'id' | 'flowId' | 'contactId'>, end: EnrollmentEnd, at: Date): CrmEvent {
  const base = { enrollment_id: state.id, flow_id: state.flowId, contact_id: state.contactId, occurred_at: at.toISOString() };
  switch (end.status) {
    case 'completed':
      return newEvent(FlowsEvents.EnrollmentCompleted, state.workspaceId, base);
    case 'failed':
      return newEvent(FlowsEvents.EnrollmentFailed, state.workspaceId, { ...base, failure_reason: end.failureReason });
    case 'exited':
      return newEvent(FlowsEvents.EnrollmentExited, state.workspaceId, { ...base, exit_reason: end.exitReason });
  }
}

/**
 * Writes the results of the engine's steps (the enrollments are locked by the caller's claim):
 * the rows in one statement, their history in another, and the events of those that ended.
 */
export async function writeResults(tx: SqlQueryable, results: readonly StepResult[], now: Date): Promise<CrmEvent[]> {
  if (!results.length) return [];
  const payload = results.map(({ state, nextRunAt, end }) => ({
    workspace_id: state.workspaceId,
    id: state.id,
    status: end?.status ?? 'active',
    exit_reason: end?.status === 'exited' ? end.exitReason : null,
    failure_reason: end?.status === 'failed' ? end.failureReason : null,
    current_node_id: state.currentNodeId,
    next_run_at: end ? null : (nextRunAt?.toISOString() ?? null),
    visits: state.visits,
    waiting_task_id: state.waitingTaskId,
    task_outcome: state.taskOutcome,
    branch_until: state.branchUntil?.toISOString() ?? null,
    last_sent_email_id: state.lastSentEmailId,
    retries: state.retries,
  }));
  await tx.query(
    `UPDATE enrollments e
        SET status = t.status, exit_reason = t.exit_reason, failure_reason = t.failure_reason, current_node_id = t.current_node_id,
            next_run_at = t.next_run_at, visits = t.visits, waiting_task_id = t.waiting_task_id, task_outcome = t.task_outcome,
            branch_until = t.branch_until, last_sent_email_id = t.last_sent_email_id, retries = t.retries,
            completed_at = CASE WHEN t.status = 'active' THEN e.completed_at ELSE $2::timestamptz END,
            updated_at = $2::timestamptz
       FROM jsonb_to_recordset($1::jsonb) AS t(workspace_id uuid, id uuid, status text, exit_reason text, failure_reason text,
            current_node_id uuid, next_run_at timestamptz, visits jsonb, waiting_task_id uuid, task_outcome text, branch_until timestamptz,
            last_sent_email_id uuid, retries int)
      WHERE e.workspace_id = t.workspace_id AND e.id = t.id`,
    [JSON.stringify(payload), now.toISOString()],
  );
  await insertSteps(
    tx,
    results.flatMap(({ state, steps }) => steps.map((step) => ({ workspaceId: state.workspaceId, enrollmentId: state.id, flowId: state.flowId, step }))),
    now,
  );
  return results.flatMap((r) => (r.end ? [endEvent(r.state, r.end, now)] : []));
}

/** Which active or paused enrollments of a workspace an exit applies to. */
export type ExitSelector =
  | { flowId: string; contactId?: undefined; ids?: undefined }
  | { contactId: string; flowId?: string; ids?: undefined }
  | { ids: readonly string[]; flowId?: undefined; contactId?: undefined };

/**
 * Exits the selected active or paused enrollments with `reason` (gateway/README.md, Flows,
 * "Exits"): the rows, one history row each, and their sends queued to be cancelled at messaging
 * (pending_cancels, worked after the commit). Enrollments that already ended are left alone, so a
 * repeated exit (a redelivered event) changes nothing. Returns the EnrollmentExited events.
 */
export async function exitEnrollments(tx: SqlQueryable, workspaceId: string, selector: ExitSelector, reason: ExitReason, now: Date): Promise<CrmEvent[]> {
  const { rows } = await tx.query<{ id: string; flow_id: string; contact_id: string }>(
    `WITH exited AS (
       UPDATE enrollments
          SET status = 'exited', exit_reason = $5, next_run_at = NULL, branch_until = NULL, resume_at = NULL, held_next_run_at = NULL,
              completed_at = $6::timestamptz, updated_at = $6::timestamptz
        WHERE workspace_id = $1::uuid AND status IN ('active', 'paused')
          AND ($2::uuid IS NULL OR flow_id = $2::uuid)
          AND ($3::uuid IS NULL OR contact_id = $3::uuid)
          AND ($4::uuid[] IS NULL OR id = ANY($4::uuid[]))
        RETURNING workspace_id, id, flow_id, contact_id, current_node_id, visits
     ), history AS (
       INSERT INTO enrollment_steps (workspace_id, id, enrollment_id, flow_id, node_id, node_key, node_type, visit, outcome, detail,
                                     occurred_at, created_at, updated_at)
       SELECT x.workspace_id, gen_random_uuid(), x.id, x.flow_id, x.current_node_id, n.key, n.type,
              COALESCE((x.visits ->> x.current_node_id::text)::int, 0), 'exited', $5, $6::timestamptz, $6::timestamptz, $6::timestamptz
         FROM exited x LEFT JOIN flow_nodes n ON n.workspace_id = x.workspace_id AND n.id = x.current_node_id
     ), cancels AS (
       INSERT INTO pending_cancels (workspace_id, sent_email_id, reason, created_at)
       SELECT DISTINCT s.workspace_id, s.sent_email_id, 'enrollment_exited:' || $5, $6::timestamptz
         FROM enrollment_steps s JOIN exited x ON s.workspace_id = x.workspace_id AND s.enrollment_id = x.id
        WHERE s.sent_email_id IS NOT NULL
       ON CONFLICT (workspace_id, sent_email_id) DO NOTHING
     )
     SELECT id, flow_id, contact_id FROM exited`,
    [workspaceId, selector.flowId ?? null, selector.contactId ?? null, selector.ids ? [...selector.ids] : null, reason, now.toISOString()],
  );
  return rows.map((row) =>
    endEvent({ workspaceId, id: row.id, flowId: row.flow_id, contactId: row.contact_id }, { status: 'exited', exitReason: reason }, now),
  );
}
