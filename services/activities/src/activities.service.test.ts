import * as grpc from '@grpc/grpc-js';
import {
  type ApiRecord,
  type CrmEvent,
  type EventBus,
  type ResourceSpec,
  type ResourceStore,
  type RunningGrpcServer,
  type SqlClient,
  CrmError,
  createCursorCodec,
  createLogger,
  createMemoryBus,
  createOutboxRelay,
  createServiceClient,
  newId,
  parseListQuery,
  runMigrations,
  searchKeys,
  startGrpcServer,
  toStruct,
  unary,
  withIdempotencyKey,
} from '@crm/kit';
import { expectEventually, sqlBackends } from '@crm/kit/testing';
import { callLogs, meetings, tasks } from '@crm/activities-contract';
import { ActivitiesEvents, loadActivities } from '@crm/proto';
import { activitiesGrpcBinding } from './activities.grpc';
import { type ActivitiesService, createActivitiesService } from './activities.service';
import { migrations } from './migrations';

const log = createLogger('test', 'silent');
// Each backend seeds and pages through a few hundred rows; a loaded CI machine needs more than 5 s.
jest.setTimeout(30_000);
const MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

type Raw = Record<string, string>;

/** Every id a list answers, page by page, checking the page invariants on the way. */
async function pageAll(store: ResourceStore, workspaceId: string, raw: Raw): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = await store.list(workspaceId, parseListQuery(store.spec, { ...raw, ...(cursor ? { cursor } : {}) }));
    expect(page.data.length).toBeLessThanOrEqual(Number(raw.limit ?? 50));
    expect(page.hasMore).toBe(page.nextCursor !== null);
    if (page.hasMore) expect(page.data.length).toBe(Number(raw.limit ?? 50));
    ids.push(...page.data.map((r) => r.id as string));
    cursor = page.nextCursor ?? undefined;
    pages++;
  } while (cursor && pages < 1_000);
  return ids;
}

const compare = (a: unknown, b: unknown): number => (a === b ? 0 : (a as string | number) < (b as string | number) ? -1 : 1);

/**
 * What a list must answer, computed in memory from the records by the rules of gateway/README.md (Lists):
 * equality filters, since inclusive / until exclusive on the time field, updated_since strictly
 * greater, q case-insensitive over the search fields, nulls last in both directions, id last in
 * the first key's direction.
 */
function oracle(spec: ResourceSpec, records: ApiRecord[], raw: Raw): string[] {
  const query = parseListQuery(spec, raw);
  const time = (v: unknown) => Date.parse(String(v));
  const rows = records.filter(
    (r) =>
      query.filters.every((f) => r[f.field] === f.value) &&
      (!query.since || time(r[spec.timeField]) >= query.since.getTime()) &&
      (!query.until || time(r[spec.timeField]) < query.until.getTime()) &&
      (!query.updatedSince || time(r.updated_at) > query.updatedSince.getTime()) &&
      (!query.q || searchKeys(spec).some((k) => String(r[k] ?? '').toLowerCase().includes(query.q!.toLowerCase()))),
  );
  const firstDir = query.sort[0]!.direction === 'asc' ? 1 : -1;
  return rows
    .sort((x, y) => {
      for (const { field, direction } of query.sort) {
        const [a, b] = [x[field], y[field]];
        if (a === null && b === null) continue;
        if (a === null) return 1;
        if (b === null) return -1;
        const c = compare(a, b);
        if (c) return direction === 'asc' ? c : -c;
      }
      return compare(x.id, y.id) * firstDir;
    })
    .map((r) => r.id as string);
}

/** Seeded randomness, so a failure reproduces. */
function seeded(seed: number) {
  return () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
}

