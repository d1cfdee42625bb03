import { CrmError, type FieldIssue } from '@crm/kit';
import fc from 'fast-check';
import { type FlowGraph, GRAPH_LIMITS, parseFlowGraph, parseFlowGraphSync } from './flow-graph';
import { entryNode, graphOrder, nextNode } from './graph-walk';
import type { NodeType } from './node-configs';
import { type RawNode, type RawEdge, email, wait, task, branch, end, sample } from '../testing/graph-fixtures';

/** The issues of a refused graph (fails the test if it was accepted). */
function issuesOf(nodes: unknown, edges: unknown, options = {}): FieldIssue[] {
  try {
    parseFlowGraphSync(nodes, edges, options);
  } catch (error) {
    expect(error).toBeInstanceOf(CrmError);
    expect((error as CrmError).code).toBe('validation_failed');
    return (error as CrmError).details as FieldIssue[];
  }
  throw new Error('graph was accepted');
}


describe('parseFlowGraph: a valid graph', () => {
  test('is normalized: labels, template ids, when only on branch edges', () => {
    const { nodes, edges } = sample();
    nodes[3] = { key: 'follow_up', type: 'email', label: null, config: { template_id: 'A0E9C1B2-1111-4222-8333-944444444444' } };
    edges[4] = { from: 'follow_up', to: 'done', when: null };
    const graph = parseFlowGraphSync(nodes, edges);
    expect(graph.entry).toBe('intro');
    expect(graph.nodes.map((n) => n.key)).toEqual(['intro', 'pause', 'opened', 'follow_up', 'call', 'done']);
    expect(graph.nodes[0]).toEqual({ key: 'intro', type: 'email', label: 'Email intro', config: { subject: 'Hello {{ first_name }} (intro)', body: '<p>Hi</p>' } });
    expect(graph.nodes[3]).toEqual({ key: 'follow_up', type: 'email', label: null, config: { template_id: 'a0e9c1b2-1111-4222-8333-944444444444' } });
    expect(graph.nodes[4]!.label).toBeNull();
    expect(graph.edges).toEqual([
      { from: 'intro', to: 'pause' },
      { from: 'pause', to: 'opened' },
      { from: 'opened', to: 'follow_up', when: true },
      { from: 'opened', to: 'call', when: false },
      { from: 'follow_up', to: 'done' },
    ]);
  });

  test('a single node needs no edges; edges may be omitted or null', () => {
    expect(parseFlowGraphSync([email('only')], undefined).entry).toBe('only');
    expect(parseFlowGraphSync([email('only')], null).edges).toEqual([]);
    expect(parseFlowGraphSync([end('stop')], []).nodes[0]).toEqual({ key: 'stop', type: 'end', label: null, config: {} });
  });

  test('a GET round trip is accepted: node ids are ignored, null reads as absent', () => {
    const graph = parseFlowGraphSync(
      [
        { id: '0190a0e0-0000-7000-8000-000000000001', key: 'a', type: 'task', label: null, config: { title: 'Call', description: null, priority: null, due_in_seconds: 0 } },
        { key: 'b', type: 'end', config: null },
      ],
      [{ from: 'a', to: 'b', when: null }],
    );
    expect(graph.nodes[0]).toEqual({ key: 'a', type: 'task', label: null, config: { title: 'Call', due_in_seconds: 0 } });
    expect(graph.nodes[0]).not.toHaveProperty('id');
  });

  test('node keys that name Object.prototype members are ordinary keys', () => {
    const graph = parseFlowGraphSync([wait('__proto__'), wait('constructor'), end('toString')], [
      { from: '__proto__', to: 'constructor' },
      { from: 'constructor', to: 'toString' },
    ]);
    expect(graph.entry).toBe('__proto__');
    expect(nextNode(graph, '__proto__')?.key).toBe('constructor');
  });

  test('both edges of a branch may lead to the same node (wait for an open, then go on either way)', () => {
    const graph = parseFlowGraphSync([email('e'), branch('b'), email('next')], [
      { from: 'e', to: 'b' },
      { from: 'b', to: 'next', when: true },
      { from: 'b', to: 'next', when: false },
    ]);
    expect(nextNode(graph, 'b', true)?.key).toBe('next');
    expect(nextNode(graph, 'b', false)?.key).toBe('next');
    expect(graphOrder(graph).map((n) => n.key)).toEqual(['e', 'b', 'next']);
  });

  test('the limits themselves are accepted: 100 nodes, 64-character keys, 255-character labels', () => {
    const key = (i: number) => `${'k'.repeat(60)}${String(i).padStart(4, '0')}`;
    const nodes = Array.from({ length: GRAPH_LIMITS.maxNodes }, (_, i) => ({ ...wait(key(i)), label: 'l'.repeat(255) }));
    const edges = nodes.slice(1).map((n, i) => ({ from: key(i), to: n.key }));
    const graph = parseFlowGraphSync(nodes, edges);
    expect(graph.nodes).toHaveLength(100);
    expect(key(0)).toHaveLength(64);
  });
});

