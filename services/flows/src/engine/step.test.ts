import { CrmError } from '@crm/kit';
import { loadFlow } from './runnable-flow';
import { CHAIN_LIMIT, type EnrollmentState, type StepEffects, enterFlow, newEnrollmentState, runDueSteps, stepKey } from './step';

/**
 * The step state machine with an injected clock: every node type, its waits and its failures, and
 * the keys of its side effects. The effects are recorded in memory here; the service's integration
 * tests run the same steps against the real messaging, activities and people services.
 */

const WS = '0190a0e0-0000-7000-8000-000000000001';
const T0 = new Date('2026-03-02T10:00:00.000Z'); // a Monday
let ids = 0;
const nodeId = () => `0190a0e0-0000-7000-8000-${String(++ids).padStart(12, '0')}`;

function flowOf(nodes: { key: string; type: string; config?: unknown; label?: string }[], edges: { from: string; to: string; when?: boolean }[], schedule?: unknown) {
  return loadFlow({
    workspace_id: WS,
    id: '0190a0e0-0000-7000-8000-0000000000f1',
    name: 'Flow',
    status: 'active',
    owner_id: null,
    schedule: schedule ?? null,
    nodes: nodes.map((n) => ({ id: nodeId(), label: n.label ?? null, config: n.config ?? {}, ...n })),
    edges,
    updated_at: T0,
  });
}

const chain = (...nodes: { key: string; type: string; config?: unknown }[]) =>
  flowOf(
    nodes,
    nodes.slice(1).map((n, i) => ({ from: nodes[i]!.key, to: n.key })),
  );

const email = (key: string) => ({ key, type: 'email', config: { subject: 'Hi', body: '<p>Hi</p>' } });
const wait = (key: string, seconds: number) => ({ key, type: 'wait', config: { duration_seconds: seconds } });

function enrollment(): EnrollmentState {
  return newEnrollmentState({
    workspaceId: WS,
    id: '0190a0e0-0000-7000-8000-0000000000e1',
    flowId: '0190a0e0-0000-7000-8000-0000000000f1',
    contactId: '0190a0e0-0000-7000-8000-0000000000c1',
  });
}

interface Recorded {
  sends: { key: string; node: string; replyTo: string | null }[];
  tasks: { key: string; node: string; dueAt: string | null }[];
}

function effects(overrides: Partial<StepEffects> = {}): StepEffects & { recorded: Recorded } {
  const recorded: Recorded = { sends: [], tasks: [] };
  let n = 0;
  return {
    recorded,
    async queueSend(e, _flow, node, key) {
      recorded.sends.push({ key, node: node.key, replyTo: e.lastSentEmailId });
      return { sentEmailId: `0190a0e0-0000-7000-8000-5e00000000${String(++n).padStart(2, '0')}` };
    },
    async createTask(_e, _flow, node, key, dueAt) {
      recorded.tasks.push({ key, node: node.key, dueAt: dueAt?.toISOString() ?? null });
      return { taskId: `0190a0e0-0000-7000-8000-7a00000000${String(++n).padStart(2, '0')}`, completed: false };
    },
    async contact() {
      return { first_name: 'Ada', country: 'PT', priority: 3 };
    },
    async hasSignal() {
      return false;
    },
    ...overrides,
  };
}

const at = (seconds: number) => new Date(T0.getTime() + seconds * 1_000);

describe('entering a flow', () => {
  test('starts at the entry node, due now, visited once', () => {
    const flow = chain(email('a'), wait('b', 60));
    const entered = enterFlow(flow, enrollment(), T0);
    const a = flow.idByKey.get('a')!;
    expect(entered).toMatchObject({ nextRunAt: T0, steps: [] });
    expect(entered.state).toMatchObject({ currentNodeId: a, visits: { [a]: 1 } });
    expect(entered.end).toBeUndefined();
  });

  test('a wait at the entry schedules its end; an end at the entry completes at once', () => {
    expect(enterFlow(chain(wait('w', 90), email('e')), enrollment(), T0).nextRunAt).toEqual(at(90));
    const done = enterFlow(chain({ key: 'stop', type: 'end' }), enrollment(), T0);
    expect(done.end).toEqual({ status: 'completed' });
    expect(done.steps.map((s) => s.outcome)).toEqual(['completed']);
  });
});

