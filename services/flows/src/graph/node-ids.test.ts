import { parseFlowGraphSync } from './flow-graph';
import { reconcileNodeIds } from './node-ids';
import { sample } from '../testing/graph-fixtures';

describe('node ids across edits', () => {
  const graph = parseFlowGraphSync(sample().nodes, sample().edges);

  test('reconcileNodeIds keeps ids by key, mints new ones, lists removed and retyped nodes', () => {
    let n = 0;
    const newId = () => `new-${++n}`;
    const plan = reconcileNodeIds(
      [
        { id: 'id-intro', key: 'intro', type: 'email' },
        { id: 'id-pause', key: 'pause', type: 'task' },
        { id: 'id-old', key: 'old', type: 'wait' },
        { id: 'id-done', key: 'done' },
      ],
      graph,
      newId,
    );
    expect(plan.nodes).toEqual([
      { key: 'intro', id: 'id-intro', isNew: false },
      { key: 'pause', id: 'id-pause', isNew: false },
      { key: 'opened', id: 'new-1', isNew: true },
      { key: 'follow_up', id: 'new-2', isNew: true },
      { key: 'call', id: 'new-3', isNew: true },
      { key: 'done', id: 'id-done', isNew: false },
    ]);
    expect(plan.idByKey.get('opened')).toBe('new-1');
    expect(plan.removed).toEqual([{ id: 'id-old', key: 'old', type: 'wait' }]);
    expect(plan.retyped).toEqual([{ id: 'id-pause', key: 'pause', from: 'task', to: 'wait' }]);
  });

  test('reconcileNodeIds refuses broken invariants', () => {
    expect(() => reconcileNodeIds([{ id: '1', key: 'a' }, { id: '2', key: 'a' }], graph, () => 'x')).toThrow('repeat the key');
    expect(() => reconcileNodeIds([{ id: '1', key: 'intro' }], graph, () => '1')).toThrow('already in use');
  });
});
