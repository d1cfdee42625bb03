import { CrmError, type FieldIssue } from '@crm/kit';
import { type ContactFieldCatalog, DEFAULT_CONTACT_TEST_FIELDS } from './contact-fields';
import {
  NODE_TYPES,
  type NodeConfigs,
  type NodeType,
  isEmailCondition,
  isNodeType,
  isTemplateEmail,
  parseNodeConfig,
} from './node-configs';
import { checkText, isObject } from './text';

/**
 * The graph body of `POST/PATCH /v1/flows` (gateway/README.md, Flows, "The graph"):
 * `nodes: [{key, type, label, config}]` and `edges: [{from, to, when?}]`. `parseFlowGraph`
 * validates it completely and returns the normalized graph the service stores and the engine walks;
 * every rule is listed, with its reason, in ./README.md. Issues name the node
 * (`nodes[2].config.subject`, message starting `node 'welcome':`) or the edge (`edges[1].to`).
 */

export const GRAPH_LIMITS = {
  maxNodes: 100,
  maxEdges: 200,
  keyMaxLength: 64,
  labelMaxLength: 255,
} as const;

const KEY = /^[A-Za-z0-9_-]{1,64}$/;

/** A node as stored and executed. `label` is null when none was given. */
export type FlowNode = { [T in NodeType]: { key: string; type: T; label: string | null; config: NodeConfigs[T] } }[NodeType];
export type FlowNodeOf<T extends NodeType> = Extract<FlowNode, { type: T }>;

/** An edge by node keys. `when` is present exactly on the two edges out of a branch. */
export interface FlowEdge {
  from: string;
  to: string;
  when?: boolean;
}

/**
 * A validated flow graph: a DAG with one entry from which every node is reachable. Nodes and edges
 * keep the order the client gave them. Treat it as immutable: the walking helpers
 * (./graph-walk.ts) cache an index per graph object.
 */
export interface FlowGraph {
  /** Key of the entry node, the only node without an incoming edge. */
  readonly entry: string;
  readonly nodes: readonly FlowNode[];
  readonly edges: readonly FlowEdge[];
}

/** The email settings whose Liquid source the renderer checks. */
export type TemplateField = 'subject' | 'body' | 'body_text';

/**
 * Checks one Liquid source (the messaging renderer's parse and limits). Resolves to an error
 * message fit for the client, or to null/undefined when the source is fine. It must reject (not
 * resolve) when it cannot decide, e.g. the renderer is unavailable: that rejection propagates
 * unchanged, so an outage is never reported as the client's mistake.
 */
export type ValidateTemplate = (field: TemplateField, source: string) => Promise<string | null | undefined>;

export interface FlowGraphOptions {
  /** Contact fields a branch may test; default DEFAULT_CONTACT_TEST_FIELDS. */
  contactFields?: ContactFieldCatalog;
  /** Whether branches may test `custom.<name>` custom properties; default true. */
  customContactFields?: boolean;
}

export interface FlowGraphHooks {
  validateTemplate?: ValidateTemplate;
  /** Whether an email template with this id exists in the workspace (same rejection rule). */
  templateExists?: (templateId: string) => Promise<boolean>;
}

/** How many hook calls run at once: enough to overlap round trips, not to flood a worker pool. */
const HOOK_CONCURRENCY = 8;

interface NodeSlot {
  index: number;
  /** Set when the key is well formed. */
  key?: string;
  type?: NodeType;
  node?: FlowNode;
}

interface EdgeSlot {
  index: number;
  from?: number;
  to?: number;
  when?: boolean;
}

/** An edge whose two ends name distinct, existing nodes. */
type ResolvedEdge = EdgeSlot & { from: number; to: number };

interface Analysis {
  issues: FieldIssue[];
  slots: NodeSlot[];
  graph?: FlowGraph;
}

/**
 * Validates the graph body and returns the normalized graph, or throws `CrmError.validation` with
 * every issue found (structure, configs and, when given, the hooks' verdicts) so one 422 lists
 * them all. `edges` undefined or null is an empty list (a one-node flow needs none).
 */