describe.each(sqlBackends())('activities service on $name', (backend) => {
  let db: SqlClient;
  let drop: () => Promise<void>;
  let bus: EventBus;
  let relay: ReturnType<typeof createOutboxRelay>;
  let service: ActivitiesService;
  const received: CrmEvent[] = [];
  const ws = newId();
  const otherWs = newId();
  const ctx = { workspaceId: ws };

  const eventsOf = (id: unknown) => received.filter((e) => Object.values(e.data).includes(id));
  const typesOf = (id: unknown) => eventsOf(id).map((e) => e.type);
  const rejects = (promise: Promise<unknown>) => promise.then(() => undefined, (e: unknown) => e as CrmError);

  beforeAll(async () => {
    ({ db, drop } = await backend.open('t_activities'));
    expect(await runMigrations(db, migrations)).toEqual(migrations.map((m) => m.id));
    expect(await runMigrations(db, migrations)).toEqual([]);
    bus = createMemoryBus();
    await bus.subscribe({ durable: 'test', subjects: ['crm.activities.>'], handler: async (event) => void received.push(event) });
    relay = createOutboxRelay({ db, bus, pollIntervalMs: 50 });
    service = createActivitiesService({ db, cursors: createCursorCodec('a'.repeat(32)), afterCommit: () => relay.nudge() });
    relay.start();
  }, 60_000);
  afterAll(async () => {
    await relay.stop();
    await bus.close();
    await drop();
  });

  describe('tasks', () => {
    test('create applies the defaults, ignores read-only fields and keeps custom fields', async () => {
      const task = await service.tasks.create(ctx, {
        title: 'Call back',
        due_at: '2026-06-01T09:30:00+02:00',
        priority: 3,
        type: 'call',
        suggested_action: 'call',
        flow_enrollment_id: newId(),
        completed_at: '2026-01-01T00:00:00Z',
        deal_size: 1200,
      });
      expect(task).toMatchObject({
        title: 'Call back',
        status: 'open',
        priority: 3,
        due_at: '2026-06-01T07:30:00.000Z',
        type: 'call',
        suggested_action: 'call',
        flow_enrollment_id: null,
        completed_at: null,
        description: null,
        assignee_id: null,
        deal_size: 1200,
      });
      expect(task.created_at).toMatch(MS);
      expect(await service.tasks.get(ws, task.id as string)).toEqual(task);
      await expectEventually(() =>
        expect(eventsOf(task.id)).toEqual([
          expect.objectContaining({
            type: ActivitiesEvents.TaskCreated,
            workspace_id: ws,
            data: { task_id: task.id, title: 'Call back', status: 'open', type: 'call', due_at: '2026-06-01T07:30:00.000Z', created_at: task.created_at },
          }),
        ]),
      );
    });

    test('validation names every bad field; another status than open or completed is 422', async () => {
      const error = await rejects(
        service.tasks.create(ctx, { priority: 'high', assignee_id: 'me', due_at: '2026-06-01 10:00', status: 'done', type: 'fax' }),
      );
      expect(error).toBeInstanceOf(CrmError);
      expect(error).toMatchObject({ code: 'validation_failed' });
      expect(error!.details).toEqual(
        expect.arrayContaining([
          { field: 'title', message: 'is required' },
          { field: 'priority', message: 'must be an integer' },
          { field: 'assignee_id', message: 'must be a UUID' },
          { field: 'due_at', message: 'must be an RFC 3339 date-time with offset, between years 0001 and 9999 in UTC' },
          { field: 'status', message: 'must be one of open, completed' },
          { field: 'type', message: 'must be one of email, call, chat_app, professional_network, other' },
        ]),
      );
      await expect(service.tasks.create(ctx, { title: '   ' })).rejects.toMatchObject({ code: 'validation_failed', details: [{ field: 'title', message: 'must not be blank' }] });
      await expect(service.tasks.create(ctx, { title: 'x', priority: 1001 })).rejects.toMatchObject({ code: 'validation_failed' });
      const task = await service.tasks.create(ctx, { title: 'Valid' });
      for (const body of [{ status: 'archived' }, { status: null }, { title: null }, { title: '' }]) {
        await expect(service.tasks.update(ctx, task.id as string, body)).rejects.toMatchObject({ code: 'validation_failed' });
      }
      expect(await service.tasks.get(ws, task.id as string)).toEqual(task);
    });

    test('open ⇄ completed sets and clears completed_at and publishes completed and reopened', async () => {
      const contactId = newId();
      const task = await service.tasks.create(ctx, { title: 'Send deck', contact_id: contactId });
      const done = await service.tasks.update(ctx, task.id as string, { status: 'completed' });
      expect(done.status).toBe('completed');
      expect(done.completed_at).toMatch(MS);
      expect(Date.parse(done.completed_at as string)).toBeGreaterThanOrEqual(Date.parse(task.created_at as string));

      // Completing a completed task changes nothing about its completion.
      const again = await service.tasks.update(ctx, task.id as string, { status: 'completed', description: 'sent' });
      expect(again.completed_at).toBe(done.completed_at);

      const reopened = await service.tasks.update(ctx, task.id as string, { status: 'open' });
      expect(reopened).toMatchObject({ status: 'open', completed_at: null, description: 'sent' });

      await expectEventually(() =>
        expect(typesOf(task.id)).toEqual([ActivitiesEvents.TaskCreated, ActivitiesEvents.TaskCompleted, ActivitiesEvents.TaskReopened]),
      );
      const [, completedEvent, reopenedEvent] = eventsOf(task.id);
      expect(completedEvent!.data).toEqual({ task_id: task.id, title: 'Send deck', contact_id: contactId, completed_at: done.completed_at });
      expect(reopenedEvent!.data).toEqual({ task_id: task.id, contact_id: contactId, reopened_at: reopened.updated_at });
    });

    test('a task created completed has completed_at and publishes created then completed', async () => {
      const task = await service.tasks.create(ctx, { title: 'Logged after the fact', status: 'completed' });
      expect(task.completed_at).toMatch(MS);
      await expectEventually(() => expect(typesOf(task.id)).toEqual([ActivitiesEvents.TaskCreated, ActivitiesEvents.TaskCompleted]));
    });

    test('delete removes the task and publishes task.deleted', async () => {
      const task = await service.tasks.create(ctx, { title: 'Obsolete', svc_uid: 'ext-task-1' });
      await service.tasks.delete(ctx, task.id as string);
      await expect(service.tasks.get(ws, task.id as string)).rejects.toMatchObject({ code: 'not_found' });
      await expect(service.tasks.delete(ctx, task.id as string)).rejects.toMatchObject({ code: 'not_found' });
      await expectEventually(() =>
        expect(eventsOf(task.id).find((e) => e.type === ActivitiesEvents.TaskDeleted)?.data).toEqual({
          task_id: task.id,
          svc_uid: 'ext-task-1',
          status: 'open',
        }),
      );
    });

    test("another workspace's task is not found, and svc_uid is unique per workspace", async () => {
      const task = await service.tasks.create(ctx, { title: 'Private', svc_uid: 'ext-private' });
      const other = { workspaceId: otherWs };
      await expect(service.tasks.get(otherWs, task.id as string)).rejects.toMatchObject({ code: 'not_found' });
      await expect(service.tasks.update(other, task.id as string, { status: 'completed' })).rejects.toMatchObject({ code: 'not_found' });
      await expect(service.tasks.delete(other, task.id as string)).rejects.toMatchObject({ code: 'not_found' });
      expect((await service.tasks.get(ws, task.id as string)).status).toBe('open');
      await expect(service.tasks.create(ctx, { title: 'Twin', svc_uid: 'ext-private' })).rejects.toMatchObject({ code: 'conflict', details: { field: 'svc_uid' } });
      await expect(service.tasks.create(other, { title: 'Twin', svc_uid: 'ext-private' })).resolves.toBeDefined();
    });

    test('a rule that refuses a write leaves no row and no event', async () => {
      const count = async () => (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM outbox`)).rows[0]!.n;
      await expectEventually(async () => expect(await count()).toBe(0));
      const before = received.length;
      const tasksBefore = (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM tasks`)).rows[0]!.n;
      await expect(service.tasks.create(ctx, { title: ' ' })).rejects.toMatchObject({ code: 'validation_failed' });
      expect((await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM tasks`)).rows[0]!.n).toBe(tasksBefore);
      expect(await count()).toBe(0);
      expect(received.length).toBe(before);
    });
  });

  describe('flow engine tasks', () => {
    /** As the flow engine calls it: under its own idempotency key, with its name as the origin. */
    const asEngine = (key: string, run: () => Promise<ApiRecord>, fingerprint = 'step') =>
      withIdempotencyKey({ key, fingerprint, origin: 'flows' }, run).result;

    test('a task tied to an enrollment is open, read-only linked, created once per key, and its completion is published', async () => {
      const enrollment = newId();
      const assignee = newId();
      const input = { flowEnrollmentId: enrollment, fields: { title: 'Call the lead', type: 'call', status: 'completed', assignee_id: assignee } };
      const create = (key: string, ws = ctx) => asEngine(key, () => service.createEnrollmentTask(ws, input));
      const [first, second] = await Promise.all([create('node-1'), create('node-1')]);
      expect(first).toMatchObject({ flow_enrollment_id: enrollment, status: 'open', completed_at: null, type: 'call' });
      expect(second!.id).toBe(first!.id);
      expect((await create('node-1')).id).toBe(first!.id);
      const next = await create('node-2');
      expect(next.id).not.toBe(first!.id);

      // Clients can neither set nor move the link.
      const patched = await service.tasks.update(ctx, first!.id as string, { flow_enrollment_id: newId(), status: 'completed' });
      expect(patched.flow_enrollment_id).toBe(enrollment);
      await expectEventually(() =>
        expect(eventsOf(first!.id).find((e) => e.type === ActivitiesEvents.TaskCompleted)?.data).toEqual({
          task_id: first!.id,
          title: 'Call the lead',
          flow_enrollment_id: enrollment,
          assignee_id: assignee,
          completed_at: patched.completed_at,
        }),
      );
      expect(eventsOf(first!.id).filter((e) => e.type === ActivitiesEvents.TaskCreated)).toHaveLength(1);

      // A retry after the task was deleted answers what it answered first and creates nothing.
      await service.tasks.delete(ctx, next.id as string);
      expect((await create('node-2')).id).toBe(next.id);
      const linked = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM tasks WHERE flow_enrollment_id = $1`, [enrollment]);
      expect(linked.rows[0]!.n).toBe(1);
      // The same key with another request is refused, never answered with the first task.
      await expect(asEngine('node-1', () => service.createEnrollmentTask(ctx, input), 'another step')).rejects.toMatchObject({
        code: 'idempotency_key_reused',
      });
      // Keys are per workspace, and a client's Idempotency-Key of the same text is another key.
      const elsewhere = await create('node-1', { workspaceId: otherWs });
      expect(elsewhere.id).not.toBe(first!.id);
      const byClient = await withIdempotencyKey({ key: 'node-1', fingerprint: 'client' }, () => service.tasks.create(ctx, { title: 'mine' })).result;
      expect(byClient.id).not.toBe(first!.id);

      await expect(service.createEnrollmentTask(ctx, input)).rejects.toMatchObject({ code: 'invalid_request' });
      await expect(create('k'.repeat(256))).rejects.toMatchObject({ code: 'invalid_request' });
      await expect(asEngine('node-3', () => service.createEnrollmentTask(ctx, { ...input, fields: {} }))).rejects.toMatchObject({
        code: 'validation_failed',
        details: [{ field: 'title', message: 'is required' }],
      });
    });
  });

  describe('call logs', () => {
    test('duration is derived from started_at and ended_at, and mode defaults to manual', async () => {
      const log = await service.callLogs.create(ctx, {
        status: 'completed',
        outcome: 'connected',
        started_at: '2026-05-15T10:00:00.000Z',
        ended_at: '2026-05-15T10:01:30.400Z',
        notes: 'Discussed pricing',
      });
      expect(log).toMatchObject({ mode: 'manual', duration_seconds: 90, notes: 'Discussed pricing', contact_id: null });
      await expectEventually(() =>
        expect(eventsOf(log.id)).toEqual([
          expect.objectContaining({
            type: ActivitiesEvents.CallLogged,
            data: { call_log_id: log.id, status: 'completed', outcome: 'connected', occurred_at: '2026-05-15T10:00:00.000Z', duration_seconds: 90 },
          }),
        ]),
      );
      const bare = await service.callLogs.create(ctx, { status: 'missed', mode: 'dialer', duration_seconds: 0 });
      expect(bare).toMatchObject({ mode: 'dialer', duration_seconds: 0, started_at: null });
      await expectEventually(() => expect(eventsOf(bare.id)[0]?.data.occurred_at).toBe(bare.created_at));
    });

    test('a given duration is talk time: from 0 up to the span between the timestamps, a second of rounding allowed', async () => {
      const times = { started_at: '2026-05-15T10:00:00.000Z', ended_at: '2026-05-15T10:00:10.500Z' };
      // A no-answer call rang for 10.5 s with no talk time; a dialer may round 10.5 s up to 11.
      for (const duration_seconds of [0, 1, 9, 10, 11]) {
        expect((await service.callLogs.create(ctx, { status: 'completed', ...times, duration_seconds })).duration_seconds).toBe(duration_seconds);
      }
      for (const duration_seconds of [12, 600]) {
        await expect(service.callLogs.create(ctx, { status: 'completed', ...times, duration_seconds })).rejects.toMatchObject({
          code: 'validation_failed',
          details: [{ field: 'duration_seconds', message: expect.stringContaining('at most the 11 seconds between') }],
        });
      }
      const exact = { started_at: '2026-05-15T10:00:00Z', ended_at: '2026-05-15T10:00:10Z' };
      await expect(service.callLogs.create(ctx, { status: 'completed', ...exact, duration_seconds: 11 })).rejects.toMatchObject({ code: 'validation_failed' });
      await expect(service.callLogs.create(ctx, { status: 'completed', started_at: exact.ended_at, ended_at: exact.started_at })).rejects.toMatchObject({
        code: 'validation_failed',
        details: [{ field: 'ended_at', message: 'must not be before started_at' }],
      });
      const zero = await service.callLogs.create(ctx, { status: 'failed', started_at: exact.started_at, ended_at: exact.started_at });
      expect(zero.duration_seconds).toBe(0);
    });

    test('status is required, enums and the duration are checked', async () => {
      const error = await rejects(service.callLogs.create(ctx, { outcome: 'hung_up', mode: null, duration_seconds: -1, contact_id: 'c-1' }));
      expect(error!.details).toEqual(
        expect.arrayContaining([
          { field: 'status', message: 'is required' },
          { field: 'outcome', message: 'must be one of connected, voicemail, no_answer, busy, wrong_number' },
          { field: 'mode', message: 'must not be null' },
          { field: 'duration_seconds', message: 'must be between 0 and 2147483647' },
          { field: 'contact_id', message: 'must be a UUID' },
        ]),
      );
      await expect(service.callLogs.create(ctx, { status: 'done' })).rejects.toMatchObject({ code: 'validation_failed' });
    });
  });

  describe('meetings', () => {
    const slot = { scheduled_start: '2026-06-01T10:00:00Z', scheduled_end: '2026-06-01T10:30:00Z' };

    test('create defaults to scheduled and publishes meeting.scheduled', async () => {
      const contactId = newId();
      const meeting = await service.meetings.create(ctx, { title: 'Demo', contact_id: contactId, location: 'Zoom', ...slot });
      expect(meeting).toMatchObject({ status: 'scheduled', outcome: null, scheduled_start: '2026-06-01T10:00:00.000Z', location: 'Zoom' });
      await expectEventually(() =>
        expect(eventsOf(meeting.id)).toEqual([
          expect.objectContaining({
            type: ActivitiesEvents.MeetingScheduled,
            data: { meeting_id: meeting.id, contact_id: contactId, scheduled_start: meeting.scheduled_start, occurred_at: meeting.created_at },
          }),
        ]),
      );
    });

    test('scheduled_end must be after scheduled_start, on create and after a patch of either', async () => {
      for (const end of ['2026-06-01T10:00:00Z', '2026-06-01T09:00:00Z']) {
        await expect(service.meetings.create(ctx, { title: 'Backwards', scheduled_start: slot.scheduled_start, scheduled_end: end })).rejects.toMatchObject({
          code: 'validation_failed',
          details: [{ field: 'scheduled_end', message: 'must be after scheduled_start' }],
        });
      }
      const error = await rejects(service.meetings.create(ctx, { title: 'x', status: 'tentative', outcome: 'won' }));
      expect(error!.details).toEqual(
        expect.arrayContaining([
          { field: 'scheduled_start', message: 'is required' },
          { field: 'scheduled_end', message: 'is required' },
          { field: 'status', message: 'must be one of scheduled, completed, canceled, no_show' },
          { field: 'outcome', message: 'must be one of held, rescheduled, no_show, qualified, disqualified' },
        ]),
      );
      const meeting = await service.meetings.create(ctx, { title: 'Movable', ...slot });
      await expect(service.meetings.update(ctx, meeting.id as string, { scheduled_start: '2026-06-01T11:00:00Z' })).rejects.toMatchObject({
        details: [{ field: 'scheduled_start', message: 'must be before scheduled_end' }],
      });
      await expect(service.meetings.update(ctx, meeting.id as string, { scheduled_end: '2026-06-01T09:59:59.999Z' })).rejects.toMatchObject({
        details: [{ field: 'scheduled_end', message: 'must be after scheduled_start' }],
      });
      await expect(service.meetings.update(ctx, meeting.id as string, { scheduled_end: null })).rejects.toMatchObject({ code: 'validation_failed' });
      const moved = await service.meetings.update(ctx, meeting.id as string, { scheduled_start: '2026-06-02T11:00:00Z', scheduled_end: '2026-06-02T12:00:00Z' });
      expect(moved).toMatchObject({ scheduled_start: '2026-06-02T11:00:00.000Z', scheduled_end: '2026-06-02T12:00:00.000Z' });
    });

    test('updates publish meeting.updated, cancelling publishes meeting.canceled, rebooking meeting.scheduled', async () => {
      const meeting = await service.meetings.create(ctx, { title: 'Review', owner_id: newId(), ...slot });
      const id = meeting.id as string;
      const renamed = await service.meetings.update(ctx, id, { title: 'Quarterly review' });
      const canceled = await service.meetings.update(ctx, id, { status: 'canceled' });
      await service.meetings.update(ctx, id, { status: 'scheduled' });
      const held = await service.meetings.update(ctx, id, { status: 'completed', outcome: 'qualified' });
      expect(held).toMatchObject({ status: 'completed', outcome: 'qualified', title: 'Quarterly review' });
      await service.meetings.delete(ctx, id);
      await expect(service.meetings.get(ws, id)).rejects.toMatchObject({ code: 'not_found' });
      await expectEventually(() =>
        expect(typesOf(id)).toEqual([
          ActivitiesEvents.MeetingScheduled,
          ActivitiesEvents.MeetingUpdated,
          ActivitiesEvents.MeetingUpdated,
          ActivitiesEvents.MeetingCanceled,
          ActivitiesEvents.MeetingUpdated,
          ActivitiesEvents.MeetingScheduled,
          ActivitiesEvents.MeetingUpdated,
          ActivitiesEvents.MeetingCanceled,
        ]),
      );
      const events = eventsOf(id);
      expect(events[1]!.data).toEqual({
        meeting_id: id,
        owner_id: meeting.owner_id,
        status: 'scheduled',
        scheduled_start: meeting.scheduled_start,
        scheduled_end: meeting.scheduled_end,
        changed: ['title'],
        occurred_at: renamed.updated_at,
      });
      expect(events[3]!.data).toMatchObject({ deleted: false, occurred_at: canceled.updated_at });
      expect(events[6]!.data).toMatchObject({ status: 'completed', outcome: 'qualified', changed: ['status', 'outcome'] });
      expect(events[7]!.data).toMatchObject({ meeting_id: id, deleted: true });
    });
  });

  describe('lists: filters, sorts and cursors against an in-memory oracle', () => {
    const listWs = newId();
    const listCtx = { workspaceId: listWs };
    const people = [newId(), newId(), newId()];
    const orgs = [newId(), newId()];
    const enrollments = [newId(), newId()];
    const seededTasks: ApiRecord[] = [];
    const seededLogs: ApiRecord[] = [];
    const seededMeetings: ApiRecord[] = [];

    beforeAll(async () => {
      const random = seeded(7);
      const pick = <T>(values: readonly T[], nullShare = 0.25): T | null => (random() < nullShare ? null : values[Math.floor(random() * values.length)]!);
      const at = (hours: number) => new Date(Date.UTC(2026, 5, 1) + hours * 3_600_000).toISOString();
      const words = ['renewal call', 'pricing follow-up', 'intro email', 'contract review'];
      for (let i = 0; i < 45; i++) {
        const body: Record<string, unknown> = {
          title: `${pick(words, 0)} ${i}`,
          description: pick(['urgent', 'Discuss PRICING', 'later'], 0.4),
          status: pick(['open', 'completed'], 0),
          priority: pick([0, 1, 2, 3], 0.3),
          due_at: pick([at(1), at(2), at(3), at(4)], 0.3),
          assignee_id: pick(people),
          contact_id: pick(people),
          organization_id: pick(orgs),
          type: pick(['call', 'email', 'other']),
          suggested_action: pick(['call', 'email', 'chat_app']),
        };
        if (i % 9 === 0) body.svc_uid = `ext-${i}`;
        const task = i % 8 === 0
          ? await withIdempotencyKey({ key: `k${i}`, fingerprint: 'seed', origin: 'flows' }, () =>
              service.createEnrollmentTask(listCtx, { flowEnrollmentId: pick(enrollments, 0)!, fields: body }),
            ).result
          : await service.tasks.create(listCtx, body);
        seededTasks.push(task);
      }
      // Some updates, so updated_at differs from created_at.
      for (const task of seededTasks.filter((_, i) => i % 5 === 0)) {
        const updated = await service.tasks.update(listCtx, task.id as string, { priority: 2 });
        seededTasks[seededTasks.indexOf(task)] = updated;
      }
      for (let i = 0; i < 35; i++) {
        const start = pick([at(i % 4), at(5), null], 0);
        const duration = Math.floor(random() * 3) * 30;
        seededLogs.push(
          await service.callLogs.create(listCtx, {
            status: pick(['completed', 'missed', 'failed'], 0),
            outcome: pick(['connected', 'voicemail', 'busy']),
            mode: pick(['manual', 'dialer'], 0),
            contact_id: pick(people),
            owner_id: pick(people),
            notes: pick(['Left VOICEMAIL', 'talked budget', 'no answer'], 0.3),
            ...(start ? { started_at: start, ...(random() < 0.7 ? { ended_at: new Date(Date.parse(start) + duration * 1000).toISOString() } : {}) } : {}),
            ...(random() < 0.3 ? { duration_seconds: duration } : {}),
            ...(i % 7 === 0 ? { svc_uid: `dialer-${i}` } : {}),
          }),
        );
      }
      for (let i = 0; i < 35; i++) {
        const start = at(Math.floor(random() * 6) * 24 + (i % 3));
        seededMeetings.push(
          await service.meetings.create(listCtx, {
            title: pick(['Demo', 'Kickoff call', 'QBR'], 0),
            description: pick(['with the CFO', 'technical deep dive'], 0.5),
            location: pick(['Zoom', 'Office Berlin'], 0.4),
            status: pick(['scheduled', 'completed', 'canceled', 'no_show'], 0),
            outcome: pick(['held', 'qualified'], 0.5),
            contact_id: pick(people),
            owner_id: pick(people),
            scheduled_start: start,
            scheduled_end: new Date(Date.parse(start) + (1 + (i % 4)) * 15 * 60_000).toISOString(),
            ...(i % 7 === 0 ? { svc_uid: `calendar-${i}` } : {}),
          }),
        );
      }
    }, 120_000);

    const sortsOf = (spec: ResourceSpec): (string | undefined)[] => {
      const keys = Object.keys(spec.fields).filter((k) => spec.fields[k]!.sort);
      return [undefined, ...keys.flatMap((k) => [k, `-${k}`])];
    };

    const cases: [string, () => ResourceStore, () => ApiRecord[]][] = [
      ['tasks', () => service.tasks, () => seededTasks],
      ['call_logs', () => service.callLogs, () => seededLogs],
      ['meetings', () => service.meetings, () => seededMeetings],
    ];

    describe.each(cases)('%s', (name, store, records) => {
      const spec: ResourceSpec = { tasks, call_logs: callLogs, meetings }[name]!;

      test.each(sortsOf(spec).map((s) => [s ?? '(default)', s]))('sort %s pages exactly through the oracle order', async (_label, sort) => {
        for (const limit of ['1', '7', String(spec.maxLimit)]) {
          const raw: Raw = { limit, ...(sort ? { sort } : {}) };
          expect(await pageAll(store(), listWs, raw)).toEqual(oracle(spec, records(), raw));
        }
      });

      test('two sort keys page exactly through the oracle order', async () => {
        const keys = Object.keys(spec.fields).filter((k) => spec.fields[k]!.sort);
        const raw: Raw = { sort: `-${keys[1]},${keys[0]}`, limit: '4' };
        expect(await pageAll(store(), listWs, raw)).toEqual(oracle(spec, records(), raw));
      });

      test('every filter answers exactly the matching records', async () => {
        for (const field of Object.keys(spec.fields).filter((k) => spec.fields[k]!.filter)) {
          const values = [...new Set(records().map((r) => r[field]).filter((v) => v !== null))];
          expect([field, values.length > 0]).toEqual([field, true]);
          for (const value of values.slice(0, 3)) {
            const raw: Raw = { [field]: String(value), limit: '5' };
            const expected = oracle(spec, records(), raw);
            expect([field, expected.length > 0]).toEqual([field, true]);
            expect([field, await pageAll(store(), listWs, raw)]).toEqual([field, expected]);
          }
        }
      });

      test('since, until, updated_since and q combine with filters and paging', async () => {
        const times = records().map((r) => r[spec.timeField] as string).sort();
        const since = times[Math.floor(times.length / 4)]!;
        const until = times[Math.floor((times.length * 3) / 4)]!;
        const updated = records().map((r) => r.updated_at as string).sort()[Math.floor(times.length / 2)]!;
        const word = { tasks: 'pricing', call_logs: 'voicemail', meetings: 'kickoff' }[name]!;
        for (const raw of [
          { since, until, limit: '3' },
          { updated_since: updated, limit: '3' },
          { q: word.toUpperCase(), limit: '2' },
          { q: word, since, sort: `-${spec.timeField}`, limit: '2' },
        ] as Raw[]) {
          const expected = oracle(spec, records(), raw);
          expect(expected.length).toBeGreaterThan(0);
          expect(await pageAll(store(), listWs, raw)).toEqual(expected);
        }
      });

      test('a cursor is refused with another sort, filter or workspace, and bad parameters are invalid requests', async () => {
        const first = await store().list(listWs, parseListQuery(spec, { limit: '2' }));
        const cursor = first.nextCursor!;
        expect(cursor).toEqual(expect.any(String));
        const filter = Object.keys(spec.fields).find((k) => spec.fields[k]!.filter && spec.fields[k]!.type === 'uuid')!;
        for (const [workspace, raw] of [
          [listWs, { cursor, sort: spec.timeField }],
          [listWs, { cursor, [filter]: people[0]! }],
          [otherWs, { cursor }],
        ] as [string, Raw][]) {
          await expect(store().list(workspace, parseListQuery(spec, raw))).rejects.toMatchObject({ code: 'invalid_request' });
        }
        const next = await store().list(listWs, parseListQuery(spec, { cursor, limit: '3' }));
        expect(next.data.map((r) => r.id)).toEqual(oracle(spec, records(), {}).slice(2, 5));
        for (const raw of [
          { limit: String(spec.maxLimit + 1) },
          { limit: '0' },
          { [filter]: 'not-a-uuid' },
          { sort: 'title' },
          { since: '2026-06-01' },
          { colour: 'red' },
        ] as Raw[]) {
          expect(() => parseListQuery(spec, raw)).toThrow(expect.objectContaining({ code: 'invalid_request' }));
        }
      });
    });

    test('task filters are typed: priority an integer, status and suggested_action enums, UUIDs checked', () => {
      for (const raw of [{ priority: 'high' }, { priority: '1.5' }, { status: 'done' }, { suggested_action: 'fax' }, { flow_enrollment_id: '42' }, { assignee_id: 'me' }]) {
        expect(() => parseListQuery(tasks, raw)).toThrow(
          expect.objectContaining({ code: 'invalid_request', details: { parameter: Object.keys(raw)[0] } }),
        );
      }
      expect(parseListQuery(tasks, { limit: '200', priority: '2' })).toMatchObject({ limit: 200, filters: [{ field: 'priority', value: 2 }] });
    });

    test('the tasks list serves 200 records a page', async () => {
      const page = await service.tasks.list(listWs, parseListQuery(tasks, { limit: '200' }));
      expect(page.data).toHaveLength(seededTasks.length);
      expect(page).toMatchObject({ hasMore: false, nextCursor: null });
    });
  });

  describe('over gRPC', () => {
    let server: RunningGrpcServer;
    let client: grpc.Client;
    beforeAll(async () => {
      server = await startGrpcServer('127.0.0.1:0', [activitiesGrpcBinding(service, log)]);
      client = new (loadActivities().crm.activities.v1.ActivitiesService)(server.address, grpc.credentials.createInsecure());
    });
    afterAll(async () => {
      client.close();
      await server.shutdown();
    });

    test('CreateEnrollmentTask creates an open task of the enrollment, once per idempotency key', async () => {
      const engine = createServiceClient(loadActivities().crm.activities.v1.ActivitiesService, server.address, { origin: 'flows' });
      try {
        const enrollment = newId();
        const request = { workspace_id: ws, flow_enrollment_id: enrollment, title: 'Call', type: 'call', priority: 2, due_at: '2026-06-01T10:00:00Z' };
        const task = await engine.call('CreateEnrollmentTask', request, { idempotencyKey: 'node-a' });
        expect(task).toMatchObject({ flow_enrollment_id: enrollment, status: 'open', title: 'Call', type: 'call', priority: 2, due_at: '2026-06-01T10:00:00.000Z' });
        expect(task).not.toHaveProperty('completed_at');
        expect((await engine.call('CreateEnrollmentTask', request, { idempotencyKey: 'node-a' })).id).toBe(task.id);
        const listed = await engine.call('ListTasks', { workspace_id: ws, filters: { flow_enrollment_id: enrollment } });
        expect(listed.data.map((t) => t.id)).toEqual([task.id]);
        await expect(engine.call('CreateEnrollmentTask', request)).rejects.toMatchObject({ code: 'invalid_request' });
        await expect(engine.call('CreateEnrollmentTask', { ...request, flow_enrollment_id: 'x' }, { idempotencyKey: 'node-x' })).rejects.toMatchObject({
          code: 'invalid_request',
        });
        await expect(
          engine.call('CreateEnrollmentTask', { ...request, title: '', assignee_id: 'me' }, { idempotencyKey: 'node-b' }),
        ).rejects.toMatchObject({
          code: 'validation_failed',
          details: expect.arrayContaining([{ field: 'assignee_id', message: 'must be a UUID' }]),
        });
      } finally {
        engine.close();
      }
    });

    test('records, custom fields and errors round-trip for each resource', async () => {
      const created = await unary<unknown, Record<string, unknown>>(client, 'CreateCallLog', {
        workspace_id: ws,
        fields: toStruct({ status: 'completed', started_at: '2026-05-15T10:00:00Z', ended_at: '2026-05-15T10:00:05Z', dialer_ref: 'abc' }),
      });
      expect(created).toMatchObject({ status: 'completed', mode: 'manual', duration_seconds: 5 });
      expect(await unary(client, 'GetCallLog', { workspace_id: ws, id: created.id })).toEqual(created);
      const meeting = await unary<unknown, Record<string, unknown>>(client, 'CreateMeeting', {
        workspace_id: ws,
        fields: toStruct({ title: 'Call', scheduled_start: '2026-06-01T10:00:00Z', scheduled_end: '2026-06-01T11:00:00Z' }),
      });
      await expect(unary(client, 'UpdateMeeting', { workspace_id: ws, id: meeting.id, fields: toStruct({ scheduled_end: '2026-06-01T09:00:00Z' }) })).rejects.toMatchObject({
        code: 'validation_failed',
        details: [{ field: 'scheduled_end', message: 'must be after scheduled_start' }],
      });
      await expect(unary(client, 'GetTask', { workspace_id: otherWs, id: meeting.id })).rejects.toMatchObject({ code: 'not_found' });
      await expect(unary(client, 'ListTasks', { workspace_id: ws, limit: 201 })).rejects.toMatchObject({ code: 'invalid_request' });
      await expect(unary(client, 'ListMeetings', { workspace_id: ws, limit: 101 })).rejects.toMatchObject({ code: 'invalid_request' });
      expect(await unary(client, 'DeleteMeeting', { workspace_id: ws, id: meeting.id })).toEqual({});
    });
  });
});
