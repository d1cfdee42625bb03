import {
  type Clock,
  type CrmEvent,
  type Logger,
  type Outcome,
  type SqlClient,
  type SqlQueryable,
  type Worker,
  createOutboxCommit,
  createWaker,
  mapLimit,
  observeGauges,
  readBacklog,
  recordHistogram,
  untraced,
  withStoredTrace,
} from '@crm/kit';
import { STATE_COLUMNS, type StateRow, stateOf, writeResults } from './enrollment-records';
import { NEXT_RESUME_SQL, resumeDue } from './out-of-office';
import { type FlowCache, flowKey } from './runnable-flow';
import { type EnrollmentState, type RunnableFlow, type StepEffects, type StepResult, runDueSteps } from './step';

/**
 * A round's claim: the most overdue enrollments of active flows ($1 now, $2 how many), a seek on
 * `enrollments_due_idx` whatever the statistics say. Each enrollment's flow is looked up (and
 * locked FOR SHARE, once per flow) beside it, in a subquery the planner cannot turn into a join:
 * as a join it takes a flows table it has no statistics for (a handful of flows, which autovacuum
 * may never analyze) to match a few of the due enrollments, and sorts every one of them first
 * (65 ms a claim at 100,000 due, against about 1 ms). enrollments.plan.test.ts holds the plan.
 */
export const CLAIM_DUE_SQL = `SELECT ${STATE_COLUMNS.map((c) => `e.${c}`).join(', ')}, e.trace, f.updated_at AS flow_version
   FROM enrollments e
   CROSS JOIN LATERAL (SELECT updated_at FROM flows
                        WHERE workspace_id = e.workspace_id AND id = e.flow_id AND status = 'active' OFFSET 0) f
  WHERE e.status = 'active' AND e.next_run_at <= $1::timestamptz
  ORDER BY e.next_run_at
  LIMIT $2
  FOR UPDATE OF e SKIP LOCKED
  FOR SHARE OF f SKIP LOCKED -- all workspaces: the engine serves every tenant's due work`;

/**
 * The flow engine (services/flows/README.md, "Workers"), one per flows replica, any number at once.
 *
 * Each round claims due enrollments (`status = active`, flow active, `next_run_at <= now`) with
 * `FOR UPDATE OF e SKIP LOCKED` (and the flow `FOR SHARE`, so a graph change waits for the round
 * and a round skips a flow being changed), runs their due steps, and commits the new state, the
 * history rows and the events in the same transaction. Replicas never take the same enrollment;
 * an exit that lands meanwhile waits on the row lock and applies after the commit, so the engine
 * always works on the status it read under its claim. A crash rolls the round back: the rows are
 * due again and the side effects repeat under their idempotency keys, never twice in effect.
 */
export interface FlowEngineOptions {
  db: SqlClient;
  flows: FlowCache;
  /** The side effects of a round; `signals` holds the round's recorded email signals. */
  effects: (tx: SqlQueryable) => StepEffects;
  clock: Clock;
  log: Logger;
  afterCommit: () => void;
  /** Enrollments per round: 200 on Postgres, 20 on PGlite (one connection, shared with the API). */
  batchSize: number;
  /**
   * Steps of a round running at once. Default: all of them, so a round's email steps reach
   * messaging as one batch (the effects themselves bound their other peer calls).
   */
  concurrency?: number;
  /** `FLOW_ENGINE_POLL_MS`: the longest idle wait before looking for due work again. */
  pollMs: number;
}

export interface FlowEngine extends Worker {
  /** New due work (an enrollment, a completed task, a signal): look now rather than at the next poll. */
  wake(): void;
  /** One round: claims, runs and commits; the number of enrollments it worked. */
  round(): Promise<number>;
}

/** Due rows another replica holds are skipped: look again after this, not in a tight loop. */
const MIN_IDLE_MS = 50;

type ClaimedRow = StateRow & { flow_version: Date | string; trace: Record<string, string> };

