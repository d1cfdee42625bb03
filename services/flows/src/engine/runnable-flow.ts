import type { SqlQueryable } from '@crm/kit';
import { DEFAULT_CONTACT_TEST_FIELDS, parseFlowGraphSync } from '../graph';
import { type SendingSchedule, parseSchedule } from '../schedule/sending-schedule';
import type { RunnableFlow } from './step';

/** A flow's stored graph with the ids the API gave its nodes. */
export interface StoredNode {
  id: string;
  key: string;
  type: string;
  label: string | null;
  config: Record<string, unknown>;
}

export interface FlowRow {
  workspace_id: string;
  id: string;
  name: string;
  status: string;
  owner_id: string | null;
  schedule: unknown;
  nodes: unknown;
  edges: unknown;
  updated_at: Date | string;
}

export interface LoadedFlow extends RunnableFlow {
  workspaceId: string;
  name: string;
  status: string;
  ownerId: string | null;
  /** updated_at: the cache keeps a flow until it changes. */
  version: string;
  /** Whether any step sends email (enrolling checks suppressions only then). */
  sendsEmail: boolean;
}

const json = (value: unknown) => (typeof value === 'string' ? (JSON.parse(value) as unknown) : value);

/** The stored graph parsed again (it was valid when saved). */
export function loadFlow(row: FlowRow): LoadedFlow {
  const nodes = (json(row.nodes) ?? []) as StoredNode[];
  const graph = parseFlowGraphSync(nodes, json(row.edges) ?? [], { contactFields: DEFAULT_CONTACT_TEST_FIELDS });
  const schedule = json(row.schedule);
  return {
    workspaceId: row.workspace_id,
    id: row.id,
    name: row.name,
    status: row.status,
    ownerId: row.owner_id,
    graph,
    idByKey: new Map(nodes.map((n) => [n.key, n.id])),
    keyById: new Map(nodes.map((n) => [n.id, n.key])),
    schedule: schedule ? (parseSchedule(schedule) as SendingSchedule) : null,
    version: new Date(row.updated_at).toISOString(),
    sendsEmail: nodes.some((n) => n.type === 'email'),
  };
}

export const FLOW_COLUMNS = 'workspace_id, id, name, status, owner_id, schedule, nodes, edges, updated_at';

/**
 * Parsed flows by workspace and id, kept while their version (updated_at) holds: the engine parses
 * a graph once per change, not once per step.
 */
export interface FlowCache {
  /** The flows of these keys at these versions, read through `tx` when missing or stale. */
  load(tx: SqlQueryable, wanted: readonly { workspaceId: string; id: string; version: string }[]): Promise<Map<string, LoadedFlow>>;
  /** One flow as it is now, read through `tx` (lock it in the statement the caller runs first). */
  get(tx: SqlQueryable, workspaceId: string, id: string): Promise<LoadedFlow | undefined>;
}

export const flowKey = (workspaceId: string, id: string) => `${workspaceId}/${id}`;

export function createFlowCache(maxEntries = 1_000): FlowCache {
  const cache = new Map<string, LoadedFlow>();
  const remember = (flow: LoadedFlow) => {
    const key = flowKey(flow.workspaceId, flow.id);
    cache.delete(key);
    cache.set(key, flow);
    if (cache.size > maxEntries) cache.delete(cache.keys().next().value!);
    return flow;
  };
  return {
    async load(tx, wanted) {
      const out = new Map<string, LoadedFlow>();
      const missing: { workspaceId: string; id: string }[] = [];
      for (const w of wanted) {
        const key = flowKey(w.workspaceId, w.id);
        if (out.has(key)) continue;
        const hit = cache.get(key);
        if (hit && hit.version === w.version) out.set(key, hit);
        else missing.push(w);
      }
      if (missing.length) {
        const { rows } = await tx.query<FlowRow>(
          `SELECT ${FLOW_COLUMNS} FROM flows
            WHERE (workspace_id, id) IN (SELECT * FROM jsonb_to_recordset($1::jsonb) AS k(workspace_id uuid, id uuid))`,
          [JSON.stringify(missing.map((m) => ({ workspace_id: m.workspaceId, id: m.id })))],
        );
        for (const row of rows) out.set(flowKey(row.workspace_id, row.id), remember(loadFlow(row)));
      }
      return out;
    },
    async get(tx, workspaceId, id) {
      const { rows } = await tx.query<FlowRow>(`SELECT ${FLOW_COLUMNS} FROM flows WHERE workspace_id = $1::uuid AND id = $2::uuid`, [workspaceId, id]);
      if (!rows[0]) return undefined;
      const hit = cache.get(flowKey(workspaceId, id));
      const version = new Date(rows[0].updated_at).toISOString();
      if (hit && hit.version === version) return { ...hit, status: rows[0].status };
      return remember(loadFlow(rows[0]));
    },
  };
}
