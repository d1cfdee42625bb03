import { CrmError, backoffMs } from '@crm/kit';
import {
  type FlowGraph,
  type FlowNode,
  type FlowNodeOf,
  type TaskNodeType,
  evaluateContactTest,
  isEmailCondition,
  isTaskNodeType,
  nextNode,
} from '../graph';
import { type SendingSchedule, isWithin, nextOpening } from '../schedule/sending-schedule';

/**
 * The step state machine (services/flows/README.md, "Enroll → engine round → step effects → exit",
 * steps 4 to 6): what the engine does with one due enrollment, as a pure function of the
 * enrollment, its flow, the time and the answers of the other services. Side effects go through
 * `StepEffects` with the idempotency key `{enrollment_id}:{node_id}:{visit}`, so running a step
 * again after a crash repeats the request and never its effect. The caller commits the returned
 * state with its history rows and events.
 *
 * A node is *entered* (`enter`) when the enrollment reaches it and *executed* (`execute`) when it
 * falls due: entering a wait schedules its end, entering a branch on an email event opens its
 * window, entering an end completes the enrollment; executing runs the step and enters the next
 * node. Steps that fall due at once are chained within one claim (up to CHAIN_LIMIT).
 */

/** The enrollment as the engine holds it under its claim. */
export interface EnrollmentState {
  workspaceId: string;
  id: string;
  flowId: string;
  contactId: string;
  currentNodeId: string | null;
  /** How many times each node (by id) was entered. */
  visits: Record<string, number>;
  waitingTaskId: string | null;
  taskOutcome: 'completed' | 'deleted' | null;
  branchUntil: Date | null;
  lastSentEmailId: string | null;
  retries: number;
}

/** An enrollment before its first step: at no node, nothing visited, waiting on nothing. */
export function newEnrollmentState(ids: Pick<EnrollmentState, 'workspaceId' | 'id' | 'flowId' | 'contactId'>): EnrollmentState {
  return {
    ...ids,
    currentNodeId: null,
    visits: {},
    waitingTaskId: null,
    taskOutcome: null,
    branchUntil: null,
    lastSentEmailId: null,
    retries: 0,
  };
}

/** A flow as the engine runs it: its validated graph and the ids of its nodes. */
export interface RunnableFlow {
  id: string;
  /** Sends go out from the flow's owner, and its tasks are assigned to them. */
  ownerId: string | null;
  graph: FlowGraph;
  idByKey: ReadonlyMap<string, string>;
  keyById: ReadonlyMap<string, string>;
  schedule: SendingSchedule | null;
}

export type StepOutcome =
  | 'email_queued'
  | 'waited'
  | 'task_created'
  | 'task_completed'
  | 'branch_true'
  | 'branch_false'
  | 'completed'
  | 'exited'
  | 'failed'
  | 'rescheduled'
  | 'paused'
  | 'resumed';

/** One history row. */
export interface StepRecord {
  nodeId: string | null;
  nodeKey: string | null;
  nodeType: FlowNode['type'] | null;
  visit: number;
  outcome: StepOutcome;
  detail: string | null;
  sentEmailId: string | null;
  taskId: string | null;
  at: Date;
  /** How long the step took to run, effects included (the engine's metrics; not stored). */
  seconds: number;
}

export type ExitReason = 'replied' | 'bounced' | 'unsubscribed' | 'meeting_booked' | 'contact_deleted' | 'flow_archived' | 'manual';

export type EnrollmentEnd = { status: 'completed' } | { status: 'failed'; failureReason: string } | { status: 'exited'; exitReason: ExitReason };

/** The enrollment after its due steps ran: the row to write, its history, and how it ended if it did. */
export interface StepResult {
  state: EnrollmentState;
  nextRunAt: Date | null;
  end?: EnrollmentEnd;
  steps: StepRecord[];
}

