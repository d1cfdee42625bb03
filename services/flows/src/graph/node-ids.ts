import type { FlowGraph } from './flow-graph';
import type { NodeType } from './node-configs';

/**
 * Node ids across edits. A PATCH with `nodes` replaces the whole graph, yet a node must keep its
 * UUID (and with it its history, funnel counts and waiting enrollments) when its key survives the
 * edit: ids are matched by key, never by position (./README.md, "Node ids across edits").
 */

/** A stored node, as the service reads it from `flow_nodes`. */
export interface ExistingNode {
  readonly id: string;
  readonly key: string;
  /** When given, a node whose type changed is listed in `retyped`. */
  readonly type?: NodeType;
}

export interface NodeIdPlan {
  /** Every node of the new graph, in its order, with the id it keeps or is given. */
  nodes: { key: string; id: string; isNew: boolean }[];
  idByKey: ReadonlyMap<string, string>;
  /** Stored nodes whose key is gone: the caller refuses the save (409) if any holds an active enrollment. */
  removed: ExistingNode[];
  /**
   * Nodes that keep their id but change type. An enrollment waiting there (on a task, a branch
   * window) would resume as a different step, so the caller should treat these like removals
   * when they hold active or paused enrollments.
   */
  retyped: { id: string; key: string; from: NodeType; to: NodeType }[];
}

/**
 * Gives every node of `graph` its id: a stored node keeps its id by key across edits, a new key
 * gets `newId()`. Throws if `existing` repeats a key or an id, or `newId` returns an id already
 * in use: both are broken invariants, not client errors.
 */
export function reconcileNodeIds(existing: readonly ExistingNode[], graph: FlowGraph, newId: () => string): NodeIdPlan {
  const stored = new Map<string, ExistingNode>();
  const usedIds = new Set<string>();
  for (const node of existing) {
    if (stored.has(node.key)) throw new Error(`stored flow nodes repeat the key '${node.key}'`);
    if (usedIds.has(node.id)) throw new Error(`stored flow nodes repeat the id ${node.id}`);
    stored.set(node.key, node);
    usedIds.add(node.id);
  }
  const plan: NodeIdPlan = { nodes: [], idByKey: new Map(), removed: [], retyped: [] };
  const idByKey = plan.idByKey as Map<string, string>;
  for (const node of graph.nodes) {
    const old = stored.get(node.key);
    let id: string;
    if (old) {
      id = old.id;
      if (old.type !== undefined && old.type !== node.type) plan.retyped.push({ id, key: node.key, from: old.type, to: node.type });
    } else {
      id = newId();
      if (usedIds.has(id)) throw new Error(`newId returned an id already in use: ${id}`);
      usedIds.add(id);
    }
    idByKey.set(node.key, id);
    plan.nodes.push({ key: node.key, id, isNew: !old });
  }
  for (const node of existing) if (!idByKey.has(node.key)) plan.removed.push({ id: node.id, key: node.key, ...(node.type ? { type: node.type } : {}) });
  return plan;
}
