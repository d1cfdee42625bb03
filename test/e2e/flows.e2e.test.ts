/**
 * Flows end to end: the flows, messaging and activities services each in their own `crm start`
 * process behind the gateway, a real SMTP server receiving what messaging delivers, and the engine
 * working enrollments through email, wait, task and email steps. Task completions and exits travel
 * as events between processes, which is NATS: these tests run where NATS is (all-in-one, one
 * process with its in-process bus, is covered by the flows service's own tests).
 */
import { TEST_NATS_URL, expectEventually, serviceAvailable } from '@crm/kit/testing';
import { sendToInbound } from '../support/mail';
import { freePort } from '../support/processes';
import { type SmtpSink, startSmtpSink } from '../support/smtp-sink';
import { type Stack, startStack } from '../support/stack';

jest.setTimeout(240_000);

const natsUp = serviceAvailable('NATS', TEST_NATS_URL);

let stack: Stack | undefined;
let sink: SmtpSink;
let inboundPort = 0;
let key = '';

beforeAll(async () => {
  sink = await startSmtpSink();
  inboundPort = await freePort();
  stack = await startStack({
    componentEnv: {
      messaging: { SMTP_URL: sink.url, INBOUND_SMTP_ADDR: `127.0.0.1:${inboundPort}`, MAIL_DOMAIN: 'mail.test' },
      flows: { FLOW_ENGINE_POLL_MS: '200' },
    },
  });
  key = (await stack.workspaceWithKey('Sequencers', '*')).key;
}, 200_000);
afterAll(async () => {
  await stack?.stop();
  await sink?.close();
});

const api = (method: string, path: string, body?: unknown) => stack!.api(method, path, { key, ...(body === undefined ? {} : { body }) });

async function created(path: string, body: unknown): Promise<any> {
  const response = await api('POST', path, body);
  expect([path, response.status, response.body.error]).toEqual([path, 201, undefined]);
  return response.body.data;
}

const messagesTo = (email: string) => sink.received.filter((m) => m.to.includes(email));
const header = (raw: Buffer, name: string) => new RegExp(`^${name}: *(.*)$`, 'im').exec(raw.toString('utf8'))?.[1]?.trim();

async function enrollment(id: string) {
  return (await api('GET', `/v1/enrollments/${id}`)).body.data;
}

// A task's completion reaches the engine as an event from activities: between processes, over NATS.
(natsUp ? test : test.skip)('email → wait → task completed over the API → email → end: exactly two messages per contact, the second in the thread', async () => {
  const flow = await created('/v1/flows', {
    name: 'Intro with a call',
    status: 'active',
    nodes: [
      { key: 'hello', type: 'email', config: { subject: 'Hi {{first_name}}', body: '<p>Hello {{first_name}}</p>' } },
      { key: 'pause', type: 'wait', config: { duration_seconds: 1 } },
      { key: 'call', type: 'call', config: { title: 'Call {{first_name}}' } },
      { key: 'again', type: 'email', config: { body: '<p>Following up, {{first_name}}.</p>' } },
      { key: 'done', type: 'end' },
    ],
    edges: [
      { from: 'hello', to: 'pause' },
      { from: 'pause', to: 'call' },
      { from: 'call', to: 'again' },
      { from: 'again', to: 'done' },
    ],
  });
  const people = await Promise.all(['ada', 'grace'].map((name) => created('/v1/contacts', { first_name: name, email: `${name}@flows.test` })));
  const enrollments = await Promise.all(people.map((c) => created('/v1/enrollments', { flow_id: flow.id, contact_id: c.id })));

  // Each reaches its call step: an open task of the enrollment, completed here as a rep would.
  for (const e of enrollments) {
    const task = await expectEventually(async () => {
      const tasks = (await api('GET', `/v1/tasks?flow_enrollment_id=${e.id}`)).body.data;
      expect(tasks).toHaveLength(1);
      expect(tasks[0]).toMatchObject({ status: 'open', type: 'call' });
      return tasks[0];
    }, { timeoutMs: 60_000 });
    expect((await api('PATCH', `/v1/tasks/${task.id}`, { status: 'completed' })).status).toBe(200);
  }
  for (const [i, e] of enrollments.entries()) {
    await expectEventually(async () => expect((await enrollment(e.id)).status).toBe('completed'), { timeoutMs: 60_000 });
    const email = `${people[i].first_name}@flows.test`;
    await expectEventually(() => expect(messagesTo(email)).toHaveLength(2), { timeoutMs: 30_000 });
    const [first, second] = messagesTo(email);
    expect(first!.subject).toBe(`Hi ${people[i].first_name}`);
    // The follow-up without a subject replies in the thread under the first one's.
    expect(second!.subject).toBe(`Re: Hi ${people[i].first_name}`);
    expect(header(second!.raw, 'In-Reply-To')).toBe(first!.messageId);
    const steps = (await api('GET', `/v1/enrollments/${e.id}/steps?sort=occurred_at`)).body.data.map((s: any) => [s.node_key, s.outcome]);
    expect(steps).toEqual([
      ['hello', 'email_queued'],
      ['pause', 'waited'],
      ['call', 'task_created'],
      ['call', 'task_completed'],
      ['again', 'email_queued'],
      ['done', 'completed'],
    ]);
  }
  const analytics = (await api('GET', `/v1/flows/${flow.id}/analytics`)).body.data;
  expect(analytics.enrollments).toMatchObject({ completed: 2 });
});