/** What a step asks of the other services; each rejects with the peer's CrmError. */
export interface StepEffects {
  /** Queues the email of `node` (messaging QueueSend); the send's id. */
  queueSend(enrollment: EnrollmentState, flow: RunnableFlow, node: FlowNodeOf<'email'>, key: string): Promise<{ sentEmailId: string }>;
  /** Creates the open task of `node` (activities CreateEnrollmentTask). */
  createTask(
    enrollment: EnrollmentState,
    flow: RunnableFlow,
    node: FlowNodeOf<TaskNodeType>,
    key: string,
    dueAt: Date | null,
  ): Promise<{ taskId: string; completed: boolean }>;
  /** The contact's record, or undefined when it no longer exists. */
  contact(enrollment: EnrollmentState): Promise<Readonly<Record<string, unknown>> | undefined>;
  /** Whether the contact did `kind` with this send (non-bot opens and clicks, replies). */
  hasSignal(enrollment: EnrollmentState, sentEmailId: string, kind: 'opened' | 'clicked' | 'replied'): Promise<boolean>;
}

/** Steps run back to back within one claim at most, so one enrollment cannot hold a batch. */
export const CHAIN_LIMIT = 20;
/** Transient failures back off from 1 s, doubling, to 5 minutes; the step is never failed for them. */
const RETRY_BASE_MS = 1_000;
const RETRY_MAX_MS = 5 * 60_000;

/** The idempotency key of a step's side effect. */
export const stepKey = (enrollmentId: string, nodeId: string, visit: number) => `${enrollmentId}:${nodeId}:${visit}`;

/** Failures that end the enrollment: the peer refused the request for good. */
function isPermanent(error: CrmError): boolean {
  return error.code === 'validation_failed' || error.code === 'not_found' || error.code === 'invalid_request';
}

class Run {
  readonly steps: StepRecord[] = [];
  state: EnrollmentState;
  nextRunAt: Date | null = null;
  end?: EnrollmentEnd;
  /** When the step being run started: the run's start, then each record's time. */
  private mark = performance.now();

  constructor(
    readonly flow: RunnableFlow,
    state: EnrollmentState,
    readonly now: Date,
  ) {
    this.state = { ...state, visits: { ...state.visits } };
  }

  node(): FlowNode | undefined {
    const key = this.state.currentNodeId ? this.flow.keyById.get(this.state.currentNodeId) : undefined;
    return key === undefined ? undefined : this.flow.graph.nodes.find((n) => n.key === key);
  }

  record(node: FlowNode | null, outcome: StepOutcome, extra: Partial<Pick<StepRecord, 'detail' | 'sentEmailId' | 'taskId'>> = {}): void {
    const nodeId = node ? this.flow.idByKey.get(node.key)! : null;
    const started = this.mark;
    this.mark = performance.now();
    this.steps.push({
      nodeId,
      nodeKey: node?.key ?? null,
      nodeType: node?.type ?? null,
      visit: nodeId ? (this.state.visits[nodeId] ?? 0) : 0,
      outcome,
      detail: extra.detail ?? null,
      sentEmailId: extra.sentEmailId ?? null,
      taskId: extra.taskId ?? null,
      at: this.now,
      seconds: (this.mark - started) / 1000,
    });
  }

  /** The enrollment reaches `node` (undefined: the graph ends here). */
  enter(node: FlowNode | undefined): void {
    const s = this.state;
    s.waitingTaskId = null;
    s.taskOutcome = null;
    s.branchUntil = null;
    s.retries = 0;
    if (!node) {
      this.finish({ status: 'completed' }, null, 'completed', 'the flow has no further step');
      return;
    }
    const nodeId = this.flow.idByKey.get(node.key)!;
    s.currentNodeId = nodeId;
    s.visits[nodeId] = (s.visits[nodeId] ?? 0) + 1;
    switch (node.type) {
      case 'wait':
        this.nextRunAt = new Date(this.now.getTime() + node.config.duration_seconds * 1_000);
        return;
      case 'branch':
        if (isEmailCondition(node.config.condition)) s.branchUntil = new Date(this.now.getTime() + node.config.within_seconds * 1_000);
        this.nextRunAt = this.now;
        return;
      case 'end':
        this.finish({ status: 'completed' }, node, 'completed', null);
        return;
      default:
        this.nextRunAt = this.now;
    }
  }