export async function parseFlowGraph(
  nodes: unknown,
  edges: unknown,
  options: FlowGraphOptions & FlowGraphHooks = {},
): Promise<FlowGraph> {
  const analysis = analyse(nodes, edges, options);
  const hookIssues = await runHooks(analysis.slots, options);
  const issues = [...analysis.issues, ...hookIssues];
  if (issues.length || !analysis.graph) throw CrmError.validation(issues);
  return analysis.graph;
}

/**
 * The same validation without the asynchronous hooks: for graphs already accepted once (the
 * engine reloading a stored graph) and for tests.
 */
export function parseFlowGraphSync(nodes: unknown, edges: unknown, options: FlowGraphOptions = {}): FlowGraph {
  const analysis = analyse(nodes, edges, options);
  if (analysis.issues.length || !analysis.graph) throw CrmError.validation(analysis.issues);
  return analysis.graph;
}

const who = (slot: NodeSlot | undefined, index: number): string => (slot?.key !== undefined ? `node '${slot.key}'` : `nodes[${index}]`);

function analyse(rawNodes: unknown, rawEdges: unknown, options: FlowGraphOptions): Analysis {
  const issues: FieldIssue[] = [];
  const slots: NodeSlot[] = [];
  const contactFields = options.contactFields ?? DEFAULT_CONTACT_TEST_FIELDS;
  const customContactFields = options.customContactFields ?? true;

  // ---- nodes
  if (!Array.isArray(rawNodes) || rawNodes.length === 0) {
    issues.push({ field: 'nodes', message: 'must be a non-empty array of nodes {key, type, label, config}' });
    return { issues, slots };
  }
  if (rawNodes.length > GRAPH_LIMITS.maxNodes) {
    // Past the limit nothing else is checked: a 422 listing thousands of issues helps nobody.
    issues.push({ field: 'nodes', message: `a flow has at most ${GRAPH_LIMITS.maxNodes} nodes (got ${rawNodes.length})` });
    return { issues, slots };
  }
  const byKey = new Map<string, number>();
  let keysSound = true;
  rawNodes.forEach((raw, index) => {
    const slot: NodeSlot = { index };
    slots.push(slot);
    const path = `nodes[${index}]`;
    if (!isObject(raw)) {
      issues.push({ field: path, message: 'must be an object {key, type, label, config}' });
      keysSound = false;
      return;
    }
    const key = raw.key;
    if (key === undefined || key === null) {
      issues.push({ field: `${path}.key`, message: 'is required' });
      keysSound = false;
    } else if (typeof key !== 'string' || !KEY.test(key)) {
      issues.push({ field: `${path}.key`, message: `must be 1 to ${GRAPH_LIMITS.keyMaxLength} characters of A-Z, a-z, 0-9, _ and -` });
      keysSound = false;
    } else if (byKey.has(key)) {
      issues.push({ field: `${path}.key`, message: `node '${key}': key already used by nodes[${byKey.get(key)}]` });
      keysSound = false;
    } else {
      byKey.set(key, index);
      slot.key = key;
    }
    const name = who(slot, index);
    for (const prop of Object.keys(raw)) {
      // `id` is what GET returns beside the key: read-only and ignored, as on every record.
      if (!['key', 'type', 'label', 'config', 'id'].includes(prop)) {
        issues.push({ field: `${path}.${prop}`, message: `${name}: is not a node property (key, type, label, config)` });
      }
    }
    let label: string | null = null;
    if (raw.label !== undefined && raw.label !== null) {
      const problem = checkText(raw.label, { max: GRAPH_LIMITS.labelMaxLength, singleLine: true });
      if (problem) issues.push({ field: `${path}.label`, message: `${name}: ${problem}` });
      else label = raw.label as string;
    }
    if (!isNodeType(raw.type)) {
      issues.push({
        field: `${path}.type`,
        message: `${name}: ${raw.type === undefined || raw.type === null ? 'is required' : 'must be'} one of ${NODE_TYPES.join(', ')}`,
      });
      return;
    }
    slot.type = raw.type;
    const config = parseNodeConfig(raw.type, raw.config, {
      path: `${path}.config`,
      who: name,
      contactFields,
      customContactFields,
      issues,
    });
    if (config !== undefined && slot.key !== undefined) slot.node = { key: slot.key, type: raw.type, label, config } as FlowNode;
  });

  // ---- edges
  let edgeList: unknown[] = [];
  if (rawEdges !== undefined && rawEdges !== null) {
    if (!Array.isArray(rawEdges)) {
      issues.push({ field: 'edges', message: 'must be an array of edges {from, to, when?}' });
      return { issues, slots };
    }
    if (rawEdges.length > GRAPH_LIMITS.maxEdges) {
      issues.push({ field: 'edges', message: `a flow has at most ${GRAPH_LIMITS.maxEdges} edges (got ${rawEdges.length})` });
      return { issues, slots };
    }
    edgeList = rawEdges;
  }
  const edgeSlots: EdgeSlot[] = [];
  edgeList.forEach((raw, index) => {
    const path = `edges[${index}]`;
    if (!isObject(raw)) {
      issues.push({ field: path, message: 'must be an object {from, to, when?}' });
      return;
    }
    for (const prop of Object.keys(raw)) {
      if (!['from', 'to', 'when'].includes(prop)) {
        issues.push({ field: `${path}.${prop}`, message: 'is not an edge property (from, to, when)' });
      }
    }
    const slot: EdgeSlot = { index };
    const end = (side: 'from' | 'to'): number | undefined => {
      const value = raw[side];
      if (value === undefined || value === null) {
        issues.push({ field: `${path}.${side}`, message: 'is required: a node key' });
      } else if (typeof value !== 'string' || !KEY.test(value)) {
        issues.push({ field: `${path}.${side}`, message: 'must be a node key' });
      } else if (!byKey.has(value)) {
        issues.push({ field: `${path}.${side}`, message: `no node has the key '${value}'` });
      } else {
        return byKey.get(value);
      }
      return undefined;
    };
    slot.from = end('from');
    slot.to = end('to');
    if (raw.when !== undefined && raw.when !== null) {
      if (typeof raw.when !== 'boolean') issues.push({ field: `${path}.when`, message: 'must be true or false' });
      else slot.when = raw.when;
    }
    if (slot.from !== undefined && slot.from === slot.to) {
      issues.push({ field: `${path}.to`, message: `${who(slots[slot.from], slot.from)}: an edge cannot lead from a node to itself` });
      slot.to = undefined;
    }
    edgeSlots.push(slot);
  });

  // ---- outgoing edges by node type
  const outgoing = new Map<number, EdgeSlot[]>();
  for (const edge of edgeSlots) {
    if (edge.from === undefined) continue;
    const list = outgoing.get(edge.from) ?? [];
    list.push(edge);
    outgoing.set(edge.from, list);
  }
  for (const slot of slots) {
    const out = outgoing.get(slot.index) ?? [];
    const name = who(slot, slot.index);
    checkOutgoing(slot, name, out, issues);
  }

  // ---- graph-wide rules: only meaningful when every node has its own key
  const sound = edgeSlots.filter((e): e is ResolvedEdge => e.from !== undefined && e.to !== undefined);
  if (keysSound) checkShape(slots, sound, issues);

  if (issues.length) return { issues, slots };
  const nodes = slots.map((s) => s.node!);
  const edges = sound.map((e): FlowEdge => {
    const edge: FlowEdge = { from: slots[e.from]!.key!, to: slots[e.to]!.key! };
    if (slots[e.from]!.type === 'branch') edge.when = e.when!;
    return edge;
  });
  const entry = nodes.find((n) => !edges.some((e) => e.to === n.key))!;
  const graph: FlowGraph = Object.freeze({ entry: entry.key, nodes: Object.freeze(nodes), edges: Object.freeze(edges) });
  return { issues, slots, graph };
}