describe('parseFlowGraph: the body shape', () => {
  test.each([
    [undefined, 'nodes'],
    [[], 'nodes'],
    [{}, 'nodes'],
    ['x', 'nodes'],
  ])('nodes %p is refused', (nodes, field) => {
    expect(issuesOf(nodes, [])).toEqual([{ field, message: expect.stringContaining('non-empty array') }]);
  });

  test('more than 100 nodes or 200 edges is refused without checking each one', () => {
    const many = Array.from({ length: 101 }, (_, i) => wait(`n${i}`));
    expect(issuesOf(many, [])).toEqual([{ field: 'nodes', message: 'a flow has at most 100 nodes (got 101)' }]);
    const edges = Array.from({ length: 201 }, () => ({ from: 'a', to: 'b' }));
    expect(issuesOf([wait('a'), end('b')], edges)).toEqual([{ field: 'edges', message: 'a flow has at most 200 edges (got 201)' }]);
    expect(issuesOf([wait('a')], { from: 'a' })).toEqual([{ field: 'edges', message: expect.stringContaining('must be an array') }]);
  });

  test('node problems name the node by index and key', () => {
    const issues = issuesOf(
      [
        wait('ok'),
        'not a node',
        { type: 'wait', config: { duration_seconds: 1 } },
        { key: 'bad key!', type: 'wait', config: { duration_seconds: 1 } },
        { key: 'k'.repeat(65), type: 'end' },
        { key: 'ok', type: 'end' },
        { key: 'typed', type: 'sms' },
        { key: 'extra', type: 'end', position: { x: 1 }, label: 'x'.repeat(256) },
        { key: 'multi', type: 'end', label: 'two\nlines' },
      ],
      [],
    );
    expect(issues).toEqual(
      expect.arrayContaining([
        { field: 'nodes[1]', message: 'must be an object {key, type, label, config}' },
        { field: 'nodes[2].key', message: 'is required' },
        { field: 'nodes[3].key', message: 'must be 1 to 64 characters of A-Z, a-z, 0-9, _ and -' },
        { field: 'nodes[4].key', message: 'must be 1 to 64 characters of A-Z, a-z, 0-9, _ and -' },
        { field: 'nodes[5].key', message: "node 'ok': key already used by nodes[0]" },
        { field: 'nodes[6].type', message: "node 'typed': must be one of email, wait, task, call, chat_message, professional_network, branch, end" },
        { field: 'nodes[7].position', message: "node 'extra': is not a node property (key, type, label, config)" },
        { field: 'nodes[7].label', message: "node 'extra': must be at most 255 characters" },
        { field: 'nodes[8].label', message: "node 'multi': must be a single line" },
      ]),
    );
  });

  test('edge problems name the edge', () => {
    const issues = issuesOf(
      [wait('a'), wait('b'), end('c')],
      [
        { from: 'a', to: 'b' },
        { from: 'b', to: 'nowhere' },
        { to: 'c' },
        { from: 'b', to: 'c', weight: 1 },
        7,
        { from: 'c', to: 'c' },
        { from: 'a', to: 'bad key' },
      ],
    );
    expect(issues).toEqual(
      expect.arrayContaining([
        { field: 'edges[1].to', message: "no node has the key 'nowhere'" },
        { field: 'edges[2].from', message: 'is required: a node key' },
        { field: 'edges[3].weight', message: 'is not an edge property (from, to, when)' },
        { field: 'edges[4]', message: 'must be an object {from, to, when?}' },
        { field: 'edges[5].to', message: "node 'c': an edge cannot lead from a node to itself" },
        { field: 'edges[6].to', message: 'must be a node key' },
      ]),
    );
  });
});