  finish(end: EnrollmentEnd, node: FlowNode | null, outcome: StepOutcome, detail: string | null): void {
    this.end = end;
    this.nextRunAt = null;
    this.state.branchUntil = null;
    this.record(node, outcome, { detail });
  }

  /** Before a step runs: it decides when the enrollment runs next (null: when an event wakes it). */
  clearSchedule(): void {
    this.nextRunAt = null;
  }

  /** A transient failure: the same step again later, with backoff. */
  retry(): void {
    this.state.retries += 1;
    this.nextRunAt = new Date(this.now.getTime() + backoffMs(this.state.retries, RETRY_BASE_MS, RETRY_MAX_MS));
  }

  /** Email and task steps outside the flow's sending schedule move to its next opening. */
  outsideSchedule(node: FlowNode): boolean {
    const schedule = this.flow.schedule;
    if (!schedule || isWithin(schedule, this.now)) return false;
    const opens = nextOpening(schedule, this.now);
    this.nextRunAt = opens;
    this.record(node, 'rescheduled', { detail: `outside the sending schedule: moved to ${opens.toISOString()}` });
    return true;
  }

  key(node: FlowNode): string {
    const nodeId = this.flow.idByKey.get(node.key)!;
    return stepKey(this.state.id, nodeId, this.state.visits[nodeId] ?? 1);
  }
}

async function executeEmail(run: Run, node: FlowNodeOf<'email'>, effects: StepEffects): Promise<void> {
  if (run.outsideSchedule(node)) return;
  try {
    const { sentEmailId } = await effects.queueSend(run.state, run.flow, node, run.key(node));
    run.record(node, 'email_queued', { sentEmailId });
    run.state.lastSentEmailId = sentEmailId;
    run.enter(nextNode(run.flow.graph, node.key));
  } catch (error) {
    if (!(error instanceof CrmError)) throw error;
    if (error.code === 'send_quota_exhausted') {
      // The quota frees at its retry time: the step waits for it and is never failed.
      const seconds = retryAfterSeconds(error.details);
      run.nextRunAt = new Date(run.now.getTime() + seconds * 1_000);
      run.record(node, 'rescheduled', { detail: `send quota exhausted: retried in ${seconds} s` });
    } else if (error.reason === 'unknown_reference' && fieldOf(error.details) === 'contact_id') {
      run.finish({ status: 'exited', exitReason: 'contact_deleted' }, node, 'exited', 'the contact no longer exists');
    } else if (isPermanent(error)) {
      const reason = `${error.reason ?? error.code}: ${error.message}`.slice(0, 255);
      run.finish({ status: 'failed', failureReason: reason }, node, 'failed', reason);
    } else {
      run.retry();
    }
  }
}

async function executeTask(run: Run, node: FlowNodeOf<TaskNodeType>, effects: StepEffects): Promise<void> {
  const s = run.state;
  if (s.waitingTaskId) {
    if (!s.taskOutcome) {
      // Woken before its task ended: wait for the completion event again.
      run.nextRunAt = null;
      return;
    }
    run.record(node, 'task_completed', { taskId: s.waitingTaskId, detail: s.taskOutcome === 'deleted' ? 'the task was deleted' : null });
    run.enter(nextNode(run.flow.graph, node.key));
    return;
  }
  if (run.outsideSchedule(node)) return;
  const dueAt = node.config.due_in_seconds === undefined ? null : new Date(run.now.getTime() + node.config.due_in_seconds * 1_000);
  try {
    const task = await effects.createTask(s, run.flow, node, run.key(node), dueAt);
    run.record(node, 'task_created', { taskId: task.taskId });
    if (task.completed) {
      // A repeat after a crash found the task done already.
      run.record(node, 'task_completed', { taskId: task.taskId });
      run.enter(nextNode(run.flow.graph, node.key));
      return;
    }
    s.waitingTaskId = task.taskId;
    s.retries = 0;
    run.nextRunAt = null;
  } catch (error) {
    if (!(error instanceof CrmError)) throw error;
    if (isPermanent(error)) {
      const reason = `${error.reason ?? error.code}: ${error.message}`.slice(0, 255);
      run.finish({ status: 'failed', failureReason: reason }, node, 'failed', reason);
    } else {
      run.retry();
    }
  }
}