function checkOutgoing(slot: NodeSlot, name: string, out: EdgeSlot[], issues: FieldIssue[]): void {
  if (slot.type === undefined) return;
  if (slot.type === 'end') {
    for (const e of out) issues.push({ field: `edges[${e.index}].from`, message: `${name}: an end node has no outgoing edge` });
    return;
  }
  if (slot.type === 'branch') {
    const seen = new Map<boolean, number>();
    let missing = false;
    for (const e of out) {
      if (e.when === undefined) {
        issues.push({ field: `edges[${e.index}].when`, message: `${name}: an edge out of a branch needs when: true or when: false` });
        missing = true;
      } else if (seen.has(e.when)) {
        issues.push({
          field: `edges[${e.index}].when`,
          message: `${name}: the branch already has its when: ${e.when} edge (edges[${seen.get(e.when)}]); a branch has exactly two outgoing edges`,
        });
      } else {
        seen.set(e.when, e.index);
      }
    }
    if (!missing) {
      for (const outcome of [true, false]) {
        if (!seen.has(outcome)) {
          issues.push({
            field: `nodes[${slot.index}]`,
            message: `${name}: a branch needs an outgoing edge with when: ${outcome} (exactly two: one when: true, one when: false)`,
          });
        }
      }
    }
    return;
  }
  const first = out[0];
  for (const e of out) {
    if (e.when !== undefined) {
      issues.push({ field: `edges[${e.index}].when`, message: `${name}: only the two edges out of a branch carry when (this is a ${slot.type} node)` });
    }
    if (first && e !== first) {
      issues.push({
        field: `edges[${e.index}].from`,
        message: `${name}: a ${slot.type} node has at most one outgoing edge (it already has edges[${first.index}]); only a branch has two`,
      });
    }
  }
}