describe('running due steps', () => {
  test('email → wait → email: queues, waits its full duration, then queues the follow-up in the same thread', async () => {
    const flow = chain(email('first'), wait('pause', 600), email('second'));
    const fx = effects();
    let state = enterFlow(flow, enrollment(), T0).state;

    const one = await runDueSteps(flow, state, T0, fx);
    expect(one.steps.map((s) => [s.nodeKey, s.outcome])).toEqual([['first', 'email_queued']]);
    expect(one.nextRunAt).toEqual(at(600));
    expect(one.state.currentNodeId).toBe(flow.idByKey.get('pause'));
    expect(fx.recorded.sends).toEqual([{ key: stepKey(state.id, flow.idByKey.get('first')!, 1), node: 'first', replyTo: null }]);
    state = one.state;

    const two = await runDueSteps(flow, state, at(600), fx);
    expect(two.steps.map((s) => [s.nodeKey, s.outcome])).toEqual([
      ['pause', 'waited'],
      ['second', 'email_queued'],
      [null, 'completed'],
    ]);
    expect(two.end).toEqual({ status: 'completed' });
    expect(two.nextRunAt).toBeNull();
    expect(fx.recorded.sends[1]).toEqual({ key: stepKey(state.id, flow.idByKey.get('second')!, 1), node: 'second', replyTo: one.state.lastSentEmailId });
  });

  test('the same step run again (a crash before its commit) asks with the same key', async () => {
    const flow = chain(email('a'), wait('w', 60));
    const state = enterFlow(flow, enrollment(), T0).state;
    const fx = effects();
    await runDueSteps(flow, state, T0, fx);
    await runDueSteps(flow, state, at(1), fx);
    expect(fx.recorded.sends).toHaveLength(2);
    expect(fx.recorded.sends[0]!.key).toBe(fx.recorded.sends[1]!.key);
  });

  test('a task step creates its task with a due date, then waits for its completion, and moves on once it ended', async () => {
    const flow = chain({ key: 'call', type: 'call', config: { title: 'Call {{first_name}}', due_in_seconds: 3_600 } }, email('after'));
    const fx = effects();
    const created = await runDueSteps(flow, enterFlow(flow, enrollment(), T0).state, T0, fx);
    expect(created.steps.map((s) => s.outcome)).toEqual(['task_created']);
    expect(created.nextRunAt).toBeNull();
    expect(created.state.waitingTaskId).toBe(created.steps[0]!.taskId);
    expect(fx.recorded.tasks).toEqual([{ key: expect.stringMatching(/:1$/), node: 'call', dueAt: at(3_600).toISOString() }]);

    // Woken while the task is still open: it waits again, creating nothing.
    const spurious = await runDueSteps(flow, created.state, at(5), fx);
    expect(spurious).toMatchObject({ nextRunAt: null, steps: [] });
    expect(fx.recorded.tasks).toHaveLength(1);

    const done = await runDueSteps(flow, { ...created.state, taskOutcome: 'completed' }, at(10), fx);
    expect(done.steps.map((s) => [s.nodeKey, s.outcome])).toEqual([
      ['call', 'task_completed'],
      ['after', 'email_queued'],
      [null, 'completed'],
    ]);
    expect(done.state.waitingTaskId).toBeNull();
  });

  test('a task found completed already (a repeat after a crash) does not wait', async () => {
    const flow = chain({ key: 't', type: 'task', config: { title: 'Research' } }, wait('w', 60));
    const fx = effects({ createTask: async () => ({ taskId: '0190a0e0-0000-7000-8000-7a0000000099', completed: true }) });
    const result = await runDueSteps(flow, enterFlow(flow, enrollment(), T0).state, T0, fx);
    expect(result.steps.map((s) => s.outcome)).toEqual(['task_created', 'task_completed']);
    expect(result.nextRunAt).toEqual(at(60));
  });

  test('a branch on an email event waits for it within its window, takes the true edge when it comes, the false edge when the window ends', async () => {
    const flow = flowOf(
      [email('send'), { key: 'opened', type: 'branch', config: { condition: 'opened', within_seconds: 3_600 } }, email('yes'), email('no')],
      [
        { from: 'send', to: 'opened' },
        { from: 'opened', to: 'yes', when: true },
        { from: 'opened', to: 'no', when: false },
      ],
    );
    let opened = false;
    const fx = effects({ hasSignal: async (_e, _sent, kind) => kind === 'opened' && opened });
    const first = await runDueSteps(flow, enterFlow(flow, enrollment(), T0).state, T0, fx);
    expect(first.steps.map((s) => s.outcome)).toEqual(['email_queued']);
    expect(first.state.branchUntil).toEqual(at(3_600));
    expect(first.nextRunAt).toEqual(at(3_600));

    const stillWaiting = await runDueSteps(flow, first.state, at(100), fx);
    expect(stillWaiting).toMatchObject({ nextRunAt: at(3_600), steps: [] });

    opened = true;
    const yes = await runDueSteps(flow, first.state, at(200), fx);
    expect(yes.steps.map((s) => [s.nodeKey, s.outcome])).toEqual([
      ['opened', 'branch_true'],
      ['yes', 'email_queued'],
      [null, 'completed'],
    ]);

    opened = false;
    const no = await runDueSteps(flow, first.state, at(3_600), fx);
    expect(no.steps.map((s) => [s.nodeKey, s.outcome])).toEqual([
      ['opened', 'branch_false'],
      ['no', 'email_queued'],
      [null, 'completed'],
    ]);
    expect(no.steps[0]!.detail).toBe('not opened within 3600 s');
  });

  test('a contact field test decides at once; a contact gone exits the enrollment', async () => {
    const flow = flowOf(
      [{ key: 'pt', type: 'branch', config: { condition: { field: 'country', op: 'eq', value: 'pt' }, within_seconds: 0 } }, wait('y', 1), wait('n', 2)],
      [
        { from: 'pt', to: 'y', when: true },
        { from: 'pt', to: 'n', when: false },
      ],
    );
    const yes = await runDueSteps(flow, enterFlow(flow, enrollment(), T0).state, T0, effects());
    expect(yes.steps.map((s) => s.outcome)).toEqual(['branch_true']);
    const gone = await runDueSteps(flow, enterFlow(flow, enrollment(), T0).state, T0, effects({ contact: async () => undefined }));
    expect(gone.end).toEqual({ status: 'exited', exitReason: 'contact_deleted' });
  });

  test('over the send quota the step moves to the quota retry time and is never failed', async () => {
    const flow = chain(email('a'), wait('w', 60));
    const fx = effects({
      queueSend: async () => {
        throw new CrmError('send_quota_exhausted', 'quota', { retry_after_seconds: 120 });
      },
    });
    const result = await runDueSteps(flow, enterFlow(flow, enrollment(), T0).state, T0, fx);
    expect(result.end).toBeUndefined();
    expect(result.nextRunAt).toEqual(at(120));
    expect(result.steps.map((s) => s.outcome)).toEqual(['rescheduled']);
    expect(result.state.currentNodeId).toBe(flow.idByKey.get('a'));
  });

  test('a refused send fails the enrollment with the reason; a send to a contact that is gone exits it', async () => {
    const flow = chain(email('a'), wait('w', 60));
    const refused = (reason: string, field: string) => async () => {
      throw CrmError.remote('validation_failed', `${field}: refused`, [{ field, message: 'refused' }], reason);
    };
    const failed = await runDueSteps(flow, enterFlow(flow, enrollment(), T0).state, T0, effects({ queueSend: refused('suppressed', 'contact_id.email') }));
    expect(failed.end).toEqual({ status: 'failed', failureReason: 'suppressed: contact_id.email: refused' });
    const gone = await runDueSteps(flow, enterFlow(flow, enrollment(), T0).state, T0, effects({ queueSend: refused('unknown_reference', 'contact_id') }));
    expect(gone.end).toEqual({ status: 'exited', exitReason: 'contact_deleted' });
  });

  test('a peer that does not answer leaves the step to retry with a growing delay, recording nothing', async () => {
    const flow = chain(email('a'), wait('w', 60));
    const down = effects({
      queueSend: async () => {
        throw new CrmError('unavailable', 'messaging is down');
      },
    });
    let state = enterFlow(flow, enrollment(), T0).state;
    const delays: number[] = [];
    for (let i = 0; i < 4; i++) {
      const result = await runDueSteps(flow, state, T0, down);
      expect(result.steps).toEqual([]);
      delays.push(result.nextRunAt!.getTime() - T0.getTime());
      state = result.state;
    }
    expect(delays[0]).toBeGreaterThan(0);
    expect(delays[3]).toBeGreaterThan(delays[0]!);
    expect(state.retries).toBe(4);
    const recovered = await runDueSteps(flow, state, T0, effects());
    expect(recovered.state.retries).toBe(0);
  });

  test('email and task steps outside the sending schedule move to its next opening; waits do not', async () => {
    const schedule = { timezone: 'Europe/Lisbon', days: ['mon', 'tue', 'wed', 'thu', 'fri'], start: '09:00', end: '17:00' };
    const flow = flowOf([email('a'), wait('w', 60)], [{ from: 'a', to: 'w' }], schedule);
    const saturday = new Date('2026-03-07T12:00:00.000Z');
    const fx = effects();
    const result = await runDueSteps(flow, enterFlow(flow, enrollment(), saturday).state, saturday, fx);
    expect(fx.recorded.sends).toEqual([]);
    expect(result.steps.map((s) => s.outcome)).toEqual(['rescheduled']);
    expect(result.nextRunAt).toEqual(new Date('2026-03-09T09:00:00.000Z'));
    const monday = await runDueSteps(flow, result.state, result.nextRunAt!, fx);
    expect(monday.steps.map((s) => s.outcome)).toEqual(['email_queued']);
  });

  test(`a chain of steps due at once stops after ${CHAIN_LIMIT} and is due again`, async () => {
    // Tasks found done at once: nothing waits, so only the limit stops the chain.
    const nodes = Array.from({ length: CHAIN_LIMIT + 5 }, (_, i) => ({ key: `t${i}`, type: 'task', config: { title: `Step ${i}` } }));
    const flow = chain(...nodes);
    const instant = effects({ createTask: async () => ({ taskId: '0190a0e0-0000-7000-8000-7a0000000001', completed: true }) });
    const result = await runDueSteps(flow, enterFlow(flow, enrollment(), T0).state, T0, instant);
    expect(result.steps).toHaveLength(2 * CHAIN_LIMIT);
    expect(result.end).toBeUndefined();
    expect(result.nextRunAt).toEqual(T0);
    expect(result.state.currentNodeId).toBe(flow.idByKey.get(`t${CHAIN_LIMIT}`));
  });

  test('an enrollment on a node the flow no longer has fails visibly', async () => {
    const flow = chain(email('a'), wait('w', 60));
    const result = await runDueSteps(flow, { ...enrollment(), currentNodeId: '0190a0e0-0000-7000-8000-00000000dead' }, T0, effects());
    expect(result.end).toMatchObject({ status: 'failed' });
  });
});