describe('parseFlowGraph: the graph rules', () => {
  test('exactly one entry: extra entries are named', () => {
    const issues = issuesOf([wait('a'), wait('b'), end('c')], [{ from: 'a', to: 'c' }]);
    expect(issues).toEqual([
      { field: 'nodes[1]', message: "node 'b': has no incoming edge, but 'a' is already the entry node; a flow has exactly one entry" },
    ]);
  });

  test('a cycle is reported on the edge that closes it, with the nodes on it', () => {
    const issues = issuesOf(
      [wait('start'), wait('a'), wait('b'), task('c')],
      [
        { from: 'start', to: 'a' },
        { from: 'a', to: 'b' },
        { from: 'b', to: 'c' },
        { from: 'c', to: 'a' },
      ],
    );
    expect(issues).toEqual([{ field: 'edges[3].to', message: "edge 'c' -> 'a' closes a cycle: a -> b -> c -> a" }]);
  });

  test('a graph that is all cycle has no entry', () => {
    const issues = issuesOf([wait('a'), wait('b')], [
      { from: 'a', to: 'b' },
      { from: 'b', to: 'a' },
    ]);
    expect(issues).toEqual([
      { field: 'nodes', message: 'the flow has no entry node: every node has an incoming edge, so the edges form a cycle' },
      { field: 'edges[1].to', message: "edge 'b' -> 'a' closes a cycle: a -> b -> a" },
    ]);
  });

  test('a node unreachable from the entry is named', () => {
    // x and y feed each other and nothing leads to them from the entry.
    const issues = issuesOf([wait('a'), end('b'), wait('x'), wait('y')], [
      { from: 'a', to: 'b' },
      { from: 'x', to: 'y' },
      { from: 'y', to: 'x' },
    ]);
    expect(issues).toEqual(
      expect.arrayContaining([
        { field: 'nodes[2]', message: "node 'x': cannot be reached from the entry node 'a'" },
        { field: 'nodes[3]', message: "node 'y': cannot be reached from the entry node 'a'" },
      ]),
    );
  });

  test('a branch has exactly one when: true and one when: false edge', () => {
    const nodes = [email('e'), branch('b'), end('t'), end('f')];
    expect(issuesOf(nodes, [{ from: 'e', to: 'b' }, { from: 'b', to: 't', when: true }, { from: 'b', to: 'f', when: true }])).toEqual([
      { field: 'edges[2].when', message: "node 'b': the branch already has its when: true edge (edges[1]); a branch has exactly two outgoing edges" },
      { field: 'nodes[1]', message: "node 'b': a branch needs an outgoing edge with when: false (exactly two: one when: true, one when: false)" },
    ]);
    expect(issuesOf(nodes, [{ from: 'e', to: 'b' }, { from: 'b', to: 't', when: true }, { from: 'b', to: 'f' }])).toEqual(
      expect.arrayContaining([{ field: 'edges[2].when', message: "node 'b': an edge out of a branch needs when: true or when: false" }]),
    );
    expect(issuesOf(nodes.slice(0, 2), [{ from: 'e', to: 'b' }])).toEqual([
      { field: 'nodes[1]', message: "node 'b': a branch needs an outgoing edge with when: true (exactly two: one when: true, one when: false)" },
      { field: 'nodes[1]', message: "node 'b': a branch needs an outgoing edge with when: false (exactly two: one when: true, one when: false)" },
    ]);
    expect(issuesOf(nodes, [{ from: 'e', to: 'b' }, { from: 'b', to: 't', when: 'yes' }, { from: 'b', to: 'f', when: false }])).toEqual(
      expect.arrayContaining([{ field: 'edges[1].when', message: 'must be true or false' }]),
    );
  });

  test('other nodes have at most one outgoing edge and no when; an end node has none', () => {
    expect(issuesOf([wait('a'), end('b'), end('c')], [{ from: 'a', to: 'b' }, { from: 'a', to: 'c' }])).toEqual([
      { field: 'edges[1].from', message: "node 'a': a wait node has at most one outgoing edge (it already has edges[0]); only a branch has two" },
    ]);
    expect(issuesOf([wait('a'), end('b')], [{ from: 'a', to: 'b', when: true }])).toEqual([
      { field: 'edges[0].when', message: "node 'a': only the two edges out of a branch carry when (this is a wait node)" },
    ]);
    expect(issuesOf([end('a'), wait('b')], [{ from: 'a', to: 'b' }])).toEqual([
      { field: 'edges[0].from', message: "node 'a': an end node has no outgoing edge" },
    ]);
  });

  test('a branch on the previous email needs an email before it on every path', () => {
    // entry branch on a field test: the true path has an email, the false path does not.
    const nodes = [
      branch('vip', { field: 'priority', op: 'gte', value: 500 }, null),
      email('pitch'),
      wait('hold'),
      branch('opened', 'opened', 3600),
      end('t'),
      end('f'),
    ];
    const edges = [
      { from: 'vip', to: 'pitch', when: true },
      { from: 'vip', to: 'hold', when: false },
      { from: 'pitch', to: 'opened' },
      { from: 'hold', to: 'opened' },
      { from: 'opened', to: 't', when: true },
      { from: 'opened', to: 'f', when: false },
    ];
    expect(issuesOf(nodes, edges)).toEqual([
      {
        field: 'nodes[3].config.condition',
        message: "node 'opened': 'opened' tests the enrollment's previous email, but the path vip -> hold -> opened reaches the branch without an email node",
      },
    ]);
    // With an email on the other path too, it is accepted.
    nodes[2] = email('hold');
    expect(parseFlowGraphSync(nodes, edges).entry).toBe('vip');
  });

  test('an email without a subject replies in the thread, so an email must come before it on every path', () => {
    const reply = (key: string): RawNode => ({ key, type: 'email', config: { body: '<p>Any thoughts?</p>' } });
    // After an email on the only path: accepted, and the config keeps no subject.
    const ok = parseFlowGraphSync([email('first'), wait('w'), reply('bump')], [{ from: 'first', to: 'w' }, { from: 'w', to: 'bump' }]);
    expect(ok.nodes[2]!.config).toEqual({ body: '<p>Any thoughts?</p>' });
    // At the entry: nothing to reply to.
    expect(issuesOf([reply('bump'), wait('w')], [{ from: 'bump', to: 'w' }])).toEqual([
      {
        field: 'nodes[0].config.subject',
        message: "node 'bump': is required here: without a subject the email replies in the thread of the enrollment's previous email, but the path bump has none before it",
      },
    ]);
    // Behind a branch whose false path has no email.
    const nodes = [branch('vip', { field: 'priority', op: 'gte', value: 500 }, null), email('pitch'), wait('hold'), reply('bump')];
    const edges = [
      { from: 'vip', to: 'pitch', when: true },
      { from: 'vip', to: 'hold', when: false },
      { from: 'pitch', to: 'bump' },
      { from: 'hold', to: 'bump' },
    ];
    expect(issuesOf(nodes, edges)).toEqual([
      {
        field: 'nodes[3].config.subject',
        message: "node 'bump': is required here: without a subject the email replies in the thread of the enrollment's previous email, but the path vip -> hold -> bump has none before it",
      },
    ]);
  });

  test('every problem is reported at once', () => {
    const issues = issuesOf([email('a', { subject: '' }), wait('b', 0), end('c')], [{ from: 'a', to: 'b' }, { from: 'b', to: 'zz' }]);
    expect(issues.map((i) => i.field)).toEqual(['nodes[0].config.subject', 'nodes[1].config.duration_seconds', 'edges[1].to', 'nodes[2]']);
  });

  test('the error is a 422 whose message names the single issue', () => {
    const error = (() => {
      try {
        parseFlowGraphSync([wait('a', 0)], []);
      } catch (e) {
        return e as CrmError;
      }
    })();
    expect(error?.message).toBe("nodes[0].config.duration_seconds: node 'a': must be between 1 and 31536000");
  });
});