/** Entry, cycles, reachability and the email-before rules (branches, replies), over edges whose ends resolve. */
function checkShape(slots: NodeSlot[], edges: ResolvedEdge[], issues: FieldIssue[]): void {
  const n = slots.length;
  const succ: { index: number; to: number }[][] = Array.from({ length: n }, () => []);
  const pred: number[][] = Array.from({ length: n }, () => []);
  const indegree = new Array<number>(n).fill(0);
  for (const e of edges) {
    succ[e.from]!.push({ index: e.index, to: e.to });
    pred[e.to]!.push(e.from);
    indegree[e.to]! += 1;
  }
  const name = (i: number) => who(slots[i], i);
  const key = (i: number) => slots[i]!.key!;

  // Exactly one entry. The first node (in the client's order) without an incoming edge is the
  // entry; every other such node is reported, since the engine would never start there.
  const entries = slots.filter((s) => indegree[s.index] === 0).map((s) => s.index);
  const entry = entries[0];
  if (entry === undefined) {
    issues.push({ field: 'nodes', message: 'the flow has no entry node: every node has an incoming edge, so the edges form a cycle' });
  }
  for (const extra of entries.slice(1)) {
    issues.push({
      field: `nodes[${extra}]`,
      message: `${name(extra)}: has no incoming edge, but '${key(entry!)}' is already the entry node; a flow has exactly one entry`,
    });
  }

  // Cycles: every back edge of a depth-first search closes one. Reporting each back edge names a
  // set of edges whose removal leaves the graph acyclic.
  const state = new Array<0 | 1 | 2>(n).fill(0); // unseen, on the stack, done
  const stack: number[] = [];
  let cyclic = false;
  const visit = (start: number) => {
    const frames: { node: number; next: number }[] = [{ node: start, next: 0 }];
    state[start] = 1;
    stack.push(start);
    while (frames.length) {
      const frame = frames[frames.length - 1]!;
      const out = succ[frame.node]!;
      if (frame.next >= out.length) {
        state[frame.node] = 2;
        stack.pop();
        frames.pop();
        continue;
      }
      const edge = out[frame.next++]!;
      if (state[edge.to] === 1) {
        cyclic = true;
        const loop = [...stack.slice(stack.indexOf(edge.to)), edge.to].map(key);
        issues.push({
          field: `edges[${edge.index}].to`,
          message: `edge '${key(frame.node)}' -> '${key(edge.to)}' closes a cycle: ${loop.join(' -> ')}`,
        });
      } else if (state[edge.to] === 0) {
        state[edge.to] = 1;
        stack.push(edge.to);
        frames.push({ node: edge.to, next: 0 });
      }
    }
  };
  for (let i = 0; i < n; i++) if (state[i] === 0) visit(i);

  if (entries.length !== 1 || entry === undefined) return;

  // Reachability from the entry.
  const reached = new Set<number>([entry]);
  const queue = [entry];
  while (queue.length) for (const e of succ[queue.shift()!]!) if (!reached.has(e.to)) reached.add(e.to), queue.push(e.to);
  for (let i = 0; i < n; i++) {
    if (!reached.has(i)) issues.push({ field: `nodes[${i}]`, message: `${name(i)}: cannot be reached from the entry node '${key(entry)}'` });
  }
  if (cyclic) return;

  // A branch on opened/clicked/replied reads "the enrollment's previous email": on every path from
  // the entry an email node must come before it. Search the paths that avoid email nodes.
  const parent = new Map<number, number | undefined>();
  if (slots[entry]!.type !== 'email') {
    parent.set(entry, undefined);
    const open = [entry];
    while (open.length) {
      const u = open.shift()!;
      for (const e of succ[u]!) {
        if (parent.has(e.to) || slots[e.to]!.type === 'email') continue;
        parent.set(e.to, u);
        open.push(e.to);
      }
    }
  }
  // An email without a subject replies in the thread of the enrollment's previous email: the same
  // rule. It is first on some path when it is the entry or a node reached without an email precedes it.
  for (const slot of slots) {
    const node = slot.node;
    if (node?.type !== 'email' || isTemplateEmail(node.config) || node.config.subject !== undefined) continue;
    const before = slot.index === entry ? undefined : pred[slot.index]!.find((u) => parent.has(u));
    if (slot.index !== entry && before === undefined) continue;
    const path: string[] = [key(slot.index)];
    for (let at: number | undefined = before; at !== undefined; at = parent.get(at)) path.unshift(key(at));
    issues.push({
      field: `nodes[${slot.index}].config.subject`,
      message: `${name(slot.index)}: is required here: without a subject the email replies in the thread of the enrollment's previous email, but the path ${path.join(' -> ')} has none before it`,
    });
  }
  for (const slot of slots) {
    const node = slot.node;
    if (node?.type !== 'branch' || !isEmailCondition(node.config.condition) || !parent.has(slot.index)) continue;
    const path: string[] = [];
    for (let at: number | undefined = slot.index; at !== undefined; at = parent.get(at)) path.unshift(key(at));
    issues.push({
      field: `nodes[${slot.index}].config.condition`,
      message: `${name(slot.index)}: '${node.config.condition}' tests the enrollment's previous email, but the path ${path.join(' -> ')} reaches the branch without an email node`,
    });
  }
}

