import { type Clock, type CrmEvent, type SqlClient, createCursorCodec, createLogger, newEvent, newId, runMigrations } from '@crm/kit';
import { sqlBackends } from '@crm/kit/testing';
import { ActivitiesEvents, MessagingEvents } from '@crm/proto';
import { createEnrollmentTriggers } from '../enrollment-triggers.consumer';
import { createEnrollments } from '../enrollments';
import { migrations } from '../migrations';
import { startOfLocalDay } from '../schedule/sending-schedule';
import { createFlowEngine } from './flow-engine';
import { type AutoReply, resumeAfter } from './out-of-office';
import { createFlowCache } from './runnable-flow';
import type { StepEffects } from './step';

/**
 * Out-of-office pause and resume on the real schema (PGlite, and Postgres when it answers) under
 * an injected clock: the consumer pauses, the engine's rounds resume, the history says both.
 */

const PARIS_WEEKDAYS = { timezone: 'Europe/Paris', days: ['mon', 'tue', 'wed', 'thu', 'fri'], start: '09:00', end: '17:00' };
/** Thursday 2 July 2026, 10:00 in Paris. */
const T0 = new Date('2026-07-02T08:00:00.000Z');
const DAY = 86_400_000;

describe('resumeAfter', () => {
  const reply = (more: Partial<AutoReply> = {}): AutoReply => ({ eventId: newId(), contactId: newId(), receivedAt: T0, utcOffsetMinutes: 120, ...more });
  const schedule = { ...PARIS_WEEKDAYS, days: [...PARIS_WEEKDAYS.days] } as Parameters<typeof resumeAfter>[1];

  test('back on a day: the day after, at the first opening of the schedule in its zone', () => {
    // Back Monday 20 July: resumes Tuesday 21 July, 09:00 in Paris.
    expect(resumeAfter(reply({ returnsOn: '2026-07-20', returnsOnText: 'de retour le lundi 20 juillet' }), schedule, 7)).toEqual({
      at: new Date('2026-07-21T07:00:00.000Z'),
      detail: 'out-of-office reply, back on 2026-07-20 ("de retour le lundi 20 juillet"); resumes 2026-07-21T07:00:00.000Z',
    });
    // Back Friday 17 July: the day after is a Saturday, so Monday 20 July at 09:00.
    expect(resumeAfter(reply({ returnsOn: '2026-07-17' }), schedule, 7).at).toEqual(new Date('2026-07-20T07:00:00.000Z'));
  });

  test("without a schedule: the day after's midnight in the reply's own offset", () => {
    expect(resumeAfter(reply({ returnsOn: '2026-07-20' }), null, 7).at).toEqual(new Date('2026-07-20T22:00:00.000Z'));
    expect(resumeAfter(reply({ returnsOn: '2026-07-20', utcOffsetMinutes: -420 }), null, 7).at).toEqual(new Date('2026-07-21T07:00:00.000Z'));
  });

  test('no day read (or none that is a date): the default after the reply, in the schedule', () => {
    expect(resumeAfter(reply(), schedule, 7)).toEqual({
      at: new Date('2026-07-09T08:00:00.000Z'),
      detail: 'out-of-office reply, no return date read: 7 days after the reply; resumes 2026-07-09T08:00:00.000Z',
    });
    // Three days after Thursday 10:00 is Sunday: Monday 09:00.
    expect(resumeAfter(reply({ returnsOn: '2026-02-30' }), schedule, 3).at).toEqual(new Date('2026-07-06T07:00:00.000Z'));
    expect(resumeAfter(reply(), null, 7).at).toEqual(new Date(T0.getTime() + 7 * DAY));
  });
});

