import {
  type ApiRecord,
  type Clock,
  type CrmEvent,
  CrmError,
  type CursorCodec,
  type FieldValue,
  type PendingWrite,
  type ResourceStore,
  type ServiceClient,
  type SqlClient,
  type SqlQueryable,
  createResourceStore,
  newId,
} from '@crm/kit';
import { FlowsError, FlowsErrorCode, flows } from '@crm/flows-contract';
import type { MessagingServiceDefinition } from '@crm/proto';
import { exitEnrollments } from './engine/enrollment-records';
import type { StoredNode } from './engine/runnable-flow';
import { DEFAULT_CONTACT_TEST_FIELDS, graphOrder, parseFlowGraph, reconcileNodeIds } from './graph';
import { parseSchedule } from './schedule/sending-schedule';

/**
 * Flows and their graphs (gateway/README.md, Flows, "The graph" and "Editing a graph"). A flow's
 * `nodes` and `edges` are validated as a whole when saved (every problem in one 422 naming the node
 * or edge); email nodes' Liquid is checked by messaging's renderer and their template ids against
 * its templates. Nodes keep their ids by key across edits; a PATCH that removes (or retypes) a node
 * on which active or paused enrollments stand is 409. The stored graph is the API's: nodes with
 * ids, edges by key; `flow_nodes` mirrors the nodes for listing, in the same transaction.
 *
 * Status: draft → active ⇄ paused; any → archived, which is final and exits every active or paused
 * enrollment with `flow_archived` in the same transaction.
 */
const TRANSITIONS: Record<string, readonly string[]> = {
  draft: ['active', 'archived'],
  active: ['paused', 'archived'],
  paused: ['active', 'archived'],
  archived: [],
};

export interface FlowsStoreDeps {
  db: SqlClient;
  cursors: CursorCodec;
  afterCommit: () => void;
  clock: Clock;
  messaging: ServiceClient<MessagingServiceDefinition>;
  /** Enrollments exited (an archive): their sends are to be cancelled now, after the commit. */
  onExits: () => void;
}

async function writeNodes(tx: SqlQueryable, workspaceId: string, flowId: string, nodes: StoredNode[], positions: Map<string, number>): Promise<void> {
  const now = new Date().toISOString();
  await tx.query(`DELETE FROM flow_nodes WHERE workspace_id = $1::uuid AND flow_id = $2::uuid AND NOT (id = ANY($3::uuid[]))`, [
    workspaceId,
    flowId,
    nodes.map((n) => n.id),
  ]);
  for (const node of nodes) {
    await tx.query(
      `INSERT INTO flow_nodes (workspace_id, id, flow_id, key, type, label, config, position, created_at, updated_at)
       VALUES ($1::uuid, $2::uuid, $3::uuid, $4, $5, $6, $7::jsonb, $8, $9::timestamptz, $9::timestamptz)
       ON CONFLICT (workspace_id, id) DO UPDATE SET key = EXCLUDED.key, type = EXCLUDED.type, label = EXCLUDED.label,
         config = EXCLUDED.config, position = EXCLUDED.position, updated_at = EXCLUDED.updated_at`,
      [workspaceId, node.id, flowId, node.key, node.type, node.label, JSON.stringify(node.config), positions.get(node.key) ?? 0, now],
    );
  }
}