describe('parseFlowGraph: hooks', () => {
  const nodes = [
    email('a', { body_text: 'Hi {{ first_name }}' }),
    email('b'),
    { key: 't', type: 'email', config: { template_id: '0190a0e0-0000-7000-8000-00000000000a' } },
    end('c'),
  ];
  const edges = [
    { from: 'a', to: 'b' },
    { from: 'b', to: 't' },
    { from: 't', to: 'c' },
  ];

  test('template errors become issues naming the node; identical sources are checked once', async () => {
    const seen: string[] = [];
    const validateTemplate = async (field: string, source: string) => {
      seen.push(`${field}:${source}`);
      return source.includes('{{ first_name }}') && field === 'body_text' ? 'unknown filter at line 1' : undefined;
    };
    const templateExists = async (id: string) => id !== '0190a0e0-0000-7000-8000-00000000000a';
    await expect(parseFlowGraph(nodes, edges, { validateTemplate, templateExists })).rejects.toMatchObject({
      code: 'validation_failed',
      details: [
        { field: 'nodes[0].config.body_text', message: "node 'a': unknown filter at line 1" },
        { field: 'nodes[2].config.template_id', message: "node 't': no email template has the id 0190a0e0-0000-7000-8000-00000000000a" },
      ],
    });
    // a and b share their body; their subjects differ.
    expect(seen.sort()).toEqual(['body:<p>Hi</p>', 'body_text:Hi {{ first_name }}', 'subject:Hello {{ first_name }} (a)', 'subject:Hello {{ first_name }} (b)']);
  });

  test('hook issues join the structural ones in one 422', async () => {
    const error = await parseFlowGraph([email('a'), wait('b', -1)], [{ from: 'a', to: 'b' }], { validateTemplate: async () => 'bad' }).catch((e) => e);
    expect(error.details.map((i: FieldIssue) => i.field)).toEqual(['nodes[1].config.duration_seconds', 'nodes[0].config.subject', 'nodes[0].config.body']);
  });

  test('a hook that rejects (renderer down) propagates unchanged, never as a 422', async () => {
    const outage = new CrmError('unavailable', 'renderer unavailable');
    await expect(parseFlowGraph(nodes, edges, { validateTemplate: async () => Promise.reject(outage) })).rejects.toBe(outage);
  });

  test('without hooks the async parse equals the sync one', async () => {
    expect(await parseFlowGraph(nodes, edges)).toEqual(parseFlowGraphSync(nodes, edges));
  });
});