async function runHooks(slots: NodeSlot[], hooks: FlowGraphHooks): Promise<FieldIssue[]> {
  const jobs: { order: number; run: () => Promise<FieldIssue | undefined> }[] = [];
  const cache = new Map<string, Promise<string | null | undefined>>();
  for (const slot of slots) {
    const node = slot.node;
    if (node?.type !== 'email') continue;
    const path = `nodes[${slot.index}].config`;
    const name = who(slot, slot.index);
    const config = node.config;
    if (isTemplateEmail(config)) {
      const exists = hooks.templateExists;
      if (exists) {
        jobs.push({
          order: jobs.length,
          run: async () =>
            (await exists(config.template_id))
              ? undefined
              : { field: `${path}.template_id`, message: `${name}: no email template has the id ${config.template_id}` },
        });
      }
      continue;
    }
    const validate = hooks.validateTemplate;
    if (!validate) continue;
    for (const field of ['subject', 'body', 'body_text'] as const) {
      const source = config[field];
      if (source === undefined) continue;
      jobs.push({
        order: jobs.length,
        run: async () => {
          // The same source in several nodes is checked once. NUL never occurs in a source.
          const id = `${field}\u0000${source}`;
          let verdict = cache.get(id);
          if (!verdict) cache.set(id, (verdict = validate(field, source)));
          const message = await verdict;
          return message ? { field: `${path}.${field}`, message: `${name}: ${message}` } : undefined;
        },
      });
    }
  }
  const results = new Array<FieldIssue | undefined>(jobs.length);
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const job = jobs[next++]!;
      results[job.order] = await job.run();
    }
  };
  await Promise.all(Array.from({ length: Math.min(HOOK_CONCURRENCY, jobs.length) }, worker));
  return results.filter((r): r is FieldIssue => r !== undefined);
}
