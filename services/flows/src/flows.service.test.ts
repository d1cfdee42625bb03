import { tasks as tasks_ } from '@crm/activities-contract';
import { flowNodes } from '@crm/flows-contract';
import { CrmError, createCursorCodec, createPgClient, createServiceClient, parseListQuery, systemClock } from '@crm/kit';
import { TEST_DATABASE_URL, expectEventually, sqlBackends } from '@crm/kit/testing';
import { FlowsEvents, MessagingEvents, loadMessaging, loadPeople } from '@crm/proto';
import { type SmtpSink, startSmtpSink } from '../../../test/support/smtp-sink';
import { createFlowCache } from './engine/runnable-flow';
import { createEnrollments } from './enrollments';
import { type FlowsHarness, openFlows } from './testing/harness';

jest.setTimeout(120_000);

/**
 * The flows service with its real peers (people, activities, messaging over gRPC, the directory,
 * one event bus) and a real SMTP server: graphs, enrollments, the engine's steps and their side
 * effects, exits from what contacts do, and the cancel of a send an exit overtook.
 */

const email = (key: string, subject = 'Hello {{ first_name }}') => ({ key, type: 'email', config: { subject, body: `<p>${key} for {{ first_name }}</p>` } });
const wait = (key: string, seconds = 1) => ({ key, type: 'wait', config: { duration_seconds: seconds } });
const line = (...nodes: { key: string }[]) => nodes.slice(1).map((n, i) => ({ from: nodes[i]!.key, to: n.key }));