export function createFlowsStore(deps: FlowsStoreDeps): ResourceStore {
  const { db, cursors, afterCommit, messaging } = deps;
  /** What the rules decided for the row being written, for the work after it (same transaction). */
  const pending = new WeakMap<PendingWrite['tx'], { nodes?: StoredNode[]; positions?: Map<string, number>; archiving?: boolean }>();
  const note = (tx: PendingWrite['tx'], more: { nodes?: StoredNode[]; positions?: Map<string, number>; archiving?: boolean }) =>
    pending.set(tx, { ...pending.get(tx), ...more });

  /** Liquid and template checks of email nodes, through messaging. */
  const hooks = (workspaceId: string) => ({
    validateTemplate: async (field: 'subject' | 'body' | 'body_text', source: string) => {
      const { issues } = await messaging.call('ValidateTemplate', { [field]: source, ...(field === 'subject' ? { body: '' } : {}) });
      // Only this field's verdict: the other fields of the call are blanks.
      return issues.find((i) => i.field === field)?.message ?? null;
    },
    templateExists: async (templateId: string) => {
      try {
        await messaging.call('GetEmailTemplate', { workspace_id: workspaceId, id: templateId });
        return true;
      } catch (error) {
        if (error instanceof CrmError && error.code === 'not_found') return false;
        throw error;
      }
    },
  });

  async function rules(write: PendingWrite): Promise<Record<string, FieldValue>> {
    const { fields, current, ctx, tx } = write;
    const out: Record<string, FieldValue> = {};
    if (write.mode === 'create') {
      if (fields.nodes === undefined) throw CrmError.validation([{ field: 'nodes', message: 'is required: the flow graph' }]);
      const status = (fields.status as string | undefined) ?? 'draft';
      if (status !== 'draft' && status !== 'active') {
        throw FlowsError.field(FlowsErrorCode.InvalidTransition, 'status', 'a new flow is draft or active');
      }
      out.status = status;
    } else if (fields.status !== undefined && fields.status !== current!.status) {
      const allowed = TRANSITIONS[String(current!.status)] ?? [];
      if (!allowed.includes(String(fields.status))) {
        throw FlowsError.field(FlowsErrorCode.InvalidTransition, 'status', `a ${current!.status} flow cannot become ${fields.status}`);
      }
      if (fields.status === 'archived') note(tx, { archiving: true });
    }
    if (write.mode === 'update' && current!.status === 'archived' && (fields.nodes !== undefined || fields.edges !== undefined)) {
      throw FlowsError.field(FlowsErrorCode.InvalidTransition, 'nodes', 'an archived flow cannot change');
    }
    if (fields.schedule !== undefined && fields.schedule !== null) out.schedule = { ...parseSchedule(fields.schedule) };

    if (fields.nodes !== undefined || fields.edges !== undefined) {
      const nodesBody = fields.nodes ?? current?.nodes;
      const edgesBody = fields.edges !== undefined ? fields.edges : fields.nodes !== undefined ? [] : current?.edges;
      const graph = await parseFlowGraph(nodesBody, edgesBody, { contactFields: DEFAULT_CONTACT_TEST_FIELDS, ...hooks(ctx.workspaceId) });
      const existing = ((current?.nodes ?? []) as StoredNode[]).map((n) => ({ id: n.id, key: n.key, type: n.type as never }));
      const plan = reconcileNodeIds(existing, graph, newId);
      const gone = [...plan.removed.map((n) => n.id), ...plan.retyped.map((n) => n.id)];
      if (gone.length && current) {
        const { rows } = await tx.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM enrollments
            WHERE workspace_id = $1::uuid AND flow_id = $2::uuid AND status IN ('active', 'paused') AND current_node_id = ANY($3::uuid[])`,
          [ctx.workspaceId, current.id, gone],
        );
        if (rows[0]!.n > 0) {
          throw FlowsError.field(
            FlowsErrorCode.NodesInUse,
            'nodes',
            `${rows[0]!.n} active or paused enrollments stand on the nodes this change removes or retypes (${[...plan.removed, ...plan.retyped].map((n) => n.key).join(', ')})`,
          );
        }
      }
      const nodes: StoredNode[] = graph.nodes.map((node) => ({
        id: plan.idByKey.get(node.key)!,
        key: node.key,
        type: node.type,
        label: node.label,
        config: { ...node.config } as Record<string, unknown>,
      }));
      out.nodes = nodes as unknown as FieldValue;
      out.edges = graph.edges.map((e) => ({ ...e })) as unknown as FieldValue;
      note(tx, { nodes, positions: new Map(graphOrder(graph).map((n, i) => [n.key, i])) });
    }
    return out;
  }

  const store = createResourceStore({
    db,
    spec: flows,
    cursors,
    afterCommit,
    beforeWrite: rules,
    // A flow goes only once nothing runs in it: archive it first (its enrollments exit). Locked
    // before the count: an enrollment being written holds the flow FOR SHARE, so it commits before
    // the count sees it. Counted first, it could commit after and go with the flow (the cascade)
    // while active.
    beforeDelete: async (tx, ctx, id) => {
      await tx.query(`SELECT 1 FROM flows WHERE workspace_id = $1::uuid AND id = $2::uuid FOR UPDATE`, [ctx.workspaceId, id]);
      const { rows } = await tx.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM enrollments WHERE workspace_id = $1::uuid AND flow_id = $2::uuid AND status IN ('active', 'paused')`,
        [ctx.workspaceId, id],
      );
      if (rows[0]!.n > 0) {
        throw new FlowsError(FlowsErrorCode.InvalidTransition, `the flow has ${rows[0]!.n} active or paused enrollments: archive it first`);
      }
    },
  });

  /** After the row is written: the node mirror, and an archive's exits. */
  async function afterWrite(tx: SqlQueryable, record: ApiRecord, workspaceId: string): Promise<CrmEvent[]> {
    const written = pending.get(tx);
    pending.delete(tx);
    if (written?.nodes) await writeNodes(tx, workspaceId, String(record.id), written.nodes, written.positions!);
    if (record.status === 'archived' && written?.archiving) {
      return exitEnrollments(tx, workspaceId, { flowId: String(record.id) }, 'flow_archived', deps.clock.now());
    }
    return [];
  }

  return {
    ...store,
    create: (ctx, body) => store.create(ctx, body, { inTransaction: (tx, record) => afterWrite(tx, record, ctx.workspaceId) }),
    async update(ctx, id, body) {
      let exited = false;
      const updated = await store.update(ctx, id, body, {
        inTransaction: async (tx, record) => {
          const events = await afterWrite(tx, record, ctx.workspaceId);
          exited = events.length > 0;
          return events;
        },
      });
      if (exited) deps.onExits();
      return updated;
    },
  };
}