async function executeBranch(run: Run, node: FlowNodeOf<'branch'>, effects: StepEffects): Promise<void> {
  const condition = node.config.condition;
  let outcome: boolean;
  let detail: string | null = null;
  try {
    if (isEmailCondition(condition)) {
      const last = run.state.lastSentEmailId;
      if (!last) {
        outcome = false;
        detail = 'no earlier email to test';
      } else if (await effects.hasSignal(run.state, last, condition)) {
        outcome = true;
      } else if (run.state.branchUntil && run.now < run.state.branchUntil) {
        // Not yet: the event wakes it, else the window's end does.
        run.nextRunAt = run.state.branchUntil;
        return;
      } else {
        outcome = false;
        detail = `not ${condition} within ${node.config.within_seconds} s`;
      }
    } else {
      const contact = await effects.contact(run.state);
      if (!contact) {
        run.finish({ status: 'exited', exitReason: 'contact_deleted' }, node, 'exited', 'the contact no longer exists');
        return;
      }
      outcome = evaluateContactTest(condition, contact);
    }
  } catch (error) {
    if (!(error instanceof CrmError)) throw error;
    run.retry();
    return;
  }
  run.record(node, outcome ? 'branch_true' : 'branch_false', { detail });
  run.enter(nextNode(run.flow.graph, node.key, outcome));
}

/**
 * Runs the enrollment's due steps at `now`: the current node, and the ones after it that fall due
 * at once, until one waits, the enrollment ends, or CHAIN_LIMIT steps ran.
 */
export async function runDueSteps(flow: RunnableFlow, enrollment: EnrollmentState, now: Date, effects: StepEffects): Promise<StepResult> {
  const run = new Run(flow, enrollment, now);
  for (let i = 0; i < CHAIN_LIMIT; i++) {
    const node = run.node();
    if (!node) {
      // Only a graph change could leave it here, and saving one refuses that: fail it visibly.
      run.finish({ status: 'failed', failureReason: 'node_missing: its step is no longer in the flow' }, null, 'failed', 'node_missing');
      break;
    }
    run.clearSchedule();
    switch (node.type) {
      case 'email':
        await executeEmail(run, node, effects);
        break;
      case 'wait':
        run.record(node, 'waited', { detail: `${node.config.duration_seconds} s` });
        run.enter(nextNode(flow.graph, node.key));
        break;
      case 'branch':
        await executeBranch(run, node, effects);
        break;
      case 'end':
        run.finish({ status: 'completed' }, node, 'completed', null);
        break;
      default:
        if (isTaskNodeType(node.type)) await executeTask(run, node as FlowNodeOf<TaskNodeType>, effects);
    }
    if (run.end || !run.nextRunAt || run.nextRunAt > now) break;
  }
  const due: Date | null = run.nextRunAt;
  return { state: run.state, nextRunAt: !run.end && due && due < now ? now : due, ...(run.end ? { end: run.end } : {}), steps: run.steps };
}

/**
 * Where a new enrollment stands: at the entry node, entered at `now` (a wait at the entry
 * schedules its end; an end at the entry completes it at once).
 */
export function enterFlow(flow: RunnableFlow, enrollment: EnrollmentState, now: Date): StepResult {
  const run = new Run(flow, enrollment, now);
  run.enter(flow.graph.nodes.find((n) => n.key === flow.graph.entry));
  return { state: run.state, nextRunAt: run.nextRunAt, ...(run.end ? { end: run.end } : {}), steps: run.steps };
}

function retryAfterSeconds(details: unknown): number {
  const value = details && typeof details === 'object' ? (details as { retry_after_seconds?: unknown }).retry_after_seconds : undefined;
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.ceil(value) : 60;
}

function fieldOf(details: unknown): string | undefined {
  const first = Array.isArray(details) ? details[0] : details;
  return first && typeof first === 'object' && typeof (first as { field?: unknown }).field === 'string' ? (first as { field: string }).field : undefined;
}