describe.each(sqlBackends())('flows on $name', (backend) => {
  let h: FlowsHarness;
  let sink: SmtpSink;
  const ctx = () => ({ workspaceId: h.workspaceId, actorUserId: h.userId });
  const flowsOf = () => h.flows.service;
  const createFlow = async (nodes: object[], edges: object[], more: Record<string, unknown> = {}) =>
    flowsOf().flows.create(ctx(), { name: 'Outreach', status: 'active', nodes, edges, ...more });
  const enroll = (flowId: unknown, contactId: string) => flowsOf().enrollments.store.create(ctx(), { flow_id: flowId, contact_id: contactId });
  const enrollment = (id: unknown) => flowsOf().enrollments.store.get(h.workspaceId, String(id));
  const steps = async (id: unknown) =>
    (await flowsOf().enrollmentSteps.list(h.workspaceId, { limit: 100, sort: [{ field: 'occurred_at', direction: 'asc' }], filters: [{ field: 'enrollment_id', value: String(id) }] })).data;
  const sendsOf = async (enrollmentId: unknown) =>
    (
      await h.messaging.service.sentEmails.list(h.workspaceId, {
        limit: 50,
        sort: [{ field: 'created_at', direction: 'asc' }],
        filters: [{ field: 'flow_enrollment_id', value: String(enrollmentId) }],
      })
    ).data;
  const expectError = async (promise: Promise<unknown>, code: string, message?: RegExp) => {
    const error = await promise.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(CrmError);
    expect(error).toMatchObject({ code, ...(message ? { message: expect.stringMatching(message) } : {}) });
    return error as CrmError;
  };

  beforeAll(async () => {
    sink = await startSmtpSink();
    // Addresses starting with "hold" are deferred (451) by the SMTP server: their sends stay queued.
    sink.rules = { rcpt: (address) => (address.startsWith('hold') ? { code: 451, message: 'try again later' } : undefined) };
    const reopen = backend.name === 'postgres' ? (schema: string) => createPgClient({ url: TEST_DATABASE_URL, schema, max: 4 }) : undefined;
    h = await openFlows(backend, { messaging: { SMTP_URL: sink.url, DELIVERY_MAX_ATTEMPTS: '30', DELIVERY_RETRY_BASE_MS: '200' } }, reopen);
  });
  afterAll(async () => {
    await h?.close();
    await sink?.close();
  });

  describe('flows and their graphs', () => {
    test('a graph is validated as a whole when saved; nodes get ids, mirrored in flow_nodes in graph order', async () => {
      const bad = await expectError(
        flowsOf().flows.create(ctx(), { name: 'Broken', nodes: [email('a'), { key: 'a', type: 'wait', config: {} }], edges: [{ from: 'a', to: 'zzz' }] }),
        'validation_failed',
      );
      expect((bad.details as { field: string }[]).length).toBeGreaterThanOrEqual(3);

      const flow = await createFlow([email('intro'), wait('pause', 60), email('follow')], line({ key: 'intro' }, { key: 'pause' }, { key: 'follow' }), { status: 'draft' });
      expect(flow.status).toBe('draft');
      const nodes = flow.nodes as { id: string; key: string }[];
      expect(nodes.map((n) => n.key)).toEqual(['intro', 'pause', 'follow']);
      const listed = await flowsOf().flowNodes.list(h.workspaceId, parseListQuery(flowNodes, { flow_id: String(flow.id) }));
      expect(listed.data.map((n) => [n.key, n.position]).sort()).toEqual([
        ['follow', 2],
        ['intro', 0],
        ['pause', 1],
      ]);

      // Replacing the graph keeps ids by key; a new node gets a new id; a removed node leaves flow_nodes.
      const edited = await flowsOf().flows.update(ctx(), String(flow.id), {
        nodes: [email('intro'), wait('longer', 120), email('follow')],
        edges: line({ key: 'intro' }, { key: 'longer' }, { key: 'follow' }),
      });
      const after = edited.nodes as { id: string; key: string }[];
      expect(after.find((n) => n.key === 'intro')!.id).toBe(nodes[0]!.id);
      expect(after.find((n) => n.key === 'follow')!.id).toBe(nodes[2]!.id);
      expect(after.find((n) => n.key === 'longer')!.id).not.toBe(nodes[1]!.id);
      await expectError(flowsOf().flowNodes.get(h.workspaceId, nodes[1]!.id), 'not_found');
    });

    test('an email node whose Liquid does not parse, or whose template does not exist, is refused naming the node', async () => {
      const error = await expectError(
        createFlow([{ key: 'x', type: 'email', config: { subject: 'Hi {{ first_name', body: '<p>x</p>' } }], []),
        'validation_failed',
      );
      expect(error.details).toEqual([expect.objectContaining({ field: 'nodes[0].config.subject', message: expect.stringMatching(/^node 'x': /) })]);
      await expectError(createFlow([{ key: 'y', type: 'email', config: { template_id: '0190a0e0-0000-7000-8000-000000000abc' } }], []), 'validation_failed', /template/);
    });

    test('status moves draft → active ⇄ paused → archived, and archived is final', async () => {
      const flow = await createFlow([wait('w')], [], { status: 'draft' });
      await expectError(flowsOf().flows.update(ctx(), String(flow.id), { status: 'paused' }), 'conflict');
      await flowsOf().flows.update(ctx(), String(flow.id), { status: 'active' });
      await flowsOf().flows.update(ctx(), String(flow.id), { status: 'paused' });
      await flowsOf().flows.update(ctx(), String(flow.id), { status: 'archived' });
      await expectError(flowsOf().flows.update(ctx(), String(flow.id), { status: 'active' }), 'conflict');
      await expectError(flowsOf().flows.update(ctx(), String(flow.id), { nodes: [wait('v')] }), 'conflict');
    });

    test('removing the node an enrollment stands on is 409; deleting a flow with open enrollments is 409 until it is archived', async () => {
      const flow = await createFlow([wait('first', 3_600), email('second')], line({ key: 'first' }, { key: 'second' }));
      const contactId = await h.contact('stay@example.com');
      const enrolled = await enroll(flow.id, contactId);
      const conflict = await expectError(flowsOf().flows.update(ctx(), String(flow.id), { nodes: [email('second')], edges: [] }), 'conflict');
      expect(conflict.message).toMatch(/first/);
      await expectError(flowsOf().flows.delete(ctx(), String(flow.id)), 'conflict', /archive it first/);

      await flowsOf().flows.update(ctx(), String(flow.id), { status: 'archived' });
      await expectEventually(async () => expect(await enrollment(enrolled.id)).toMatchObject({ status: 'exited', exit_reason: 'flow_archived', next_run_at: null }));
      await expectEventually(() =>
        expect(h.eventsOf(FlowsEvents.EnrollmentExited).some((e) => (e.data as { enrollment_id: string }).enrollment_id === enrolled.id)).toBe(true),
      );
      expect((await steps(enrolled.id)).length).toBeGreaterThan(0);
      await flowsOf().flows.delete(ctx(), String(flow.id));
      await expectError(flowsOf().flows.get(h.workspaceId, String(flow.id)), 'not_found');
      // Its ended enrollments and their history went with it.
      await expectError(enrollment(enrolled.id), 'not_found');
      expect(await steps(enrolled.id)).toEqual([]);
    });

    test('a flow deleted while contacts are being enrolled in it: either the delete is 409 or the enrollment finds no flow, never enrollments of a deleted flow', async () => {
      const contacts = await Promise.all([1, 2, 3].map((i) => h.contact(`race${i}@example.com`)));
      for (let round = 0; round < 6; round++) {
        const flow = await createFlow([wait('w', 3_600)], [], { status: 'draft' });
        const id = String(flow.id);
        const [enrolled, deleted] = await Promise.allSettled([
          flowsOf().enrollments.enroll(ctx(), id, { contactIds: contacts }),
          // Staggered a little each round, to land before, inside and after the enrollment's transaction.
          new Promise((resolve) => setTimeout(resolve, round * 3)).then(() => flowsOf().flows.delete(ctx(), id)),
        ]);
        if (deleted.status === 'fulfilled') {
          if (enrolled.status === 'fulfilled') expect(enrolled.value.enrolled).toEqual([]);
          else expect(enrolled.reason).toMatchObject({ code: 'validation_failed', message: expect.stringMatching(/flow/) });
          const { rows } = await h.flowsDb.query(`SELECT count(*)::int AS n FROM enrollments WHERE workspace_id = $1::uuid AND flow_id = $2::uuid`, [h.workspaceId, id]);
          expect(rows[0]).toEqual({ n: 0 });
        } else {
          expect(deleted.reason).toMatchObject({ code: 'conflict' });
          expect(enrolled).toMatchObject({ status: 'fulfilled', value: { enrolled: expect.arrayContaining(contacts) } });
        }
      }
    });
  });

  describe('enrolling', () => {
    test('checks the flow and the contact in the workspace; one open enrollment per contact and flow', async () => {
      const flow = await createFlow([wait('w', 3_600)], []);
      const contactId = await h.contact('one@example.com');
      const foreign = await h.contact('other@example.com', {}, h.otherWorkspaceId);
      const unknown = await expectError(enroll(flow.id, '0190a0e0-0000-7000-8000-00000000f00d'), 'validation_failed');
      const cross = await expectError(enroll(flow.id, foreign), 'validation_failed');
      expect(cross.message).toBe(unknown.message);
      await expectError(enroll('0190a0e0-0000-7000-8000-00000000f00d', contactId), 'validation_failed', /flow/);

      const first = await enroll(flow.id, contactId);
      expect(first).toMatchObject({ status: 'active', enrolled_by: h.userId, current_node_id: (flow.nodes as { id: string }[])[0]!.id });
      await expectError(enroll(flow.id, contactId), 'conflict');

      // Ended, it may enroll again.
      await flowsOf().enrollments.store.update(ctx(), String(first.id), { status: 'exited' });
      await expect(enroll(flow.id, contactId)).resolves.toMatchObject({ status: 'active' });
    });

    test('each enrollment created publishes one crm.flows.enrollment.created, one at a time or many; a contact already open in the flow publishes none', async () => {
      const flow = await createFlow([wait('w', 3_600)], []);
      const a = await h.contact('created-a@example.com');
      const b = await h.contact('created-b@example.com');
      const c = await h.contact('created-c@example.com');
      const ofFlow = (type: string, flowId: unknown) => h.eventsOf(type).filter((e) => (e.data as { flow_id: string }).flow_id === String(flowId));

      const one = await enroll(flow.id, a);
      await expectError(enroll(flow.id, a), 'conflict');
      expect(await flowsOf().enrollments.enroll(ctx(), String(flow.id), { contactIds: [a, b, c] })).toMatchObject({ enrolled: [b, c], already_enrolled: [a] });
      expect(await flowsOf().enrollments.enroll(ctx(), String(flow.id), { contactIds: [b, c] })).toMatchObject({ enrolled: [], already_enrolled: [b, c] });
      // The relay publishes the outbox in order: once this exit, written after them all, is seen, so
      // is every created event before it.
      await flowsOf().enrollments.store.update(ctx(), String(one.id), { status: 'exited' });
      await expectEventually(() => expect(ofFlow(FlowsEvents.EnrollmentExited, flow.id)).toHaveLength(1));

      const { rows } = await h.flowsDb.query<{ id: string; contact_id: string; enrolled_at: Date | string }>(
        `SELECT id, contact_id, enrolled_at FROM enrollments WHERE workspace_id = $1::uuid AND flow_id = $2::uuid`,
        [h.workspaceId, String(flow.id)],
      );
      expect(rows).toHaveLength(3);
      const byEnrollment = (x: { data: unknown }, y: { data: unknown }) =>
        (x.data as { enrollment_id: string }).enrollment_id.localeCompare((y.data as { enrollment_id: string }).enrollment_id);
      const created = ofFlow(FlowsEvents.EnrollmentCreated, flow.id).map(({ type, workspace_id, data }) => ({ type, workspace_id, data }));
      expect(created.sort(byEnrollment)).toEqual(
        rows
          .map((row) => ({
            type: FlowsEvents.EnrollmentCreated,
            workspace_id: h.workspaceId,
            data: { enrollment_id: row.id, flow_id: String(flow.id), contact_id: row.contact_id, occurred_at: new Date(row.enrolled_at).toISOString() },
          }))
          .sort(byEnrollment),
      );
      expect(created.find((e) => (e.data as { enrollment_id: string }).enrollment_id === one.id)?.data).toMatchObject({ contact_id: a, occurred_at: one.enrolled_at });

      // An entry that ends the enrollment at once: its creation, then its completion.
      const instant = await createFlow([{ key: 'z', type: 'end' }], []);
      const ended = await enroll(instant.id, a);
      expect(ended.status).toBe('completed');
      await expectEventually(() =>
        expect([...ofFlow(FlowsEvents.EnrollmentCreated, instant.id), ...ofFlow(FlowsEvents.EnrollmentCompleted, instant.id)].length).toBe(2),
      );
      expect(h.events.filter((e) => (e.data as { flow_id?: string }).flow_id === String(instant.id)).map((e) => [e.type, (e.data as { enrollment_id: string }).enrollment_id])).toEqual([
        [FlowsEvents.EnrollmentCreated, ended.id],
        [FlowsEvents.EnrollmentCompleted, ended.id],
      ]);
    });

    test('pause, resume and exit by hand; completed, exited and failed are final; the flow and contact never change', async () => {
      const flow = await createFlow([wait('w', 3_600)], []);
      const contactId = await h.contact('hand@example.com');
      const e = await enroll(flow.id, contactId);
      const patch = (body: object) => flowsOf().enrollments.store.update(ctx(), String(e.id), body);
      await expect(patch({ status: 'paused' })).resolves.toMatchObject({ status: 'paused' });
      await expect(patch({ status: 'active' })).resolves.toMatchObject({ status: 'active' });
      await expectError(patch({ status: 'completed' }), 'conflict');
      await expectError(patch({ contact_id: await h.contact('else@example.com') }), 'conflict');
      await expect(patch({ status: 'exited' })).resolves.toMatchObject({ status: 'exited', exit_reason: 'manual', next_run_at: null });
      await expectError(patch({ status: 'active' }), 'conflict');
      expect((await steps(e.id)).map((s) => [s.outcome, s.detail])).toEqual([['exited', 'manual']]);
    });

    test('many at once: by ids or a whole pool, each contact accounted for', async () => {
      const flow = await createFlow([wait('first', 3_600), email('hi')], line({ key: 'first' }, { key: 'hi' }));
      const a = await h.contact('bulk-a@example.com');
      const b = await h.contact('bulk-b@example.com');
      const suppressed = await h.contact('bulk-gone@example.com');
      // On messaging's suppression list, as an unsubscribe would put it.
      await h.messagingDb.query(
        `INSERT INTO suppressions (workspace_id, email_lower, reason, created_at) VALUES ($1::uuid, 'bulk-gone@example.com', 'unsubscribed', now())`,
        [h.workspaceId],
      );
      const missing = '0190a0e0-0000-7000-8000-00000000b0b0';
      const first = await flowsOf().enrollments.enroll(ctx(), String(flow.id), { contactIds: [a, missing, suppressed] });
      expect(first).toEqual({ enrolled: [a], already_enrolled: [], not_found: [missing], suppressed: [suppressed] });

      const pool = await h.people.service.pools.create({ workspaceId: h.workspaceId }, { name: 'Bulk' });
      await h.people.service.members.add({ workspaceId: h.workspaceId }, String(pool.id), [a, b, suppressed]);
      const second = await flowsOf().enrollments.enroll(ctx(), String(flow.id), { poolId: String(pool.id) });
      expect(second.enrolled).toEqual([b]);
      expect(second.already_enrolled).toEqual([a]);
      expect(second.suppressed).toEqual([suppressed]);
      await expectError(flowsOf().enrollments.enroll(ctx(), String(flow.id), { poolId: missing }), 'validation_failed', /pool/);
    });

    test('a pool read in pages of 3 and written in statements of 2: every member accounted for once, across page and statement edges', async () => {
      const clients = [
        createServiceClient(loadPeople().crm.people.v1.PeopleService, h.people.server.address),
        createServiceClient(loadMessaging().crm.messaging.v1.MessagingService, h.messaging.server.address),
      ] as const;
      const small = createEnrollments({
        db: h.flowsDb,
        cursors: createCursorCodec('c'.repeat(32)),
        afterCommit: () => undefined,
        clock: systemClock,
        flows: createFlowCache(),
        people: clients[0],
        messaging: clients[1],
        onEnrolled: () => undefined,
        onExits: () => undefined,
        bulk: { poolPage: 3, insertChunk: 2 },
      });
      try {
        const flow = await createFlow([email('hi')], [], { status: 'draft' });
        const members = await Promise.all(Array.from({ length: 11 }, (_, i) => h.contact(`paged${i}@example.com`)));
        const noAddress = await h.contact(null);
        await h.messagingDb.query(
          `INSERT INTO suppressions (workspace_id, email_lower, reason, created_at) VALUES ($1::uuid, 'paged4@example.com', 'unsubscribed', now()), ($1::uuid, 'paged9@example.com', 'hard_bounce', now())`,
          [h.workspaceId],
        );
        const already = [members[2]!, members[7]!];
        await small.enroll(ctx(), String(flow.id), { contactIds: already });
        const pool = await h.people.service.pools.create({ workspaceId: h.workspaceId }, { name: 'Paged' });
        await h.people.service.members.add({ workspaceId: h.workspaceId }, String(pool.id), [...members, noAddress]);

        const result = await small.enroll(ctx(), String(flow.id), { poolId: String(pool.id) });
        const sorted = (ids: string[]) => [...ids].sort();
        const suppressed = [members[4]!, members[9]!];
        expect(sorted(result.suppressed)).toEqual(sorted(suppressed));
        expect(sorted(result.already_enrolled)).toEqual(sorted(already));
        expect(sorted(result.enrolled)).toEqual(sorted([...members, noAddress].filter((id) => !suppressed.includes(id) && !already.includes(id))));
        expect(result.not_found).toEqual([]);
        const { rows } = await h.flowsDb.query<{ contact_id: string; n: number }>(
          `SELECT contact_id, count(*)::int AS n FROM enrollments WHERE workspace_id = $1::uuid AND flow_id = $2::uuid GROUP BY contact_id`,
          [h.workspaceId, String(flow.id)],
        );
        expect(rows.every((r) => r.n === 1)).toBe(true);
        expect(sorted(rows.map((r) => r.contact_id))).toEqual(sorted([...result.enrolled, ...already]));
        // One created event per enrollment, across statements; none for the members already enrolled.
        const createdFor = () =>
          h.eventsOf(FlowsEvents.EnrollmentCreated).flatMap((e) => {
            const data = e.data as { flow_id: string; contact_id: string };
            return data.flow_id === String(flow.id) ? [data.contact_id] : [];
          });
        await expectEventually(() => expect(sorted(createdFor())).toEqual(sorted([...result.enrolled, ...already])));

        // A pool that is not the workspace's fails before anything is written.
        await expectError(small.enroll(ctx(), String(flow.id), { poolId: '0190a0e0-0000-7000-8000-00000000b0b1' }), 'validation_failed', /pool/);
      } finally {
        for (const client of clients) client.close();
      }
    });
  });

  describe('the engine', () => {
    test('email → wait → task → email: sends, waits, creates the task and waits for it, then sends the follow-up in the same thread', async () => {
      const flow = await createFlow(
        [
          email('hello'),
          wait('pause', 1),
          { key: 'call', type: 'call', config: { title: 'Call {{ first_name }}', priority: 500 } },
          // No subject: a reply in the thread of the first email.
          { key: 'again', type: 'email', config: { body: '<p>Still there, {{ first_name }}?</p>' } },
        ],
        line({ key: 'hello' }, { key: 'pause' }, { key: 'call' }, { key: 'again' }),
        { owner_id: h.userId },
      );
      const contactId = await h.contact('walk@example.com');
      const e = await enroll(flow.id, contactId);

      const task = await expectEventually(
        async () => {
          const tasks = await h.activities.service.tasks.list(h.workspaceId, parseListQuery(tasks_, { flow_enrollment_id: String(e.id) }));
          expect(tasks.data).toHaveLength(1);
          return tasks.data[0]!;
        },
        { timeoutMs: 20_000 },
      );
      expect(task).toMatchObject({ status: 'open', contact_id: contactId, assignee_id: h.userId, suggested_action: 'call', priority: 500 });
      // The task exists before the engine's round commits: wait for the commit.
      await expectEventually(async () => expect(await enrollment(e.id)).toMatchObject({ status: 'active', next_run_at: null }));
      expect(await sendsOf(e.id)).toHaveLength(1);

      await h.activities.service.tasks.update({ workspaceId: h.workspaceId }, String(task.id), { status: 'completed' });
      await expectEventually(async () => expect(await enrollment(e.id)).toMatchObject({ status: 'completed', next_run_at: null }), { timeoutMs: 20_000 });

      const sends = await sendsOf(e.id);
      expect(sends).toHaveLength(2);
      expect(sends.map((s) => s.subject)).toEqual(['Hello Ada', 'Hello Ada']);
      expect(sends[1]).toMatchObject({ owner_id: h.userId, flow_id: flow.id });
      expect((await steps(e.id)).map((s) => [s.node_key, s.outcome])).toEqual([
        ['hello', 'email_queued'],
        ['pause', 'waited'],
        ['call', 'task_created'],
        ['call', 'task_completed'],
        ['again', 'email_queued'],
        [null, 'completed'],
      ]);
      await expectEventually(async () => {
        const delivered = sink.received.filter((m) => m.to.includes('walk@example.com'));
        expect(delivered).toHaveLength(2);
        expect(delivered[1]!.raw.toString()).toContain(`In-Reply-To: ${sends[0]!.message_id}`);
        expect(delivered[1]!.subject).toBe('Re: Hello Ada');
      });
      const analytics = await flowsOf().analytics(h.workspaceId, String(flow.id));
      expect(analytics).toMatchObject({ enrollments: { completed: 1 }, exits: {} });
      expect(analytics.funnel.map((f) => [f.node_type, f.count])).toEqual([
        ['email', 1],
        ['wait', 1],
        ['call', 1],
        ['email', 1],
      ]);
      await expectEventually(() =>
        expect(h.eventsOf(FlowsEvents.EnrollmentCompleted).map((ev) => (ev.data as { enrollment_id: string }).enrollment_id)).toContain(e.id),
      );
    });

    test('a paused flow holds its enrollments; resumed, they go on', async () => {
      const flow = await createFlow([wait('w', 1), email('e')], line({ key: 'w' }, { key: 'e' }));
      await flowsOf().flows.update(ctx(), String(flow.id), { status: 'paused' });
      const e = await enroll(flow.id, await h.contact('paused@example.com'));
      await expectEventually(async () => expect(new Date(String((await enrollment(e.id)).next_run_at)).getTime()).toBeLessThan(Date.now() - 500), { timeoutMs: 5_000 });
      await flowsOf().engine.round();
      expect(await steps(e.id)).toEqual([]);
      await flowsOf().flows.update(ctx(), String(flow.id), { status: 'active' });
      await expectEventually(async () => expect((await enrollment(e.id)).status).toBe('completed'), { timeoutMs: 15_000 });
    });

    test('a branch on opened waits for a real (not automated) open of the previous email', async () => {
      const flow = await createFlow(
        [email('first'), { key: 'opened', type: 'branch', config: { condition: 'opened', within_seconds: 3_600 } }, wait('yes'), wait('no')],
        [
          { from: 'first', to: 'opened' },
          { from: 'opened', to: 'yes', when: true },
          { from: 'opened', to: 'no', when: false },
        ],
      );
      const e = await enroll(flow.id, await h.contact('opener@example.com'));
      const [sent] = await expectEventually(async () => {
        const sends = await sendsOf(e.id);
        expect(sends).toHaveLength(1);
        expect(sends[0]!.status).toBe('sent');
        return sends;
      }, { timeoutMs: 20_000 });
      const opened = async (isBot: boolean) =>
        h.flows.service.handleEvent({
          id: `0190a0e0-0000-7000-8000-${isBot ? 'b0' : 'a0'}0000000001`,
          type: MessagingEvents.EmailEventRecorded,
          workspace_id: h.workspaceId,
          occurred_at: new Date().toISOString(),
          data: {
            email_event_id: '0190a0e0-0000-7000-8000-e00000000001',
            sent_email_id: sent!.id,
            contact_id: (await enrollment(e.id)).contact_id,
            event_type: 'open',
            occurred_at: new Date().toISOString(),
            is_bot: isBot,
            flow: { flow_id: flow.id, node_id: (flow.nodes as { id: string }[])[0]!.id, enrollment_id: e.id },
          },
        } as never);
      await opened(true);
      await flowsOf().engine.round();
      expect((await steps(e.id)).map((s) => s.outcome)).toEqual(['email_queued']);
      await opened(false);
      await expectEventually(async () => expect((await steps(e.id)).map((s) => [s.node_key, s.outcome])).toContainEqual(['opened', 'branch_true']), {
        timeoutMs: 10_000,
      });
    });

    test('a contact without an address fails its enrollment at the email step, with the reason', async () => {
      const flow = await createFlow([email('hi')], []);
      const e = await enroll(flow.id, await h.contact(null, { last_name: 'Nomail' }));
      await expectEventually(async () => expect(await enrollment(e.id)).toMatchObject({ status: 'failed', failure_reason: expect.stringMatching(/^no_address: /) }), {
        timeoutMs: 15_000,
      });
    });
  });

  describe('exits', () => {
    const started = async (address: string, nodes = [email('first'), wait('pause', 3_600), email('second')]) => {
      const flow = await createFlow(nodes, line(...nodes));
      const contactId = await h.contact(address);
      const e = await enroll(flow.id, contactId);
      const [sent] = await expectEventually(
        async () => {
          const sends = await sendsOf(e.id);
          expect(sends).toHaveLength(1);
          return sends;
        },
        { timeoutMs: 20_000 },
      );
      return { flow, contactId, e, sent: sent! };
    };

    test('a reply exits the enrollment of the flow it answers, and only that one', async () => {
      const { contactId, e, sent } = await started('replier@example.com');
      const elsewhere = await createFlow([wait('w', 3_600)], []);
      const other = await enroll(elsewhere.id, contactId);
      await expectEventually(async () => expect((await h.messaging.service.sentEmails.get(h.workspaceId, String(sent.id))).status).toBe('sent'), { timeoutMs: 15_000 });
      const reply = Buffer.from(
        `From: Ada <replier@example.com>\r\nTo: ana@acme.test\r\nSubject: Re: Hello Ada\r\nMessage-ID: <reply-${sent.id}@example.com>\r\n` +
          `In-Reply-To: ${sent.message_id}\r\nReferences: ${sent.message_id}\r\n\r\nYes, let's talk.\r\n`,
      );
      await expect(h.messaging.service.inbound.ingest(reply)).resolves.toMatchObject({ kind: 'reply' });
      await expectEventually(async () => expect(await enrollment(e.id)).toMatchObject({ status: 'exited', exit_reason: 'replied' }));
      expect(await enrollment(other.id)).toMatchObject({ status: 'active' });
    });

    test("an out-of-office reply pauses every active enrollment of the contact until the day after the return it names; a person's reply still exits", async () => {
      const { contactId, e, sent } = await started('away@example.com');
      const elsewhere = await createFlow([wait('w', 3_600)], []);
      const other = await enroll(elsewhere.id, contactId);
      await expectEventually(async () => expect((await h.messaging.service.sentEmails.get(h.workspaceId, String(sent.id))).status).toBe('sent'), { timeoutMs: 15_000 });
      const until = new Date(Date.now() + 10 * 86_400_000);
      const month = until.toLocaleString('en-GB', { month: 'long', timeZone: 'UTC' });
      const auto = Buffer.from(
        `From: Ada <away@example.com>\r\nTo: ana@acme.test\r\nSubject: Automatic reply: Hello Ada\r\nAuto-Submitted: auto-replied\r\n` +
          `Date: ${new Date().toUTCString()}\r\nMessage-ID: <ooo-${sent.id}@example.com>\r\nIn-Reply-To: ${sent.message_id}\r\n\r\n` +
          `I am out of the office until ${until.getUTCDate()} ${month} ${until.getUTCFullYear()} with no access to email.\r\n`,
      );
      await expect(h.messaging.service.inbound.ingest(auto)).resolves.toMatchObject({ kind: 'auto_reply' });
      // Away until that day, back the day after, resumed the day after that (no schedule: midnight at the reply's offset).
      const resumes = new Date(Date.UTC(until.getUTCFullYear(), until.getUTCMonth(), until.getUTCDate() + 2)).toISOString();
      for (const id of [e.id, other.id]) {
        await expectEventually(async () => expect(await enrollment(id)).toMatchObject({ status: 'paused', next_run_at: resumes }));
      }
      const backOn = new Date(Date.parse(resumes) - 86_400_000).toISOString().slice(0, 10);
      expect((await steps(e.id)).at(-1)).toMatchObject({
        outcome: 'paused',
        detail: `out-of-office reply, back on ${backOn} ("until ${until.getUTCDate()} ${month} ${until.getUTCFullYear()}"); resumes ${resumes}`,
      });

      const reply = Buffer.from(
        `From: Ada <away@example.com>\r\nTo: ana@acme.test\r\nSubject: Re: Hello Ada\r\nMessage-ID: <reply-${sent.id}@example.com>\r\n` +
          `In-Reply-To: ${sent.message_id}\r\nReferences: ${sent.message_id}\r\n\r\nBack early: yes, let's talk.\r\n`,
      );
      await expect(h.messaging.service.inbound.ingest(reply)).resolves.toMatchObject({ kind: 'reply' });
      await expectEventually(async () => expect(await enrollment(e.id)).toMatchObject({ status: 'exited', exit_reason: 'replied', next_run_at: null }));
      expect(await enrollment(other.id)).toMatchObject({ status: 'paused', next_run_at: resumes });
    });

    test('an unsubscribe, a meeting with the contact and the contact deleted exit every open enrollment of the contact', async () => {
      const u = await started('unsub@example.com');
      const token = /\/u\/([A-Za-z0-9_-]+)/.exec(sink.received.find((m) => m.to.includes('unsub@example.com'))?.raw.toString() ?? '')?.[1];
      await expectEventually(async () => expect(sink.received.some((m) => m.to.includes('unsub@example.com'))).toBe(true), { timeoutMs: 15_000 });
      const raw = sink.received.find((m) => m.to.includes('unsub@example.com'))!.raw.toString().replace(/=\r?\n/g, '');
      const unsubscribeToken = token ?? /\/u\/([A-Za-z0-9_-]+)/.exec(raw)![1]!;
      await h.messaging.service.engagement.record({ kind: 'unsubscribe', token: unsubscribeToken, method: 'POST' });
      await expectEventually(async () => expect(await enrollment(u.e.id)).toMatchObject({ status: 'exited', exit_reason: 'unsubscribed' }));

      const m = await started('meeting@example.com');
      await h.activities.service.meetings.create(
        { workspaceId: h.workspaceId },
        { title: 'Demo', contact_id: m.contactId, scheduled_start: '2027-01-05T10:00:00Z', scheduled_end: '2027-01-05T10:30:00Z' },
      );
      await expectEventually(async () => expect(await enrollment(m.e.id)).toMatchObject({ status: 'exited', exit_reason: 'meeting_booked' }));

      const d = await started('deleted@example.com');
      await h.people.service.contacts.delete({ workspaceId: h.workspaceId }, d.contactId);
      await expectEventually(async () => expect(await enrollment(d.e.id)).toMatchObject({ status: 'exited', exit_reason: 'contact_deleted' }));
    });

    test('an exit cancels the send its enrollment queued and the SMTP server has not taken yet', async () => {
      // The SMTP server defers this address: the first email stays queued at messaging.
      const { e, sent } = await started('hold-me@example.com');
      expect(sent.status).toBe('queued');
      await flowsOf().enrollments.store.update(ctx(), String(e.id), { status: 'exited' });
      await expectEventually(
        async () =>
          expect(await h.messaging.service.sentEmails.get(h.workspaceId, String(sent.id))).toMatchObject({
            status: 'failed',
            failure_reason: expect.stringMatching(/enrollment_exited:manual/),
          }),
        { timeoutMs: 15_000 },
      );
      expect(sink.countOf(String(sent.message_id))).toBe(0);
    });
  });

  if (backend.name === 'postgres') {
    test('two engines on one database work 10,000 enrollments, every step exactly once', async () => {
      const replica = await h.replica();
      const flow = await createFlow([wait('a', 1), wait('b', 1), { key: 'z', type: 'end' }], line({ key: 'a' }, { key: 'b' }, { key: 'z' }));
      const entry = (flow.nodes as { id: string }[])[0]!.id;
      // Seeded in SQL (the contacts need not exist for wait steps): all due at once.
      await h.flowsDb.query(
        `INSERT INTO enrollments (workspace_id, id, flow_id, contact_id, status, current_node_id, next_run_at, visits, enrolled_at, started_at, created_at, updated_at)
         SELECT $1::uuid, gen_random_uuid(), $2::uuid, gen_random_uuid(), 'active', $3::uuid, now(), jsonb_build_object($3::text, 1), now(), now(), now(), now()
           FROM generate_series(1, 10000)`,
        [h.workspaceId, flow.id, entry],
      );
      flowsOf().engine.wake();
      replica.service.engine.wake();
      await expectEventually(
        async () => {
          const { rows } = await h.flowsDb.query<{ status: string; n: number }>(
            `SELECT status, count(*)::int AS n FROM enrollments WHERE workspace_id = $1::uuid AND flow_id = $2::uuid GROUP BY status`,
            [h.workspaceId, flow.id],
          );
          expect(rows).toEqual([{ status: 'completed', n: 10_000 }]);
        },
        { timeoutMs: 90_000, intervalMs: 500 },
      );
      const { rows } = await h.flowsDb.query<{ shape: string; n: number }>(
        `SELECT shape, count(*)::int AS n FROM (
           SELECT string_agg(coalesce(node_key, '-') || ':' || outcome, ',' ORDER BY occurred_at, outcome DESC) AS shape
             FROM enrollment_steps WHERE workspace_id = $1::uuid AND flow_id = $2::uuid GROUP BY enrollment_id
         ) s GROUP BY shape`,
        [h.workspaceId, flow.id],
      );
      expect(rows).toEqual([{ shape: 'a:waited,b:waited,z:completed', n: 10_000 }]);
      await replica.stop();
    });
  }
});