// ---------------------------------------------------------------------------------------------
// Properties over generated graphs

interface Generated {
  nodes: RawNode[];
  edges: RawEdge[];
  /** Key of the node generated first: the entry. */
  entry: string;
  /** Keys in generation order, which is a topological order. */
  order: string[];
}

const TYPES: NodeType[] = ['email', 'wait', 'task', 'call', 'chat_message', 'professional_network', 'branch', 'end'];

/**
 * A valid graph built forward: each new node consumes at least one open outgoing "port" of the
 * nodes before it (so it is reachable and not an entry), then opens its own ports (a branch two,
 * an end none, others one). Branch ports left open at the end go to a final end node. A branch
 * tests the previous email only when every path to it passed an email node.
 */
const validGraph: fc.Arbitrary<Generated> = fc
  .record({
    count: fc.integer({ min: 1, max: 40 }),
    types: fc.array(fc.constantFrom(...TYPES), { minLength: 40, maxLength: 40 }),
    picks: fc.array(fc.array(fc.nat(), { minLength: 1, maxLength: 3 }), { minLength: 40, maxLength: 40 }),
    conditions: fc.array(fc.constantFrom('opened', 'clicked', 'replied'), { minLength: 40, maxLength: 40 }),
    keySuffix: fc.stringMatching(/^[A-Za-z0-9_-]{0,8}$/),
    nodeSeed: fc.nat(),
    edgeSeed: fc.nat(),
  })
  .map(({ count, types, picks, conditions, keySuffix, nodeSeed, edgeSeed }) => {
    type Port = { from: string; when?: boolean; emailSeen: boolean; branch: boolean };
    const nodes: RawNode[] = [];
    const edges: RawEdge[] = [];
    const order: string[] = [];
    let ports: Port[] = [];
    const make = (i: number, type: NodeType, emailSeen: boolean): RawNode => {
      const key = `n${i}${keySuffix}`.slice(0, 64);
      switch (type) {
        case 'email':
          return email(key);
        case 'wait':
          return wait(key, 1 + (i % 1000));
        case 'branch':
          return emailSeen ? branch(key, conditions[i], 0) : branch(key, { field: 'country', op: 'eq', value: 'FR' }, 0);
        case 'end':
          return end(key);
        default:
          return task(key, type);
      }
    };
    for (let i = 0; i < count; i++) {
      let type = types[i]!;
      let emailSeen = false;
      if (i > 0) {
        if (ports.length === 0) break;
        // Consume 1..3 distinct ports; all the ports of a branch in the mix are not required.
        const chosen = new Set(picks[i]!.map((p) => p % ports.length));
        const consumed = [...chosen].map((c) => ports[c]!);
        ports = ports.filter((_, idx) => !chosen.has(idx));
        emailSeen = consumed.every((p) => p.emailSeen);
        const key = `n${i}${keySuffix}`.slice(0, 64);
        for (const p of consumed) edges.push(p.when === undefined ? { from: p.from, to: key } : { from: p.from, to: key, when: p.when });
      }
      if (i === count - 1 && type === 'branch') type = 'end';
      const node = make(i, type, emailSeen);
      nodes.push(node);
      order.push(node.key);
      const seen = emailSeen || type === 'email';
      if (type === 'branch') ports.push({ from: node.key, when: true, emailSeen: seen, branch: true }, { from: node.key, when: false, emailSeen: seen, branch: true });
      else if (type !== 'end') ports.push({ from: node.key, emailSeen: seen, branch: false });
    }
    const open = ports.filter((p) => p.branch);
    if (open.length) {
      const key = `last${keySuffix}`;
      nodes.push(end(key));
      order.push(key);
      for (const p of open) edges.push({ from: p.from, to: key, when: p.when });
    }
    return { nodes: shuffle(nodes, nodeSeed), edges: shuffle(edges, edgeSeed), entry: order[0]!, order };
  });

