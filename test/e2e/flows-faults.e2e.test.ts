/**
 * Flows under failure, with the services as separate processes, a real SMTP server and a NATS
 * server of the test's own (so it can be stopped): the flows process killed with SIGKILL while it
 * works and started again; exits that land while a flow's next email is queued but not delivered;
 * NATS stopped for a minute while exits happen, every service ready throughout. Nothing is lost
 * and nothing is delivered twice, counted at the SMTP server.
 */
import { EVENT_BUS_HEALTH } from '@crm/kit';
import { TEST_DATABASE_URL, expectEventually, serviceAvailable, toolAvailable } from '@crm/kit/testing';
import { SERVICE_COMPONENTS } from '../../packages/cli/src/components';
import { grpcServing } from '../support/health';
import { dsnFor, sendToInbound, unsubscribeOneClick } from '../support/mail';
import { NATS_SERVER_BINARY, type NatsServer, startNatsServer } from '../support/nats-server';
import { freePort } from '../support/processes';
import { type SmtpSink, startSmtpSink } from '../support/smtp-sink';
import { type Stack, startStack } from '../support/stack';

jest.setTimeout(300_000);

let stack: Stack | undefined;
let nats: NatsServer | undefined;
let sink: SmtpSink;
let inboundPort = 0;
let key = '';
// Postgres too: the faults are the processes' and the broker's, and the same run on PGlite (CI's
// second pass) would add minutes and test nothing more.
const haveNatsServer = toolAvailable('nats-server', NATS_SERVER_BINARY !== undefined) && serviceAvailable('Postgres', TEST_DATABASE_URL);
const suite = haveNatsServer ? describe : describe.skip;

beforeAll(async () => {
  if (!haveNatsServer) return;
  sink = await startSmtpSink();
  nats = await startNatsServer();
  inboundPort = await freePort();
  stack = await startStack({
    env: { NATS_URL: nats.url },
    componentEnv: {
      messaging: {
        SMTP_URL: sink.url,
        INBOUND_SMTP_ADDR: `127.0.0.1:${inboundPort}`,
        MAIL_DOMAIN: 'mail.test',
        PUBLIC_URL: 'http://127.0.0.1:8080',
        DELIVERY_RETRY_BASE_MS: '300',
      },
      flows: { FLOW_ENGINE_POLL_MS: '200' },
    },
  });
  key = (await stack.workspaceWithKey('Faults', '*')).key;
}, 200_000);
afterAll(async () => {
  await stack?.stop();
  await nats?.close();
  await sink?.close();
});

const api = (method: string, path: string, body?: unknown) => stack!.api(method, path, { key, ...(body === undefined ? {} : { body }) });

async function created(path: string, body: unknown): Promise<any> {
  const response = await api('POST', path, body);
  expect([path, response.status, response.body.error]).toEqual([path, 201, undefined]);
  return response.body.data;
}

const messagesTo = (email: string) => sink.received.filter((m) => m.to.includes(email));
/** The sent_email id a delivered message names in its VERP envelope sender. */
const sendIdOf = (from: string) => /^bounces\+([0-9a-f-]{36})@/.exec(from)?.[1];

/** Contacts `<prefix><i>@<domain>`, created one by one. */
async function contacts(prefix: string, domain: string, n: number): Promise<{ id: string; email: string }[]> {
  const made: { id: string; email: string }[] = [];
  for (let i = 0; i < n; i++) made.push(await created('/v1/contacts', { first_name: `${prefix}${i}`, email: `${prefix}${i}@${domain}` }));
  return made;
}

async function enrollAll(flowId: string, contactIds: string[]): Promise<void> {
  const response = await api('POST', `/v1/flows/${flowId}/enrollments`, { contact_ids: contactIds });
  expect([response.status, response.body.data?.enrolled?.length]).toEqual([200, contactIds.length]);
}

/** The flow's enrollments, by contact id. */
async function enrollmentsOf(flowId: string): Promise<Map<string, { id: string; status: string; exit_reason: string | null }>> {
  const page = await api('GET', `/v1/enrollments?flow_id=${flowId}&limit=200`);
  expect(page.status).toBe(200);
  expect(page.body.has_more).toBe(false);
  return new Map(page.body.data.map((e: any) => [e.contact_id, e]));
}

/** The contact's reply to a delivered message, through the inbound listener. */
const reply = (to: { messageId?: string; to: string[] }) =>
  sendToInbound(inboundPort, { from: to.to[0], to: 'reply@mail.test', subject: 'Re: hello', text: 'Not now.', inReplyTo: to.messageId, references: [to.messageId!] });