// Exits travel between processes as events: over NATS, where it is.
(natsUp ? test : test.skip)('a reply, a meeting and a contact deletion each exit the enrollment with their reason, and nothing more is sent', async () => {
  const flow = await created('/v1/flows', {
    name: 'Patient follow-up',
    status: 'active',
    nodes: [
      { key: 'hello', type: 'email', config: { subject: 'Quick question', body: '<p>Hi {{first_name}}</p>' } },
      { key: 'pause', type: 'wait', config: { duration_seconds: 3600 } },
      { key: 'again', type: 'email', config: { body: '<p>Bumping this.</p>' } },
    ],
    edges: [
      { from: 'hello', to: 'pause' },
      { from: 'pause', to: 'again' },
    ],
  });
  const [replier, booker, leaver] = await Promise.all(['replier', 'booker', 'leaver'].map((n) => created('/v1/contacts', { first_name: n, email: `${n}@exits.test` })));
  const [byReply, byMeeting, byDeletion] = await Promise.all(
    [replier, booker, leaver].map((c) => created('/v1/enrollments', { flow_id: flow.id, contact_id: c.id })),
  );
  for (const n of ['replier', 'booker', 'leaver']) await expectEventually(() => expect(messagesTo(`${n}@exits.test`)).toHaveLength(1), { timeoutMs: 60_000 });

  const first = messagesTo('replier@exits.test')[0]!;
  await sendToInbound(inboundPort, { from: 'replier@exits.test', to: 'reply@mail.test', subject: 'Re: Quick question', text: 'Not now, thanks.', inReplyTo: first.messageId, references: [first.messageId!] });
  await created('/v1/meetings', { title: 'Demo', contact_id: booker.id, scheduled_start: '2026-12-01T15:00:00Z', scheduled_end: '2026-12-01T15:30:00Z' });
  expect((await api('DELETE', `/v1/contacts/${leaver.id}`)).status).toBe(204);

  for (const [e, reason] of [
    [byReply, 'replied'],
    [byMeeting, 'meeting_booked'],
    [byDeletion, 'contact_deleted'],
  ] as const) {
    await expectEventually(async () => expect(await enrollment(e.id)).toMatchObject({ status: 'exited', exit_reason: reason }), { timeoutMs: 60_000 });
    const steps = (await api('GET', `/v1/enrollments/${e.id}/steps?sort=occurred_at`)).body.data.map((s: any) => s.outcome);
    expect(steps[steps.length - 1]).toBe('exited');
    expect(steps.filter((o: string) => o === 'email_queued')).toHaveLength(1);
  }
  expect((await api('GET', `/v1/flows/${flow.id}/analytics`)).body.data.exits).toMatchObject({ replied: 1, meeting_booked: 1, contact_deleted: 1 });
});

