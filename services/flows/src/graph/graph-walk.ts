import type { FlowEdge, FlowGraph, FlowNode } from './flow-graph';

/**
 * Walking a validated graph: where an enrollment starts and where it goes next (the engine), and
 * the funnel's order (the service). These trust the graph they are given, which `parseFlowGraph`
 * or `parseFlowGraphSync` returned, so a key or an outcome that does not fit it is a bug in the
 * caller and throws instead of moving an enrollment down a guessed path.
 */

interface GraphIndex {
  byKey: Map<string, FlowNode>;
  outgoing: Map<string, FlowEdge[]>;
}

const indexes = new WeakMap<FlowGraph, GraphIndex>();

function indexOf(graph: FlowGraph): GraphIndex {
  let index = indexes.get(graph);
  if (!index) {
    index = { byKey: new Map(graph.nodes.map((n) => [n.key, n])), outgoing: new Map() };
    for (const edge of graph.edges) {
      const list = index.outgoing.get(edge.from) ?? [];
      list.push(edge);
      index.outgoing.set(edge.from, list);
    }
    indexes.set(graph, index);
  }
  return index;
}

/** The node with this key; throws when there is none (a key the engine holds must exist). */
export function nodeByKey(graph: FlowGraph, key: string): FlowNode {
  const node = indexOf(graph).byKey.get(key);
  if (!node) throw new Error(`flow graph has no node '${key}'`);
  return node;
}

/** The node an enrollment starts at. */
export function entryNode(graph: FlowGraph): FlowNode {
  return nodeByKey(graph, graph.entry);
}

/**
 * The node after `key`, or undefined when the enrollment completes there (an end node, or any
 * node without an outgoing edge). A branch needs its outcome (true: the condition held within its
 * window); any other node must not be given one. Misuse throws: it is a bug in the caller, and
 * guessing would move an enrollment down the wrong path.
 */
export function nextNode(graph: FlowGraph, key: string, branchOutcome?: boolean): FlowNode | undefined {
  const node = nodeByKey(graph, key);
  const out = indexOf(graph).outgoing.get(key) ?? [];
  if (node.type === 'branch') {
    if (branchOutcome === undefined) throw new Error(`branch '${key}' needs an outcome to choose its edge`);
    const edge = out.find((e) => e.when === branchOutcome);
    return edge && nodeByKey(graph, edge.to);
  }
  if (branchOutcome !== undefined) throw new Error(`node '${key}' is a ${node.type} node, not a branch: it takes no outcome`);
  const edge = out[0];
  return edge && nodeByKey(graph, edge.to);
}

/**
 * A deterministic topological order (the analytics funnel's order): every node comes after all of
 * its predecessors and, among the nodes that are ready at once, the one listed first by the client
 * comes first, so the funnel reads in the author's order.
 */
export function graphOrder(graph: FlowGraph): FlowNode[] {
  const position = new Map(graph.nodes.map((n, i) => [n.key, i]));
  const remaining = new Map(graph.nodes.map((n) => [n.key, 0]));
  for (const e of graph.edges) remaining.set(e.to, remaining.get(e.to)! + 1);
  const ready = graph.nodes.filter((n) => remaining.get(n.key) === 0);
  const order: FlowNode[] = [];
  const { outgoing } = indexOf(graph);
  while (ready.length) {
    let best = 0;
    for (let i = 1; i < ready.length; i++) if (position.get(ready[i]!.key)! < position.get(ready[best]!.key)!) best = i;
    const node = ready.splice(best, 1)[0]!;
    order.push(node);
    // A branch whose two edges share a target contributes two incoming edges to it.
    for (const e of outgoing.get(node.key) ?? []) {
      const left = remaining.get(e.to)! - 1;
      remaining.set(e.to, left);
      if (left === 0) ready.push(nodeByKey(graph, e.to));
    }
  }
  if (order.length !== graph.nodes.length) throw new Error('flow graph has a cycle');
  return order;
}