describe.each(sqlBackends())('out of office on $name', (backend) => {
  let db: SqlClient;
  let drop: () => Promise<void>;
  let now = T0;
  const clock: Clock = { now: () => now, sleep: async () => undefined };
  const log = createLogger('test', 'silent');
  const workspaceId = newId();
  const sends: string[] = [];
  const effects: StepEffects = {
    async queueSend(_e, _flow, node) {
      sends.push(node.key);
      return { sentEmailId: newId() };
    },
    async createTask() {
      return { taskId: newId(), completed: false };
    },
    async contact() {
      return {};
    },
    async hasSignal() {
      return false;
    },
  };
  let handle: (event: CrmEvent) => Promise<void>;
  let engine: ReturnType<typeof createFlowEngine>;
  let enrollments: ReturnType<typeof createEnrollments>;

  beforeAll(async () => {
    ({ db, drop } = await backend.open('t_flows_ooo'));
    await runMigrations(db, migrations);
    const flows = createFlowCache();
    engine = createFlowEngine({ db, flows, effects: () => effects, clock, log, afterCommit: () => undefined, batchSize: 20, pollMs: 1_000 });
    handle = createEnrollmentTriggers({ db, log, afterCommit: () => undefined, clock, onWake: () => undefined, onExits: () => undefined, outOfOfficeDefaultDays: 7 });
    enrollments = createEnrollments({
      db,
      cursors: createCursorCodec('a-test-secret-of-32-bytes-at-least!!'),
      afterCommit: () => undefined,
      clock,
      flows,
      people: {} as never,
      messaging: {} as never,
      onEnrolled: () => undefined,
      onExits: () => undefined,
    });
  });
  afterAll(async () => drop());

  type Node = { key: string; type: string; config: Record<string, unknown> };
  /** A flow of these nodes in a line, straight into the tables; the ids of its nodes by key. */
  async function flow(nodes: Node[], schedule: unknown = null): Promise<{ id: string; node: Record<string, string> }> {
    const id = newId();
    const stored = nodes.map((n) => ({ id: newId(), label: null, ...n }));
    const edges = nodes.slice(1).map((n, i) => ({ from: nodes[i]!.key, to: n.key }));
    await db.query(
      `INSERT INTO flows (workspace_id, id, name, status, schedule, nodes, edges, created_at, updated_at)
       VALUES ($1::uuid, $2::uuid, 'Outreach', 'active', $3::jsonb, $4::jsonb, $5::jsonb, $6, $6)`,
      [workspaceId, id, schedule === null ? null : JSON.stringify(schedule), JSON.stringify(stored), JSON.stringify(edges), T0.toISOString()],
    );
    for (const [position, n] of stored.entries()) {
      await db.query(
        `INSERT INTO flow_nodes (workspace_id, id, flow_id, key, type, config, position, created_at, updated_at)
         VALUES ($1::uuid, $2::uuid, $3::uuid, $4, $5, $6::jsonb, $7, $8, $8)`,
        [workspaceId, n.id, id, n.key, n.type, JSON.stringify(n.config), position, T0.toISOString()],
      );
    }
    return { id, node: Object.fromEntries(stored.map((n) => [n.key, n.id])) };
  }

  /** An enrollment standing on `key`, entered once, due at `due`. */
  async function enrolled(f: { id: string; node: Record<string, string> }, contactId: string, key: string, due: Date | null, status = 'active', more: Record<string, unknown> = {}) {
    const id = newId();
    await db.query(
      `INSERT INTO enrollments (workspace_id, id, flow_id, contact_id, status, exit_reason, current_node_id, next_run_at, visits, waiting_task_id,
                                enrolled_at, started_at, created_at, updated_at)
       VALUES ($1::uuid, $2::uuid, $3::uuid, $4::uuid, $5, $6, $7::uuid, $8, $9::jsonb, $10::uuid, $11, $11, $11, $11)`,
      [workspaceId, id, f.id, contactId, status, status === 'exited' ? 'replied' : null, f.node[key], due?.toISOString() ?? null,
        JSON.stringify({ [f.node[key]!]: 1 }), (more.waiting_task_id as string | undefined) ?? null, T0.toISOString()],
    );
    return id;
  }

  const row = async (id: string) =>
    (await db.query<{ status: string; next_run_at: Date | null; resume_at: Date | null; held_next_run_at: Date | null }>(
      `SELECT status, next_run_at, resume_at, held_next_run_at FROM enrollments WHERE workspace_id = $1::uuid AND id = $2::uuid`,
      [workspaceId, id],
    )).rows[0]!;
  const iso = (value: Date | string | null) => (value === null ? null : new Date(value).toISOString());
  const history = async (id: string) =>
    (await db.query<{ node_key: string | null; outcome: string; detail: string | null }>(
      `SELECT node_key, outcome, detail FROM enrollment_steps WHERE workspace_id = $1::uuid AND enrollment_id = $2::uuid ORDER BY occurred_at, id`,
      [workspaceId, id],
    )).rows;
  const autoReply = (contactId: string, data: { returns_on?: string; returns_on_text?: string; received_at?: Date }) =>
    newEvent(MessagingEvents.AutoReplyReceived, workspaceId, {
      sent_email_id: newId(),
      contact_id: contactId,
      received_at: (data.received_at ?? now).toISOString(),
      utc_offset_minutes: 120,
      ...(data.returns_on ? { returns_on: data.returns_on } : {}),
      ...(data.returns_on_text ? { returns_on_text: data.returns_on_text } : {}),
    });
  /** Runs the engine's rounds at `at` until one finds nothing to do. */
  async function runAt(at: Date) {
    now = at;
    while ((await engine.round()) > 0);
  }

  const emailWaitEmail = (waitSeconds = 3 * 86_400): Node[] => [
    { key: 'hello', type: 'email', config: { subject: 'Hi', body: '<p>Hi</p>' } },
    { key: 'pause', type: 'wait', config: { duration_seconds: waitSeconds } },
    { key: 'again', type: 'email', config: { subject: 'Again', body: '<p>Again</p>' } },
  ];

  test('a reply naming a day pauses every active enrollment of the contact until the day after, in each flow’s schedule, and the engine resumes each then', async () => {
    now = T0;
    const contactId = newId();
    const scheduled = await flow(emailWaitEmail(), PARIS_WEEKDAYS);
    const anytime = await flow([{ key: 'idle', type: 'wait', config: { duration_seconds: 86_400 } }, { key: 'bye', type: 'end', config: {} }]);
    const held = await flow([{ key: 'idle', type: 'wait', config: { duration_seconds: 86_400 } }]);
    const ended = await flow([{ key: 'idle', type: 'wait', config: { duration_seconds: 86_400 } }]);
    const a = await enrolled(scheduled, contactId, 'hello', T0);
    const b = await enrolled(anytime, contactId, 'idle', new Date(T0.getTime() + DAY));
    const byHand = await enrolled(held, contactId, 'idle', new Date(T0.getTime() + DAY), 'paused');
    const exited = await enrolled(ended, contactId, 'idle', null, 'exited');
    const stranger = await enrolled(anytime, newId(), 'idle', new Date(T0.getTime() + DAY));
    await runAt(T0);
    expect(sends.filter((k) => k === 'hello')).toHaveLength(1);
    expect(iso((await row(a)).next_run_at)).toBe('2026-07-05T08:00:00.000Z');

    const reply = autoReply(contactId, { returns_on: '2026-07-20', returns_on_text: 'de retour le lundi 20 juillet' });
    await handle(reply);
    // Tuesday 21 July at 09:00 in Paris for the scheduled flow; the day's midnight at +02:00 for the other.
    expect(await row(a)).toMatchObject({ status: 'paused', resume_at: new Date('2026-07-21T07:00:00.000Z'), held_next_run_at: new Date('2026-07-05T08:00:00.000Z') });
    expect(iso((await row(a)).next_run_at)).toBe('2026-07-21T07:00:00.000Z');
    expect(await row(b)).toMatchObject({ status: 'paused', next_run_at: new Date('2026-07-20T22:00:00.000Z') });
    expect((await history(a)).at(-1)).toEqual({
      node_key: 'pause',
      outcome: 'paused',
      detail: 'out-of-office reply, back on 2026-07-20 ("de retour le lundi 20 juillet"); resumes 2026-07-21T07:00:00.000Z',
    });
    // Paused by hand, ended, another contact's: untouched.
    expect(await row(byHand)).toMatchObject({ status: 'paused', resume_at: null, next_run_at: new Date(T0.getTime() + DAY) });
    expect(await history(byHand)).toEqual([]);
    expect(await row(exited)).toMatchObject({ status: 'exited', resume_at: null });
    expect(await row(stranger)).toMatchObject({ status: 'active', resume_at: null });

    // The same event again changes nothing.
    const before = { a: await row(a), steps: (await history(a)).length };
    await handle(reply);
    expect(await row(a)).toEqual(before.a);
    expect(await history(a)).toHaveLength(before.steps);

    // The wait would have ended on the 5th; nothing moves while the pause holds.
    await runAt(new Date('2026-07-20T21:59:59.000Z'));
    expect(await row(a)).toMatchObject({ status: 'paused' });
    expect(await row(b)).toMatchObject({ status: 'paused' });
    await runAt(new Date('2026-07-20T22:00:00.000Z'));
    // Its own wait ended during the pause: due at the resume, it ran in the same round, to the end.
    expect(await row(b)).toMatchObject({ status: 'completed', resume_at: null, held_next_run_at: null });
    expect((await history(b)).map((s) => [s.node_key, s.outcome])).toEqual([
      ['idle', 'paused'],
      ['idle', 'resumed'],
      ['idle', 'waited'],
      ['bye', 'completed'],
    ]);
    await runAt(new Date('2026-07-21T06:59:59.000Z'));
    expect(await row(a)).toMatchObject({ status: 'paused' });
    expect(sends.filter((k) => k === 'again')).toHaveLength(0);
    await runAt(new Date('2026-07-21T07:00:00.000Z'));
    expect((await history(a)).map((s) => [s.node_key, s.outcome])).toEqual([
      ['hello', 'email_queued'],
      ['pause', 'paused'],
      ['pause', 'resumed'],
      ['pause', 'waited'],
      ['again', 'email_queued'],
      [null, 'completed'],
    ]);
    expect((await history(a))[2]!.detail).toBe('out-of-office pause over (resume was due 2026-07-21T07:00:00.000Z)');
    expect(sends.filter((k) => k === 'again')).toHaveLength(1);
    expect(await row(byHand)).toMatchObject({ status: 'paused' });

    // Long after, the same event once more: the pause it made is over, and it makes no other.
    await handle(reply);
    expect((await history(a)).filter((s) => s.outcome === 'paused')).toHaveLength(1);
  });

  test('no day read: paused for the default; a later reply moves the resume later, never earlier; a wait longer than the pause is not cut short', async () => {
    now = T0;
    const contactId = newId();
    const scheduled = await flow(emailWaitEmail(30 * 86_400), PARIS_WEEKDAYS);
    const e = await enrolled(scheduled, contactId, 'pause', new Date(T0.getTime() + 30 * DAY));
    await handle(autoReply(contactId, {}));
    expect(await row(e)).toMatchObject({ status: 'paused', next_run_at: new Date('2026-07-09T08:00:00.000Z') });
    expect((await history(e)).at(-1)!.detail).toBe('out-of-office reply, no return date read: 7 days after the reply; resumes 2026-07-09T08:00:00.000Z');

    // Back on Sunday 5 July: sooner than the pause already held, so nothing changes.
    await handle(autoReply(contactId, { returns_on: '2026-07-05' }));
    expect(await row(e)).toMatchObject({ next_run_at: new Date('2026-07-09T08:00:00.000Z') });
    // Back on Tuesday 14 July: the resume moves to Wednesday 15 July, 09:00 in Paris.
    await handle(autoReply(contactId, { returns_on: '2026-07-14' }));
    expect(await row(e)).toMatchObject({ status: 'paused', next_run_at: new Date('2026-07-15T07:00:00.000Z'), held_next_run_at: new Date(T0.getTime() + 30 * DAY) });
    expect((await history(e)).map((s) => s.outcome)).toEqual(['paused', 'paused']);
    expect((await history(e)).at(-1)!.detail).toMatch(/back on 2026-07-14; resumes 2026-07-15T07:00:00.000Z \(later than the pause before\)$/);

    await runAt(new Date('2026-07-15T07:00:00.000Z'));
    // Active again, and its wait still ends when it was to.
    expect(await row(e)).toMatchObject({ status: 'active', resume_at: null, next_run_at: new Date(T0.getTime() + 30 * DAY) });
    expect((await history(e)).map((s) => s.outcome)).toEqual(['paused', 'paused', 'resumed']);
  });

  test('a reply that is not automatic still exits a paused enrollment, and the resume never brings it back', async () => {
    now = T0;
    const contactId = newId();
    const f = await flow(emailWaitEmail());
    const e = await enrolled(f, contactId, 'pause', new Date(T0.getTime() + DAY));
    await handle(autoReply(contactId, { returns_on: '2026-07-06' }));
    expect(await row(e)).toMatchObject({ status: 'paused' });
    now = new Date(T0.getTime() + 3_600_000);
    await handle(
      newEvent(MessagingEvents.EmailEventRecorded, workspaceId, {
        email_event_id: newId(),
        sent_email_id: newId(),
        contact_id: contactId,
        event_type: 'reply',
        occurred_at: now.toISOString(),
        is_bot: false,
        flow: { flow_id: f.id, node_id: f.node.hello!, enrollment_id: e },
      }),
    );
    expect(await row(e)).toMatchObject({ status: 'exited', resume_at: null, held_next_run_at: null, next_run_at: null });
    await runAt(new Date('2026-07-10T00:00:00.000Z'));
    expect(await row(e)).toMatchObject({ status: 'exited' });
    expect((await history(e)).map((s) => s.outcome)).toEqual(['paused', 'exited']);
  });

  test('PATCH on an enrollment paused this way: active resumes it now, paused holds it until a person resumes it', async () => {
    now = T0;
    const contactId = newId();
    const one = await flow(emailWaitEmail());
    const two = await flow(emailWaitEmail());
    const resumedByHand = await enrolled(one, contactId, 'pause', new Date(T0.getTime() + DAY));
    const heldByHand = await enrolled(two, contactId, 'pause', new Date(T0.getTime() + DAY));
    await handle(autoReply(contactId, { returns_on: '2026-07-10' }));
    now = new Date(T0.getTime() + 3_600_000);
    const ctx = { workspaceId };
    const resumed = await enrollments.store.update(ctx, resumedByHand, { status: 'active' });
    expect(resumed).toMatchObject({ status: 'active', next_run_at: new Date(T0.getTime() + DAY).toISOString() });
    expect(await row(resumedByHand)).toMatchObject({ resume_at: null, held_next_run_at: null });
    expect((await history(resumedByHand)).map((s) => [s.outcome, s.detail])).toEqual([
      ['paused', expect.stringContaining('back on 2026-07-10')],
      ['resumed', 'resumed by hand before its out-of-office pause was over'],
    ]);

    const held = await enrollments.store.update(ctx, heldByHand, { status: 'paused' });
    expect(held).toMatchObject({ status: 'paused', next_run_at: new Date(T0.getTime() + DAY).toISOString() });
    await runAt(new Date('2026-07-12T00:00:00.000Z'));
    expect(await row(heldByHand)).toMatchObject({ status: 'paused', resume_at: null });
    expect((await history(heldByHand)).map((s) => s.outcome)).toEqual(['paused', 'paused']);
  });

  test('a task completed during the pause is kept for the resume, which then moves on at once', async () => {
    now = T0;
    const contactId = newId();
    const taskId = newId();
    const f = await flow([
      { key: 'call', type: 'call', config: { title: 'Call' } },
      { key: 'after', type: 'email', config: { subject: 'After', body: '<p>After</p>' } },
    ]);
    const e = await enrolled(f, contactId, 'call', null, 'active', { waiting_task_id: taskId });
    await handle(autoReply(contactId, { returns_on: '2026-07-06' }));
    const resumeAt = startOfLocalDay('UTC', '2026-07-06').getTime() + DAY - 120 * 60_000;
    expect(await row(e)).toMatchObject({ status: 'paused', next_run_at: new Date(resumeAt), held_next_run_at: null });
    now = new Date(T0.getTime() + DAY);
    await handle(
      newEvent(ActivitiesEvents.TaskCompleted, workspaceId, {
        task_id: taskId,
        flow_enrollment_id: e,
        completed_at: now.toISOString(),
      } as never),
    );
    // Still shown resuming at the pause's end; the completion waits in the step's own due time.
    expect(await row(e)).toMatchObject({ status: 'paused', next_run_at: new Date(resumeAt), held_next_run_at: now });
    const sent = sends.filter((k) => k === 'after').length;
    await runAt(new Date(resumeAt));
    expect((await history(e)).map((s) => [s.node_key, s.outcome])).toEqual([
      ['call', 'paused'],
      ['call', 'resumed'],
      ['call', 'task_completed'],
      ['after', 'email_queued'],
      [null, 'completed'],
    ]);
    expect(sends.filter((k) => k === 'after').length).toBe(sent + 1);
  });
});