suite('flows under failure', () => {
  test('the flows process killed with SIGKILL while it works and started again: every enrollment completes, two messages each, none twice', async () => {
    const flow = await created('/v1/flows', {
      name: 'Two touches',
      status: 'active',
      nodes: [
        { key: 'hello', type: 'email', config: { subject: 'Hi {{first_name}}', body: '<p>Hello {{first_name}}</p>' } },
        { key: 'pause', type: 'wait', config: { duration_seconds: 1 } },
        { key: 'again', type: 'email', config: { body: '<p>Following up.</p>' } },
        { key: 'done', type: 'end' },
      ],
      edges: [
        { from: 'hello', to: 'pause' },
        { from: 'pause', to: 'again' },
        { from: 'again', to: 'done' },
      ],
    });
    const people = await contacts('k', 'kill.test', 80);
    await enrollAll(flow.id, people.map((c) => c.id));
    const toKill = () => sink.received.filter((m) => m.to[0]!.endsWith('@kill.test')).length;
    // Killed while the second emails go out: some steps done, some claimed, some still due.
    await expectEventually(() => expect(toKill()).toBeGreaterThanOrEqual(people.length + 10), { timeoutMs: 60_000 });
    await stack!.restart('flows', undefined, undefined, { kill: true });
    expect(toKill()).toBeLessThan(2 * people.length);

    await expectEventually(
      async () => expect([...(await enrollmentsOf(flow.id)).values()].map((e) => e.status)).toEqual(Array(people.length).fill('completed')),
      { timeoutMs: 120_000, intervalMs: 500 },
    );
    await expectEventually(() => expect(toKill()).toBe(2 * people.length), { timeoutMs: 30_000 });
    for (const c of people) expect(messagesTo(c.email).map((m) => m.subject)).toEqual([`Hi ${c.email.split('@')[0]}`, `Re: Hi ${c.email.split('@')[0]}`]);
  });

  test('a reply while the next email waits for delivery, a hard bounce and an unsubscribe each exit, and nothing more is delivered', async () => {
    const flow = await created('/v1/flows', {
      name: 'Persistent',
      status: 'active',
      nodes: [
        { key: 'hello', type: 'email', config: { subject: 'Quick question', body: '<p>Hi {{first_name}}</p>' } },
        { key: 'pause', type: 'wait', config: { duration_seconds: 1 } },
        { key: 'again', type: 'email', config: { body: '<p>Bumping this.</p>' } },
        { key: 'later', type: 'wait', config: { duration_seconds: 3600 } },
        { key: 'last', type: 'email', config: { body: '<p>Last try.</p>' } },
      ],
      edges: [
        { from: 'hello', to: 'pause' },
        { from: 'pause', to: 'again' },
        { from: 'again', to: 'later' },
        { from: 'later', to: 'last' },
      ],
    });
    const [replier, bouncer, leaver] = await contacts('x', 'exit.test', 3);
    // The server puts off the replier's second message (451), so it sits queued at messaging.
    let putOff = 0;
    sink.rules = {
      rcpt: (address) => {
        if (address !== replier!.email || messagesTo(replier!.email).length === 0) return undefined;
        putOff++;
        return { code: 451, message: '4.7.1 try again later' };
      },
    };
    try {
      await enrollAll(flow.id, [replier!.id, bouncer!.id, leaver!.id]);
      for (const c of [replier!, bouncer!, leaver!]) await expectEventually(() => expect(messagesTo(c.email).length).toBeGreaterThanOrEqual(1), { timeoutMs: 60_000 });
      const first = (email: string) => messagesTo(email)[0]!;

      await sendToInbound(inboundPort, dsnFor(sendIdOf(first(bouncer!.email).from)!, bouncer!.email, { mailDomain: 'mail.test' }));
      const unsubscribed = await unsubscribeOneClick(stack!.baseUrl, first(leaver!.email).raw);
      expect(unsubscribed.status).toBe(200);
      // The reply lands after the engine queued the next email and before it could be delivered.
      await expectEventually(() => expect(putOff).toBeGreaterThanOrEqual(1), { timeoutMs: 60_000 });
      await reply(first(replier!.email));

      await expectEventually(
        async () => {
          const byContact = await enrollmentsOf(flow.id);
          expect([replier, bouncer, leaver].map((c) => [byContact.get(c!.id)?.status, byContact.get(c!.id)?.exit_reason])).toEqual([
            ['exited', 'replied'],
            ['exited', 'bounced'],
            ['exited', 'unsubscribed'],
          ]);
        },
        { timeoutMs: 60_000 },
      );
      // The queued follow-up is cancelled: the server would take it now, and it never arrives.
      sink.rules = {};
      const enrollment = (await enrollmentsOf(flow.id)).get(replier!.id)!;
      await expectEventually(
        async () => {
          const sends = (await api('GET', `/v1/sent_emails?contact_id=${replier!.id}&limit=10`)).body.data;
          expect(sends.map((s: any) => s.status).sort()).toEqual(['failed', 'sent']);
          expect(sends.find((s: any) => s.status === 'failed').failure_reason).toMatch(/cancel/i);
        },
        { timeoutMs: 30_000 },
      );
      const steps = (await api('GET', `/v1/enrollments/${enrollment.id}/steps?sort=occurred_at`)).body.data.map((s: any) => s.outcome);
      expect(steps[steps.length - 1]).toBe('exited');
      // Each got its first message only (bounced and unsubscribed before their second was due).
      for (const c of [replier!, bouncer!, leaver!]) expect([c.email, messagesTo(c.email).length]).toEqual([c.email, 1]);
    } finally {
      sink.rules = {};
    }
  });

  test('NATS stopped for a minute while replies, meetings and deletions happen: every service stays ready, no exit is lost', async () => {
    const flow = await created('/v1/flows', {
      name: 'Slow burn',
      status: 'active',
      nodes: [
        { key: 'hello', type: 'email', config: { subject: 'Hello there', body: '<p>Hi {{first_name}}</p>' } },
        { key: 'later', type: 'wait', config: { duration_seconds: 3600 } },
        { key: 'again', type: 'email', config: { body: '<p>Bumping this.</p>' } },
      ],
      edges: [
        { from: 'hello', to: 'later' },
        { from: 'later', to: 'again' },
      ],
    });
    const people = await contacts('n', 'nats.test', 30);
    await enrollAll(flow.id, people.map((c) => c.id));
    for (const c of people) await expectEventually(() => expect(messagesTo(c.email)).toHaveLength(1), { timeoutMs: 60_000 });
    const repliers = people.slice(0, 10);
    const bookers = people.slice(10, 20);
    const leavers = people.slice(20);

    // Readiness through the outage, as the probes and the gateway's /readyz see it, every second:
    // every service stays ready (its database answers), and reports the bus apart.
    const stoppedAt = Date.now();
    const notReady: string[] = [];
    const busReportedDown = new Set<string>();
    let watching = true;
    const watcher = (async () => {
      const services = SERVICE_COMPONENTS.filter((c) => c.database).map((c) => c.name);
      while (watching) {
        for (const [name, address] of Object.entries(stack!.addresses)) {
          if (!(await grpcServing(address))) notReady.push(`${name} at ${Math.round((Date.now() - stoppedAt) / 1000)} s`);
          if (services.includes(name) && !(await grpcServing(address, EVENT_BUS_HEALTH))) busReportedDown.add(name);
        }
        const ready = await fetch(`${stack!.baseUrl}/readyz`).then((r) => r.status, () => 0);
        if (ready !== 200) notReady.push(`gateway /readyz ${ready}`);
        await new Promise((resolve) => setTimeout(resolve, 1_000));
      }
    })();
    await nats!.stop();
    // With the broker down the API still takes the writes; their events wait in each service's outbox.
    for (const c of repliers) await reply(messagesTo(c.email)[0]!);
    for (const c of bookers) await created('/v1/meetings', { title: 'Demo', contact_id: c.id, scheduled_start: '2026-12-01T15:00:00Z', scheduled_end: '2026-12-01T15:30:00Z' });
    for (const c of leavers) expect((await api('DELETE', `/v1/contacts/${c.id}`)).status).toBe(204);
    // Down for a minute, as an operator's restart or a broker failover might take.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, 60_000 - (Date.now() - stoppedAt))));
    expect([...(await enrollmentsOf(flow.id)).values()].filter((e) => e.status === 'exited')).toEqual([]);
    await nats!.start();
    watching = false;
    await watcher;
    expect(notReady).toEqual([]);
    // The bus was reported down, under its own name, by every context that uses it.
    expect([...busReportedDown].sort()).toEqual(SERVICE_COMPONENTS.filter((c) => c.database).map((c) => c.name).sort());

    await expectEventually(
      async () => {
        const byContact = await enrollmentsOf(flow.id);
        const reasons = people.map((c) => byContact.get(c.id)?.exit_reason);
        expect(reasons).toEqual([...Array(10).fill('replied'), ...Array(10).fill('meeting_booked'), ...Array(10).fill('contact_deleted')]);
      },
      { timeoutMs: 120_000, intervalMs: 500 },
    );
    for (const c of people) expect(messagesTo(c.email)).toHaveLength(1);
  });
});
