import { type Clock, type CrmEvent, type Logger, type SqlClient, type SqlQueryable, type Worker, createWaker, writeOutbox } from '@crm/kit';
import { STATE_COLUMNS, type StateRow, stateOf, writeResults } from '../enrollment-records';
import { type FlowCache, flowKey } from './runnable-flow';
import { type StepEffects, type StepResult, runDueSteps } from './step';

/**
 * The flow engine (DESIGN.md, Flows and the engine), one per flows replica, any number at once.
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
  /** Steps of a round running at once (their side effects overlap). Default 16. */
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

type ClaimedRow = StateRow & { flow_version: Date | string };

async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  });
  await Promise.all(lanes);
  return out;
}

export function createFlowEngine(options: FlowEngineOptions): FlowEngine {
  const { db, clock, log } = options;
  const concurrency = options.concurrency ?? 16;
  const waker = createWaker(clock);

  async function round(): Promise<number> {
    const now = clock.now();
    let events: CrmEvent[] = [];
    const worked = await db.transaction(async (tx) => {
      const { rows } = await tx.query<ClaimedRow>(
        `SELECT ${STATE_COLUMNS.map((c) => `e.${c}`).join(', ')}, f.updated_at AS flow_version
           FROM enrollments e JOIN flows f ON f.workspace_id = e.workspace_id AND f.id = e.flow_id
          WHERE e.status = 'active' AND e.next_run_at <= $1::timestamptz AND f.status = 'active'
          ORDER BY e.next_run_at
          LIMIT $2
          FOR UPDATE OF e SKIP LOCKED
          FOR SHARE OF f SKIP LOCKED -- all workspaces: the engine serves every tenant's due work`,
        [now.toISOString(), options.batchSize],
      );
      if (!rows.length) return 0;
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
          return await runDueSteps(flow, state, now, effects);
        } catch (error) {
          // A bug or a broken stored graph: this enrollment waits and is retried; the round goes on.
          log.error({ err: error, enrollmentId: state.id, flowId: state.flowId }, 'flow engine: step failed unexpectedly; retrying later');
          return { state: { ...state, retries: state.retries + 1 }, nextRunAt: new Date(now.getTime() + 60_000), steps: [] };
        }
      });
      events = await writeResults(tx, results.filter((r): r is StepResult => r !== undefined), now);
      await writeOutbox(tx, events);
      return rows.length;
    });
    if (events.length) options.afterCommit();
    return worked;
  }

  /** When the next enrollment falls due, to sleep no longer than needed (bounded by the poll). */
  async function nextDueInMs(): Promise<number> {
    const { rows } = await db.query<{ at: Date | string | null }>(
      `SELECT min(e.next_run_at) AS at
         FROM enrollments e JOIN flows f ON f.workspace_id = e.workspace_id AND f.id = e.flow_id
        WHERE e.status = 'active' AND f.status = 'active' -- all workspaces: the engine's own schedule`,
    );
    const at = rows[0]?.at;
    if (!at) return options.pollMs;
    return Math.max(0, Math.min(options.pollMs, new Date(at).getTime() - clock.now().getTime()));
  }

  return {
    name: 'flow-engine',
    round,
    wake: () => waker.wake(),
    async run(signal) {
      while (!signal.aborted) {
        // A round that found work looks again at once: more may be due, or due by now.
        if ((await round()) > 0) continue;
        if (signal.aborted) break;
        await waker.idle(Math.max(await nextDueInMs(), MIN_IDLE_MS), signal);
      }
    },
  };
}