export function createFlowEngine(options: FlowEngineOptions): FlowEngine {
  const { db, clock, log } = options;
  const concurrency = options.concurrency ?? options.batchSize;
  const waker = createWaker(clock);
  const commit = createOutboxCommit(db, options.afterCommit);

  /** One enrollment's due steps, as a span of the trace that enrolled it. */
  function runSteps(row: ClaimedRow, flow: RunnableFlow, state: EnrollmentState, now: Date, effects: StepEffects): Promise<StepResult> {
    const attributes = { 'crm.enrollment.id': state.id, 'crm.flow.id': state.flowId, 'crm.workspace_id': state.workspaceId };
    return withStoredTrace(row.trace, 'flow step', attributes, async (span) => {
      const result = await runDueSteps(flow, state, now, effects);
      span.setAttribute('crm.step.outcomes', result.steps.map((step) => step.outcome).join(','));
      return result;
    });
  }

  /**
   * Resumes the out-of-office pauses that are over, then claims due enrollments, runs them, and
   * writes what they did; inside the round's transaction, so a resumed enrollment takes its step in
   * the same round.
   */
  async function claimAndRun(tx: SqlQueryable, now: Date): Promise<Outcome<{ worked: number; results: StepResult[] }>> {
    const resumed = await resumeDue(tx, now, options.batchSize);
    const { rows } = await tx.query<ClaimedRow>(CLAIM_DUE_SQL, [now.toISOString(), options.batchSize]);
    if (!rows.length) return { value: { worked: resumed, results: [] }, events: [] };
    const flows = await options.flows.load(
      tx,
      rows.map((r) => ({ workspaceId: r.workspace_id, id: r.flow_id, version: new Date(r.flow_version).toISOString() })),
    );
    const effects = options.effects(tx);
    const results = await mapLimit(rows, concurrency, async (row): Promise<StepResult | undefined> => {
      const state = stateOf(row);
      const flow = flows.get(flowKey(row.workspace_id, row.flow_id));
      if (!flow) return undefined;
      try {
        return await runSteps(row, flow, state, now, effects);
      } catch (error) {
        // A bug or a broken stored graph: this enrollment waits and is retried; the round goes on.
        log.error({ err: error, enrollmentId: state.id, flowId: state.flowId }, 'flow engine: step failed unexpectedly; retrying later');
        return { state: { ...state, retries: state.retries + 1 }, nextRunAt: new Date(now.getTime() + 60_000), steps: [] };
      }
    });
    const ran = results.filter((r): r is StepResult => r !== undefined);
    return { value: { worked: rows.length, results: ran }, events: await writeResults(tx, ran, now) };
  }

  async function round(): Promise<number> {
    const now = clock.now();
    // The round itself is untraced (it polls); each enrollment's steps are a span of its own trace.
    const {
      value: { worked, results },
    } = await untraced(() => commit.outcome((tx) => claimAndRun(tx, now)));
    // Counted once committed: a round rolled back repeats its steps, and they count then.
    for (const result of results) {
      for (const step of result.steps) {
        recordHistogram('crm.engine.step.duration', step.seconds, { 'crm.node.type': step.nodeType ?? 'none', 'crm.step.outcome': step.outcome });
      }
    }
    return worked;
  }

  /** When the next enrollment falls due or resumes, to sleep no longer than needed (bounded by the poll). */
  async function nextDueInMs(): Promise<number> {
    const [due, resume] = await untraced(() =>
      Promise.all([
        db.query<{ at: Date | string | null }>(
          `SELECT min(e.next_run_at) AS at
             FROM enrollments e JOIN flows f ON f.workspace_id = e.workspace_id AND f.id = e.flow_id
            WHERE e.status = 'active' AND f.status = 'active' -- all workspaces: the engine's own schedule`,
        ),
        db.query<{ at: Date | string | null }>(NEXT_RESUME_SQL),
      ]),
    );
    const times = [due.rows[0]?.at, resume.rows[0]?.at].filter((at) => at).map((at) => new Date(at!).getTime());
    if (!times.length) return options.pollMs;
    return Math.max(0, Math.min(options.pollMs, Math.min(...times) - clock.now().getTime()));
  }

  return {
    name: 'flow-engine',
    round,
    wake: () => waker.wake(),
    async run(signal) {
      const unobserve = observeGauges(async (observe) => {
        const { count, oldestSeconds } = await readBacklog(
          db,
          `SELECT e.next_run_at AS at FROM enrollments e JOIN flows f ON f.workspace_id = e.workspace_id AND f.id = e.flow_id
            WHERE e.status = 'active' AND f.status = 'active' AND e.next_run_at <= now()
            ORDER BY e.next_run_at -- all workspaces: the engine's backlog`,
        );
        observe('crm.engine.due', count, {});
        observe('crm.engine.oldest_due_age', oldestSeconds, {});
      });
      try {
        while (!signal.aborted) {
          // A round that found work looks again at once: more may be due, or due by now.
          if ((await round()) > 0) continue;
          if (signal.aborted) break;
          await waker.idle(Math.max(await nextDueInMs(), MIN_IDLE_MS), signal);
        }
      } finally {
        unobserve();
      }
    },
  };
}
