import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { CrmError, type SqlClient, createPgClient, newEvent } from '@crm/kit';
import { TEST_DATABASE_URL, expectEventually, sqlBackends } from '@crm/kit/testing';
import { PERFORMANCE_WINDOWS, type PerformanceWindow, parseTimelineQuery } from '@crm/messaging-contract';
import { ActivitiesEvents } from '@crm/proto';
import { type SmtpSink, startSmtpSink } from '../../../test/support/smtp-sink';
import { type LedgerMetric, readPerformance, recordLedger, recordLedgerEntries } from './ledger';
import { type MessagingHarness, openMessaging } from './testing/harness';

jest.setTimeout(60_000);

const text = (raw: Buffer) => raw.toString('utf8').replace(/=\r?\n/g, '').replace(/=3D/g, '=');
const tokenIn = (raw: Buffer, kind: 'o' | 'c') => new RegExp(`/t/${kind}/([A-Za-z0-9_-]+)`).exec(text(raw))?.[1];
const HUMAN = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Safari/605.1.15';

describe.each(sqlBackends())('the engagement ledger on $name', (backend) => {
  let sink: SmtpSink;
  let h: MessagingHarness;

  beforeAll(async () => {
    sink = await startSmtpSink();
    const reopen = backend.name === 'postgres' ? (schema: string) => createPgClient({ url: TEST_DATABASE_URL, schema, max: 4 }) : undefined;
    h = await openMessaging(backend, { SMTP_URL: sink.url }, reopen);
  });
  afterAll(async () => {
    await h?.close();
    await sink?.close();
  });

  const timeline = (contactId: string, raw: Record<string, string> = {}) => h.messaging.service.timeline(h.workspaceId, contactId, parseTimelineQuery(raw));

  test('a send, its opens, clicks and reply, a touchpoint, a call, a meeting and a task: once each on the timeline, newest first, and in the counts', async () => {
    const contactId = await h.contact('ledger@example.com', { owner_id: h.userId });
    const before = await h.messaging.service.performance(h.workspaceId, h.userId, '24h');
    const queued = await h.messaging.service.sends.queue({ workspaceId: h.workspaceId }, { contact_id: contactId, owner_id: h.userId, subject: 'Intro', body: '<p><a href="https://example.com/x">x</a></p>' });
    await expectEventually(async () => expect((await h.messaging.service.sentEmails.get(h.workspaceId, String(queued.id))).status).toBe('sent'));
    const raw = sink.received.find((m) => m.messageId === queued.message_id)!.raw;
    await h.db.query(`UPDATE sent_emails SET sent_at = now() - interval '1 minute' WHERE workspace_id = $1 AND id = $2`, [h.workspaceId, queued.id]);
    const engagement = h.messaging.service.engagement;
    // Two human opens are one email opened; a bot's click is on the timeline but not counted.
    await engagement.record({ kind: 'open', token: tokenIn(raw, 'o')!, userAgent: HUMAN, method: 'GET' });
    await engagement.record({ kind: 'open', token: tokenIn(raw, 'o')!, userAgent: HUMAN, method: 'GET' });
    await engagement.record({ kind: 'click', token: tokenIn(raw, 'c')!, userAgent: 'python-requests/2.31', method: 'GET' });
    await engagement.record({ kind: 'click', token: tokenIn(raw, 'c')!, userAgent: HUMAN, method: 'GET' });
    const reply = `From: ledger@example.com\r\nTo: ana@acme.test\r\nSubject: Re: Intro\r\nMessage-ID: <${randomUUID()}@example.com>\r\nIn-Reply-To: ${queued.message_id}\r\n\r\nSure.\r\n`;
    await h.messaging.service.inbound.ingest(Buffer.from(reply));
    await h.messaging.service.touchpoints.create({ workspaceId: h.workspaceId }, { contact_id: contactId, owner_id: h.userId, channel: 'chat_app', direction: 'inbound', summary: 'Pinged on chat' });

    const at = (minutesAgo: number) => new Date(Date.now() - minutesAgo * 60_000).toISOString();
    const callId = randomUUID();
    const taskId = randomUUID();
    const activity = [
      newEvent(ActivitiesEvents.CallLogged, h.workspaceId, { call_log_id: callId, contact_id: contactId, owner_id: h.userId, status: 'completed', outcome: 'connected', occurred_at: at(30), duration_seconds: 95 }),
      newEvent(ActivitiesEvents.MeetingScheduled, h.workspaceId, { meeting_id: randomUUID(), contact_id: contactId, owner_id: h.userId, scheduled_start: '2026-12-01T10:00:00.000Z', occurred_at: at(20) }),
      newEvent(ActivitiesEvents.TaskCreated, h.workspaceId, { task_id: taskId, contact_id: contactId, assignee_id: h.userId, status: 'open', title: 'Send pricing', created_at: at(10) }),
      newEvent(ActivitiesEvents.TaskCompleted, h.workspaceId, { task_id: taskId, contact_id: contactId, assignee_id: h.userId, title: 'Send pricing', completed_at: at(5) }),
    ];
    // Each published twice: a redelivery records nothing more.
    for (const event of [...activity, ...activity]) await h.bus.publish(event);

    const kinds = ['sent_email', 'email_event', 'email_event', 'email_event', 'email_event', 'email_event', 'touchpoint', 'call_log', 'meeting', 'task', 'task'];
    await expectEventually(async () => expect((await timeline(contactId)).data).toHaveLength(kinds.length));
    const all = (await timeline(contactId)).data;
    expect(all.map((e) => e.kind).sort()).toEqual([...kinds].sort());
    const times = all.map((e) => e.occurred_at);
    expect(times).toEqual([...times].sort().reverse());
    expect(all.find((e) => e.kind === 'call_log')).toMatchObject({ id: callId, summary: 'Call completed (connected), 95 s', payload: { duration_seconds: 95 } });
    expect(all.filter((e) => e.kind === 'task').map((e) => e.summary).sort()).toEqual(['Task completed: Send pricing', 'Task created: Send pricing']);
    expect(all.find((e) => e.kind === 'sent_email')).toMatchObject({ id: queued.id, payload: { subject: 'Intro', to_email: 'ledger@example.com' } });

    // Paged three at a time, the same rows in the same order; filtered by kind and time.
    const paged: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await timeline(contactId, { limit: '3', ...(cursor ? { cursor } : {}) });
      paged.push(...page.data.map((e) => `${e.kind}:${e.id}:${e.occurred_at}`));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    expect(paged).toEqual(all.map((e) => `${e.kind}:${e.id}:${e.occurred_at}`));
    expect((await timeline(contactId, { kind: 'email_event' })).data.map((e) => e.payload.event_type).sort()).toEqual(['click', 'click', 'open', 'open', 'reply']);
    expect((await timeline(contactId, { since: at(25), until: at(7) })).data.map((e) => e.kind).sort()).toEqual(['meeting', 'task']);

    const after = await h.messaging.service.performance(h.workspaceId, h.userId, '24h');
    const delta = Object.fromEntries(Object.entries(after).filter(([k]) => !k.startsWith('window')).map(([k, v]) => [k, (v as number) - (before[k as keyof typeof before] as number)]));
    expect(delta).toEqual({ emails_sent: 1, emails_replied: 1, emails_opened: 1, emails_clicked: 1, calls_placed: 1, call_talk_seconds: 95, meetings_scheduled: 1, tasks_completed: 1 });
    expect(Date.parse(after.window_end) - Date.parse(after.window_start)).toBe(24 * 3_600_000);
  });

  test('clicks found to be a burst after they were counted count no more, and a person\'s later click still counts', async () => {
    const contactId = await h.contact('burst@example.com', { owner_id: h.userId });
    const before = await h.messaging.service.performance(h.workspaceId, h.userId, '24h');
    const links = ['a', 'b', 'c'].map((x) => `<a href="https://example.com/${x}">${x}</a>`).join(' ');
    const queued = await h.messaging.service.sends.queue({ workspaceId: h.workspaceId }, { contact_id: contactId, owner_id: h.userId, subject: 'Links', body: `<p>${links}</p>` });
    await expectEventually(async () => expect((await h.messaging.service.sentEmails.get(h.workspaceId, String(queued.id))).status).toBe('sent'));
    const raw = sink.received.find((m) => m.messageId === queued.message_id)!.raw;
    await h.db.query(`UPDATE sent_emails SET sent_at = now() - interval '1 minute' WHERE workspace_id = $1 AND id = $2`, [h.workspaceId, queued.id]);
    const tokens = [...text(raw).matchAll(/\/t\/c\/([A-Za-z0-9_-]+)/g)].map((m) => m[1]!);
    expect(new Set(tokens).size).toBe(3);
    const click = (token: string) => h.messaging.service.engagement.record({ kind: 'click', token, userAgent: HUMAN, method: 'GET' });
    const clicked = async () => (await h.messaging.service.performance(h.workspaceId, h.userId, '24h')).emails_clicked - before.emails_clicked;

    await click(tokens[0]!);
    expect(await clicked()).toBe(1);
    // Every link within a second: a scanner. The first click is flagged with the others and uncounted.
    const at = Date.now();
    await click(tokens[1]!);
    await click(tokens[2]!);
    expect(await clicked()).toBe(0);
    const rows = (await timeline(contactId, { kind: 'email_event' })).data;
    expect(rows.map((e) => e.payload.is_bot)).toEqual([true, true, true]);
    // Once the burst window has passed, a person's click on one link counts again.
    await expectEventually(async () => expect(Date.now() - at).toBeGreaterThan(1_100), { timeoutMs: 5_000 });
    await click(tokens[0]!);
    expect(await clicked()).toBe(1);
  });

  test('an unknown contact or user is not_found; a cursor of another contact or filter is refused', async () => {
    await expect(timeline(randomUUID())).rejects.toMatchObject({ code: 'not_found' });
    await expect(h.messaging.service.performance(h.workspaceId, randomUUID(), '7d')).rejects.toMatchObject({ code: 'not_found' });
    const a = await h.contact('a@example.com');
    const b = await h.contact('b@example.com');
    for (const contactId of [a, b]) {
      for (let i = 0; i < 3; i++) {
        await h.messaging.service.touchpoints.create({ workspaceId: h.workspaceId }, { contact_id: contactId, channel: 'call', direction: 'outbound', summary: `t${i}` });
      }
    }
    const first = await timeline(a, { limit: '2' });
    const refused = async (promise: Promise<unknown>) => expect(await promise.catch((e: unknown) => e)).toBeInstanceOf(CrmError);
    await refused(timeline(b, { limit: '2', cursor: first.nextCursor! }));
    await refused(timeline(a, { limit: '2', kind: 'touchpoint', cursor: first.nextCursor! }));
    expect((await timeline(a, { limit: '2', cursor: first.nextCursor! })).data).toHaveLength(1);
  });

  test('performance over any window is exactly the count of its rows (generated times, both edges inside an hour)', async () => {
    const METRICS: LedgerMetric[] = ['emails_sent', 'emails_replied', 'emails_opened', 'emails_clicked', 'calls_placed', 'meetings_scheduled', 'tasks_completed'];
    await fc.assert(
      fc.asyncProperty(
        // Rows anywhere in 92 days, and many just around the window's start and end (both bounds are inside).
        fc.array(
          fc.record({
            near: fc.constantFrom('start', 'end', 'anywhere'),
            offsetMs: fc.oneof(fc.integer({ min: -90 * 60_000, max: 90 * 60_000 }), fc.constantFrom(-1, 0, 1)),
            anywhereMinutes: fc.integer({ min: 0, max: 92 * 24 * 60 }),
            metric: fc.constantFrom(...METRICS),
            seconds: fc.integer({ min: 0, max: 600 }),
          }),
          { maxLength: 40 },
        ),
        fc.constantFrom(...(Object.keys(PERFORMANCE_WINDOWS) as PerformanceWindow[])),
        fc.oneof(fc.integer({ min: 0, max: 3_599_999 }), fc.constantFrom(0, 1, 1_800_000, 3_599_999)),
        async (rows, window, offsetMs) => {
          const userId = randomUUID();
          const now = new Date(Date.UTC(2026, 10, 25, 12) + offsetMs);
          const start = now.getTime() - PERFORMANCE_WINDOWS[window] * 3_600_000;
          const timeOf = (r: (typeof rows)[number]) =>
            r.near === 'start' ? start + r.offsetMs : r.near === 'end' ? now.getTime() + r.offsetMs : now.getTime() - r.anywhereMinutes * 60_000;
          const db: SqlClient = h.db;
          await db.transaction(async (tx) => {
            for (const row of rows) {
              await recordLedger(tx, h.workspaceId, {
                kind: row.metric === 'calls_placed' ? 'call_log' : 'task',
                sourceId: randomUUID(),
                contactId: null,
                userId,
                occurredAt: new Date(timeOf(row)),
                summary: 'generated',
                payload: {},
                metric: row.metric,
                talkSeconds: row.seconds,
              });
            }
          });
          const got = await readPerformance(db, h.workspaceId, userId, window, now);
          const inside = rows.filter((r) => timeOf(r) >= start && timeOf(r) <= now.getTime());
          const expected: Record<string, number> = Object.fromEntries(METRICS.map((m) => [m, inside.filter((r) => r.metric === m).length]));
          expected.call_talk_seconds = inside.filter((r) => r.metric === 'calls_placed').reduce((sum, r) => sum + r.seconds, 0);
          const { window_start: _s, window_end: _e, ...counts } = got;
          expect(counts).toEqual(expected);
        },
      ),
      { numRuns: backend.name === 'postgres' ? 60 : 25 },
    );
  });

  test('facts recorded in batches are recorded as one by one: the rows, their text, and each email counted once (generated batches)', async () => {
    const EMAIL: LedgerMetric[] = ['emails_opened', 'emails_clicked', 'emails_replied'];
    const sends = [randomUUID(), randomUUID(), randomUUID()];
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            metric: fc.option(fc.constantFrom(...EMAIL, 'calls_placed' as const), { nil: undefined }),
            send: fc.option(fc.constantFrom(...sends), { nil: undefined }),
            minutesAgo: fc.integer({ min: 0, max: 120 }),
            // Text that array parameters must carry intact: quotes, braces, commas, backslashes, NULL-like words.
            summary: fc.oneof(fc.string({ maxLength: 30 }), fc.constantFrom('"quoted", {braced}', 'back\\slash', 'NULL', '', 'ünïcødé ✓')),
            url: fc.option(fc.constantFrom('https://example.com/a?b="c"', 'x,y{z}'), { nil: undefined }),
            seconds: fc.integer({ min: 0, max: 600 }),
          }),
          { minLength: 1, maxLength: 30 },
        ),
        fc.array(fc.integer({ min: 1, max: 8 }), { minLength: 1, maxLength: 30 }),
        async (rows, cuts) => {
          const userId = randomUUID();
          const now = new Date();
          const entries = rows.map((row) => ({
            workspaceId: h.workspaceId,
            entry: {
              kind: 'email_event' as const,
              sourceId: randomUUID(),
              contactId: null,
              userId,
              occurredAt: new Date(now.getTime() - row.minutesAgo * 60_000),
              summary: row.summary,
              payload: { url: row.url ?? null, note: row.summary },
              metric: row.metric,
              talkSeconds: row.seconds,
              // Unique per run, so earlier runs' claims do not count.
              ...(row.send && row.metric && row.metric !== 'calls_placed' ? { oncePerSend: `${userId.slice(0, 24)}${row.send.slice(24)}` } : {}),
            },
          }));
          // In batches of the generated sizes.
          await h.db.transaction(async (tx) => {
            let at = 0;
            for (const cut of [...cuts, entries.length]) {
              if (at >= entries.length) break;
              await recordLedgerEntries(tx, entries.slice(at, at + cut));
              at += cut;
            }
          });
          const { rows: stored } = await h.db.query<{ source_id: string; summary: string; payload: Record<string, unknown>; metric: string | null }>(
            `SELECT source_id, summary, payload, metric FROM engagement_ledger WHERE workspace_id = $1 AND user_id = $2`,
            [h.workspaceId, userId],
          );
          const bySource = new Map(stored.map((r) => [r.source_id, r]));
          // One by one, in order: a once-per-send metric counts for the first of its send only.
          const claimed = new Set<string>();
          for (const { entry } of entries) {
            const row = bySource.get(entry.sourceId)!;
            expect(row.summary).toBe(entry.summary);
            expect(row.payload).toEqual(entry.payload);
            const key = entry.oncePerSend ? `${entry.oncePerSend}/${entry.metric}` : undefined;
            const counts = entry.metric !== undefined && (key === undefined || !claimed.has(key));
            if (key) claimed.add(key);
            expect(row.metric).toBe(counts ? entry.metric : null);
          }
          const got = await readPerformance(h.db, h.workspaceId, userId, '24h', new Date(now.getTime() + 1));
          for (const metric of [...EMAIL, 'calls_placed' as const]) {
            expect(got[metric]).toBe(stored.filter((r) => r.metric === metric).length);
          }
          const talk = entries.filter(({ entry }) => bySource.get(entry.sourceId)!.metric === 'calls_placed').reduce((sum, { entry }) => sum + entry.talkSeconds, 0);
          expect(got.call_talk_seconds).toBe(talk);
        },
      ),
      { numRuns: backend.name === 'postgres' ? 40 : 20 },
    );
  });
});