function shuffle<T>(items: T[], seed: number): T[] {
  const out = [...items];
  let s = seed || 1;
  for (let i = out.length - 1; i > 0; i--) {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    const j = s % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** Keys reachable from `from` (inclusive) over the raw edges. */
function descendants(edges: RawEdge[], from: string): Set<string> {
  const seen = new Set([from]);
  const queue = [from];
  while (queue.length) {
    const u = queue.shift()!;
    for (const e of edges) if (e.from === u && !seen.has(e.to as string)) seen.add(e.to as string), queue.push(e.to as string);
  }
  return seen;
}

describe('properties', () => {
  test('the generator covers the shapes the properties rely on', () => {
    const samples = fc.sample(validGraph, { numRuns: 500, seed: 42 });
    const count = (pred: (g: Generated) => boolean) => samples.filter(pred).length;
    const incoming = (g: Generated) => new Map(g.nodes.map((n) => [n.key, g.edges.filter((e) => e.to === n.key).length]));
    const cond = (n: RawNode) => (n.config as { condition?: unknown }).condition;
    expect(count((g) => g.nodes.length >= 15)).toBeGreaterThan(50);
    expect(count((g) => g.nodes.some((n) => n.type === 'branch' && typeof cond(n) === 'string'))).toBeGreaterThan(50);
    expect(count((g) => g.nodes.some((n) => n.type === 'branch' && typeof cond(n) === 'object'))).toBeGreaterThan(50);
    expect(count((g) => [...incoming(g).values()].some((c) => c >= 2))).toBeGreaterThan(50);
    expect(count((g) => g.nodes.some((n) => n.type !== 'end' && n.type !== 'branch' && !g.edges.some((e) => e.from === n.key)))).toBeGreaterThan(50);
  });

  test('every generated valid graph parses, keeps its parts and walks to completion', () => {
    fc.assert(
      fc.property(validGraph, fc.array(fc.boolean(), { minLength: 50, maxLength: 50 }), (g, outcomes) => {
        const graph = parseFlowGraphSync(g.nodes, g.edges);
        expect(graph.entry).toBe(g.entry);
        expect(graph.nodes.map((n) => n.key)).toEqual(g.nodes.map((n) => n.key));
        expect(graph.edges).toHaveLength(g.edges.length);
        // graphOrder is a topological order of all nodes.
        const order = graphOrder(graph).map((n) => n.key);
        expect([...order].sort()).toEqual([...g.order].sort());
        const position = new Map(order.map((k, i) => [k, i]));
        for (const e of graph.edges) expect(position.get(e.from)!).toBeLessThan(position.get(e.to)!);
        // A walk from the entry completes within as many steps as there are nodes.
        let node = entryNode(graph) as FlowGraph['nodes'][number] | undefined;
        let steps = 0;
        while (node) {
          node = nextNode(graph, node.key, node.type === 'branch' ? outcomes[steps % outcomes.length] : undefined);
          steps++;
          expect(steps).toBeLessThanOrEqual(graph.nodes.length);
        }
      }),
      { numRuns: 300 },
    );
  });

  test('a back edge is refused with the cycle through the nodes it joins', () => {
    fc.assert(
      fc.property(validGraph, fc.nat(), fc.nat(), (g, a, b) => {
        // u gets an edge back to v, one of its ancestors (or itself: a self-loop).
        const candidates = g.nodes.filter((n) => n.type !== 'end' && n.type !== 'branch');
        fc.pre(candidates.length > 0);
        const u = candidates[a % candidates.length]!.key;
        const ancestors = g.order.filter((k) => descendants(g.edges, k).has(u));
        const v = ancestors[b % ancestors.length]!;
        const edges = g.edges.filter((e) => e.from !== u);
        edges.push({ from: u, to: v });
        const index = edges.length - 1;
        const issues = issuesOf(g.nodes, edges);
        if (u === v) {
          expect(issues).toContainEqual({ field: `edges[${index}].to`, message: `node '${u}': an edge cannot lead from a node to itself` });
        } else {
          const cycles = issues.filter((i) => i.message.includes('closes a cycle'));
          expect(cycles.length).toBeGreaterThan(0);
          for (const c of cycles) {
            const loop = c.message.split('closes a cycle: ')[1]!.split(' -> ');
            expect(loop).toEqual(expect.arrayContaining([u, v]));
          }
        }
      }),
      { numRuns: 300 },
    );
  });

  test('a duplicated key is refused on the later node, naming the key and the first node', () => {
    fc.assert(
      fc.property(validGraph, fc.nat(), fc.nat(), (g, a, b) => {
        fc.pre(g.nodes.length > 1);
        const i = a % g.nodes.length;
        let j = b % g.nodes.length;
        if (j === i) j = (j + 1) % g.nodes.length;
        const [first, later] = i < j ? [i, j] : [j, i];
        const nodes = g.nodes.map((n, idx) => (idx === later ? { ...n, key: g.nodes[first]!.key } : n));
        expect(issuesOf(nodes, g.edges)).toContainEqual({
          field: `nodes[${later}].key`,
          message: `node '${g.nodes[first]!.key}': key already used by nodes[${first}]`,
        });
      }),
      { numRuns: 200 },
    );
  });

  test('an edge whose target is dropped or unknown is refused naming that edge', () => {
    fc.assert(
      fc.property(validGraph, fc.nat(), fc.boolean(), (g, a, drop) => {
        fc.pre(g.edges.length > 0);
        const k = a % g.edges.length;
        const edges = g.edges.map((e, idx) => {
          if (idx !== k) return e;
          const { to: _to, ...rest } = e;
          return drop ? rest : { ...rest, to: 'missing' };
        });
        expect(issuesOf(g.nodes, edges)).toContainEqual({
          field: `edges[${k}].to`,
          message: drop ? 'is required: a node key' : "no node has the key 'missing'",
        });
      }),
      { numRuns: 200 },
    );
  });

  test('unknown properties anywhere in a node are refused and named', () => {
    fc.assert(
      fc.property(validGraph, fc.nat(), fc.stringMatching(/^[a-z_]{1,12}$/), fc.boolean(), (g, a, prop, inConfig) => {
        const i = a % g.nodes.length;
        const node = g.nodes[i]!;
        const known = inConfig ? Object.keys((node.config ?? {}) as object) : ['key', 'type', 'label', 'config', 'id'];
        fc.pre(!known.includes(prop));
        const changed = inConfig ? { ...node, config: { ...(node.config as object), [prop]: 1 } } : { ...node, [prop]: 1 };
        const nodes = g.nodes.map((n, idx) => (idx === i ? changed : n));
        const issues = issuesOf(nodes, g.edges);
        const field = inConfig ? `nodes[${i}].config.${prop}` : `nodes[${i}].${prop}`;
        expect(issues).toContainEqual({ field, message: expect.stringContaining(`node '${node.key}'`) });
      }),
      { numRuns: 200 },
    );
  });
});
