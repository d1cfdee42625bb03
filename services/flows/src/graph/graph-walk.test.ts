import { parseFlowGraphSync } from './flow-graph';
import { entryNode, graphOrder, nextNode } from './graph-walk';
import { sample } from '../testing/graph-fixtures';

describe('engine helpers', () => {
  const graph = parseFlowGraphSync(sample().nodes, sample().edges);

  test('entryNode and nextNode walk the graph; a node without an outgoing edge completes', () => {
    expect(entryNode(graph).key).toBe('intro');
    expect(nextNode(graph, 'intro')?.key).toBe('pause');
    expect(nextNode(graph, 'opened', true)?.key).toBe('follow_up');
    expect(nextNode(graph, 'opened', false)?.key).toBe('call');
    expect(nextNode(graph, 'call')).toBeUndefined();
    expect(nextNode(graph, 'done')).toBeUndefined();
  });

  test('misuse throws instead of guessing a path', () => {
    expect(() => nextNode(graph, 'opened')).toThrow('needs an outcome');
    expect(() => nextNode(graph, 'intro', true)).toThrow('not a branch');
    expect(() => nextNode(graph, 'gone')).toThrow("no node 'gone'");
  });

  test('graphOrder is topological and follows the author order among ready nodes', () => {
    expect(graphOrder(graph).map((n) => n.key)).toEqual(['intro', 'pause', 'opened', 'follow_up', 'call', 'done']);
    // The same graph listed in another order: still topological, ties broken by listing order.
    const { nodes, edges } = sample();
    const shuffled = parseFlowGraphSync([nodes[5], nodes[4], nodes[3], nodes[2], nodes[1], nodes[0]], edges);
    expect(graphOrder(shuffled).map((n) => n.key)).toEqual(['intro', 'pause', 'opened', 'call', 'follow_up', 'done']);
  });
});