/** The instant `zone`'s clock reads `date` (YYYY-MM-DD) at `hhmm`, read back through Intl. */
function zonedInstant(zone: string, date: string, hhmm: string): string {
  const wall = Date.parse(`${date}T${hhmm}:00.000Z`);
  const wallAt = (t: number) => {
    const p = Object.fromEntries(
      new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric' })
        .formatToParts(t)
        .map((x) => [x.type, Number(x.value)]),
    );
    return Date.UTC(p.year!, p.month! - 1, p.day!, p.hour!, p.minute!);
  };
  let t = wall - (wallAt(wall) - wall);
  t = wall - (wallAt(t) - t);
  expect(wallAt(t)).toBe(wall);
  return new Date(t).toISOString();
}
const ymd = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const DAY_MS = 86_400_000;

// The auto-reply travels from messaging to flows as an event: over NATS, where it is.
(natsUp ? test : test.skip)('an out-of-office reply over SMTP pauses the enrollment until the day after the return it names, in the schedule, and it resumes then', async () => {
  // A daily window 08:00 to 20:00 in a zone where it is open now, so the first email goes at once.
  const zones = ['Europe/Paris', 'America/New_York', 'America/Los_Angeles', 'Pacific/Honolulu', 'Asia/Kolkata', 'Asia/Tokyo', 'Australia/Sydney', 'Pacific/Auckland', 'UTC'];
  const hourIn = (zone: string) => Number(new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', hour: 'numeric' }).format(new Date()));
  const zone = zones.find((z) => hourIn(z) >= 9 && hourIn(z) <= 18)!;
  const schedule = { timezone: zone, days: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'], start: '08:00', end: '20:00' };
  const away = await created('/v1/flows', {
    name: 'Away for a while',
    status: 'active',
    schedule,
    nodes: [
      { key: 'hello', type: 'email', config: { subject: 'Quick question', body: '<p>Hi {{first_name}}</p>' } },
      { key: 'pause', type: 'wait', config: { duration_seconds: 3600 } },
      { key: 'again', type: 'email', config: { body: '<p>Bumping this.</p>' } },
    ],
    edges: [
      { from: 'hello', to: 'pause' },
      { from: 'pause', to: 'again' },
    ],
  });
  const back = await created('/v1/flows', {
    name: 'Back already',
    status: 'active',
    nodes: [
      { key: 'hello', type: 'email', config: { subject: 'Quick question', body: '<p>Hi {{first_name}}</p>' } },
      { key: 'pause', type: 'wait', config: { duration_seconds: 30 } },
      { key: 'again', type: 'email', config: { body: '<p>Bumping this.</p>' } },
    ],
    edges: [
      { from: 'hello', to: 'pause' },
      { from: 'pause', to: 'again' },
    ],
  });
  const [vacationer, returner] = await Promise.all(['vacationer', 'returner'].map((n) => created('/v1/contacts', { first_name: n, email: `${n}@away.test` })));
  const paused = await created('/v1/enrollments', { flow_id: away.id, contact_id: vacationer.id });
  const resumed = await created('/v1/enrollments', { flow_id: back.id, contact_id: returner.id });
  for (const n of ['vacationer', 'returner']) await expectEventually(() => expect(messagesTo(`${n}@away.test`)).toHaveLength(1), { timeoutMs: 60_000 });

  const now = Date.now();
  // Sent first, before its flow's 30 s wait ends: an auto-reply that spent six days in transit
  // names a return that has come since. The enrollment is paused until then, which has passed, so
  // the engine resumes it at once, and the flow goes on to its next email when its own wait ends.
  const written = now - 6 * DAY_MS;
  const holidayEnd = new Date(now - 4 * DAY_MS);
  const month = holidayEnd.toLocaleString('en-GB', { month: 'long', timeZone: 'UTC' });
  const other = messagesTo('returner@away.test')[0]!;
  await sendToInbound(inboundPort, {
    from: 'returner@away.test',
    to: 'rep@mail.test',
    subject: 'Automatic reply: Quick question',
    date: new Date(written),
    headers: { 'Auto-Submitted': 'auto-replied' },
    inReplyTo: other.messageId,
    references: [other.messageId!],
    text: `I'm on holiday until ${holidayEnd.getUTCDate()} ${month} ${holidayEnd.getUTCFullYear()}. I will reply when I'm back.`,
  });
  // "Nicht im Büro bis einschließlich <in three days>": back the day after, resumed the day after
  // that, at the schedule's 08:00 in its zone. The reply is dated now, as an autoresponder dates it.
  const until = ymd(now + 3 * DAY_MS);
  const [y, m, d] = until.split('-');
  const first = messagesTo('vacationer@away.test')[0]!;
  await sendToInbound(inboundPort, {
    from: 'vacationer@away.test',
    to: 'rep@mail.test',
    subject: 'Abwesenheitsnotiz: Quick question',
    date: new Date(now),
    headers: { 'Auto-Submitted': 'auto-replied' },
    inReplyTo: first.messageId,
    references: [first.messageId!],
    text: `Vielen Dank für Ihre Nachricht. Ich bin bis einschließlich ${d}.${m}.${y} nicht im Büro und habe keinen Zugriff auf meine E-Mails.`,
  });
  const resumesAt = zonedInstant(zone, ymd(Date.parse(`${until}T00:00:00Z`) + 2 * DAY_MS), '08:00');
  await expectEventually(async () => expect(await enrollment(paused.id)).toMatchObject({ status: 'paused', next_run_at: resumesAt }), { timeoutMs: 60_000 });
  const history = async (id: string) => (await api('GET', `/v1/enrollments/${id}/steps?sort=occurred_at`)).body.data.map((s: any) => [s.node_key, s.outcome, s.detail]);
  expect((await history(paused.id)).at(-1)).toEqual([
    'pause',
    'paused',
    `out-of-office reply, back on ${ymd(Date.parse(`${until}T00:00:00Z`) + DAY_MS)} ("bis einschließlich ${d}.${m}.${y}"); resumes ${resumesAt}`,
  ]);

  await expectEventually(async () => expect(messagesTo('returner@away.test')).toHaveLength(2), { timeoutMs: 90_000 });
  await expectEventually(async () => expect(await enrollment(resumed.id)).toMatchObject({ status: 'completed' }), { timeoutMs: 30_000 });
  const resumeDue = new Date(Date.UTC(holidayEnd.getUTCFullYear(), holidayEnd.getUTCMonth(), holidayEnd.getUTCDate() + 2)).toISOString();
  expect(await history(resumed.id)).toEqual([
    ['hello', 'email_queued', null],
    ['pause', 'paused', expect.stringMatching(new RegExp(`^out-of-office reply, back on ${ymd(Date.parse(resumeDue) - DAY_MS)} .*; resumes ${resumeDue}$`))],
    ['pause', 'resumed', `out-of-office pause over (resume was due ${resumeDue})`],
    ['pause', 'waited', '30 s'],
    ['again', 'email_queued', null],
    [null, 'completed', 'the flow has no further step'],
  ]);

  // The first contact is still away, and got nothing more.
  expect(await enrollment(paused.id)).toMatchObject({ status: 'paused', next_run_at: resumesAt });
  expect(messagesTo('vacationer@away.test')).toHaveLength(1);
});
