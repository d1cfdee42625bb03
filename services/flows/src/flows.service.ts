import {
  type Clock,
  CrmError,
  type CursorCodec,
  type CrmEvent,
  type Logger,
  type ResourceSpec,
  type ResourceStore,
  type ServiceClient,
  type SqlClient,
  createResourceStore,
} from '@crm/kit';
import { enrollmentSteps, flowNodes, flowRuns } from '@crm/flows-contract';
import type { ActivitiesServiceDefinition, MessagingServiceDefinition, PeopleServiceDefinition } from '@crm/proto';
import { type FlowEngine, createFlowEngine } from './engine/flow-engine';
import { type FlowCache, createFlowCache } from './engine/runnable-flow';
import { createStepEffects } from './engine/step-effects';
import { type Enrollments, createEnrollments } from './enrollments';
import { createEnrollmentTriggers } from './enrollment-triggers.consumer';
import { createFlowsStore } from './flows.store';
import { graphOrder } from './graph';
import { type SendCancelsWorker, createSendCancelsWorker } from './send-cancels.worker';

export interface FlowAnalytics {
  flow_id: string;
  flow_name: string | null;
  enrollments: Record<string, number>;
  exits: Record<string, number>;
  funnel: { node_id: string; node_label: string | null; node_type: string; count: number }[];
}

export interface FlowsService {
  flows: ResourceStore;
  flowNodes: ResourceStore;
  flowRuns: ResourceStore;
  enrollmentSteps: ResourceStore;
  enrollments: Enrollments;
  engine: FlowEngine;
  cancels: SendCancelsWorker;
  /** Applies another context's event (the durable consumer's handler). */
  handleEvent(event: CrmEvent): Promise<void>;
  analytics(workspaceId: string, flowId: string): Promise<FlowAnalytics>;
}

export interface FlowsServiceDeps {
  db: SqlClient;
  cursors: CursorCodec;
  afterCommit: () => void;
  log: Logger;
  clock: Clock;
  people: ServiceClient<PeopleServiceDefinition>;
  messaging: ServiceClient<MessagingServiceDefinition>;
  activities: ServiceClient<ActivitiesServiceDefinition>;
  settings: {
    /** `FLOW_ENGINE_POLL_MS`. */
    pollMs: number;
    /** Enrollments per engine round (`FLOW_ENGINE_BATCH`). */
    batchSize: number;
    /** `OUT_OF_OFFICE_DEFAULT_DAYS`: how long an auto-reply that names no return date pauses. */
    outOfOfficeDefaultDays: number;
  };
}

export function createFlowsService(deps: FlowsServiceDeps): FlowsService {
  const { db, cursors, afterCommit, log, clock } = deps;
  const cache: FlowCache = createFlowCache();
  const engine = createFlowEngine({
    db,
    flows: cache,
    effects: createStepEffects({ messaging: deps.messaging, activities: deps.activities, people: deps.people }),
    clock,
    log,
    afterCommit,
    batchSize: deps.settings.batchSize,
    pollMs: deps.settings.pollMs,
  });
  const cancels = createSendCancelsWorker({ db, messaging: deps.messaging, clock, log, pollMs: deps.settings.pollMs });
  const onExits = () => cancels.wake();
  const readOnly = (spec: ResourceSpec) => createResourceStore({ db, spec, cursors, afterCommit });

  const flows = createFlowsStore({ db, cursors, afterCommit, clock, messaging: deps.messaging, onExits });
  const enrollments = createEnrollments({
    db,
    cursors,
    afterCommit,
    clock,
    flows: cache,
    people: deps.people,
    messaging: deps.messaging,
    onEnrolled: () => engine.wake(),
    onExits,
  });

  return {
    flows: {
      ...flows,
      async update(ctx, id, body) {
        const updated = await flows.update(ctx, id, body);
        // A flow made active (again) may have due enrollments.
        if (updated.status === 'active') engine.wake();
        return updated;
      },
    },
    flowNodes: readOnly(flowNodes),
    flowRuns: readOnly(flowRuns),
    enrollmentSteps: readOnly(enrollmentSteps),
    enrollments,
    engine,
    cancels,
    handleEvent: createEnrollmentTriggers({
      db,
      log,
      afterCommit,
      clock,
      onWake: () => engine.wake(),
      onExits,
      outOfOfficeDefaultDays: deps.settings.outOfOfficeDefaultDays,
    }),

    async analytics(workspaceId, flowId) {
      const flow = await cache.get(db, workspaceId, flowId);
      if (!flow) throw CrmError.notFound('flow');
      const [statuses, exits, reached] = await Promise.all([
        db.query<{ status: string; n: number }>(
          `SELECT status, count(*)::int AS n FROM enrollments WHERE workspace_id = $1::uuid AND flow_id = $2::uuid GROUP BY status`,
          [workspaceId, flowId],
        ),
        db.query<{ exit_reason: string; n: number }>(
          `SELECT exit_reason, count(*)::int AS n FROM enrollments
            WHERE workspace_id = $1::uuid AND flow_id = $2::uuid AND status = 'exited' GROUP BY exit_reason`,
          [workspaceId, flowId],
        ),
        // Reached: a step of the node in the history, or standing on it now (a wait not over yet).
        db.query<{ node_id: string; n: number }>(
          `SELECT node_id, count(DISTINCT enrollment_id)::int AS n FROM (
             SELECT node_id, enrollment_id FROM enrollment_steps WHERE workspace_id = $1::uuid AND flow_id = $2::uuid AND node_id IS NOT NULL
             UNION ALL
             SELECT current_node_id, id FROM enrollments WHERE workspace_id = $1::uuid AND flow_id = $2::uuid AND current_node_id IS NOT NULL
           ) reached GROUP BY node_id`,
          [workspaceId, flowId],
        ),
      ]);
      const counts = new Map(reached.rows.map((r) => [r.node_id, r.n]));
      return {
        flow_id: flowId,
        flow_name: flow.name,
        enrollments: Object.fromEntries(statuses.rows.map((r) => [r.status, r.n])),
        exits: Object.fromEntries(exits.rows.map((r) => [r.exit_reason, r.n])),
        funnel: graphOrder(flow.graph).map((node) => {
          const id = flow.idByKey.get(node.key)!;
          return { node_id: id, node_label: node.label, node_type: node.type, count: counts.get(id) ?? 0 };
        }),
      };
    },
  };
}
