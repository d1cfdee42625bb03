/**
 * End to end, distributed, what an operator sees:
 * - every process serves `/metrics` (Prometheus text) on its own METRICS_PORT, never on the public
 *   API port, and its series move with the traffic: HTTP by route template, gRPC by method, event
 *   consumers by group, the outbox, the engine, deliveries by provider and outcome, inbound mail by
 *   kind, the Postgres pools; never an id in a label;
 * - one send is one trace from the HTTP request to the SMTP server and on to the consumers of the
 *   event its delivery wrote, and the log lines written inside it carry its trace_id.
 */
import { randomBytes } from 'node:crypto';
import { expectEventually } from '@crm/kit/testing';
import { MessagingEvents } from '@crm/proto';
import { sendToInbound } from '../support/mail';
import { startOtlpReceiver } from '../support/otlp-receiver';
import { freePort } from '../support/processes';
import { type SmtpSink, startSmtpSink } from '../support/smtp-sink';
import { type Stack, startStack } from '../support/stack';

jest.setTimeout(180_000);

const SERVICES = ['directory', 'people', 'activities', 'messaging', 'flows'] as const;
let stack: Stack | undefined;
let sink: SmtpSink;
let otlp: Awaited<ReturnType<typeof startOtlpReceiver>>;
let inboundPort = 0;
let key = '';
const ports: Record<string, number> = {};

beforeAll(async () => {
  sink = await startSmtpSink();
  otlp = await startOtlpReceiver();
  inboundPort = await freePort();
  for (const name of ['gateway', ...SERVICES]) ports[name] = await freePort();
  stack = await startStack({
    env: { OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url, OTEL_BSP_SCHEDULE_DELAY: '100' },
    // The gateway logs each request at info: the trace test reads its line.
    gatewayEnv: { METRICS_PORT: String(ports.gateway), LOG_LEVEL: 'info' },
    componentEnv: {
      ...Object.fromEntries(SERVICES.map((name) => [name, { METRICS_PORT: String(ports[name]) }])),
      messaging: { METRICS_PORT: String(ports.messaging), SMTP_URL: sink.url, INBOUND_SMTP_ADDR: `127.0.0.1:${inboundPort}`, MAIL_DOMAIN: 'mail.test' },
      flows: { METRICS_PORT: String(ports.flows), FLOW_ENGINE_POLL_MS: '200' },
    },
  });
  key = (await stack.workspaceWithKey('Metered', '*')).key;
}, 150_000);
afterAll(async () => {
  await stack?.stop();
  await sink?.close();
  await otlp?.close();
});

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

/** Whether the scrape has a series of this name (any labels). */
const has = (text: string, name: string) => new RegExp(`^${name}[{ ]`, 'm').test(text);

async function created(path: string, body: unknown): Promise<any> {
  const response = await stack!.api('POST', path, { key, body });
  expect([path, response.status, response.body.error]).toEqual([path, 201, undefined]);
  return response.body.data;
}

/** An active flow of one email step, then the end. */
const oneEmailFlow = (name: string, subject: string) =>
  created('/v1/flows', {
    name,
    status: 'active',
    nodes: [
      { key: 'hello', type: 'email', config: { subject, body: '<p>Hello</p>' } },
      { key: 'done', type: 'end' },
    ],
    edges: [{ from: 'hello', to: 'done' }],
  });

async function scrape(component: string): Promise<string> {
  const response = await fetch(`http://127.0.0.1:${ports[component]}/metrics`);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/plain/);
  return response.text();
}

/** The sum of a series' samples whose labels include every one given. */
function sample(text: string, name: string, labels: Record<string, string>): number {
  let total = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    if (Object.entries(labels).every(([label, value]) => line.includes(`${label}="${value}"`))) total += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return total;
}

test('every process answers /metrics on its own port, and the public port does not', async () => {
  for (const component of ['gateway', ...SERVICES]) {
    const text = await scrape(component);
    expect(text).toMatch(/^# (HELP|TYPE) /m);
    // The runtime's and the process's own, in every process.
    for (const series of ['process_cpu_time_seconds_total', 'process_memory_usage_bytes', 'v8js_memory_heap_used_bytes', 'nodejs_eventloop_utilization_ratio']) {
      expect([component, has(text, series)]).toEqual([component, true]);
    }
  }
  const publicMetrics = await fetch(`${stack!.baseUrl}/metrics`);
  expect(publicMetrics.status).toBe(404);
  expect((await fetch(`http://127.0.0.1:${ports.gateway}/other`)).status).toBe(404);
  for (const process of stack!.processes) expect(process.output()).not.toMatch(/metrics not served/);
});

test('HTTP and gRPC series move with the traffic, labelled by route template and method, never by id', async () => {
  const http = 'http_server_request_duration_seconds_count';
  const rpc = 'rpc_server_call_duration_seconds_count';
  const created = { http_route: '/v1/contacts', http_request_method: 'POST', http_response_status_code: '201' };
  const read = { http_route: '/v1/contacts/:id', http_request_method: 'GET', http_response_status_code: '200' };
  const before = { gateway: await scrape('gateway'), people: await scrape('people'), directory: await scrape('directory') };

  const ids: string[] = [];
  for (let i = 0; i < 5; i++) {
    const answer = await stack!.api('POST', '/v1/contacts', { key, body: { first_name: `M${i}` } });
    expect(answer.status).toBe(201);
    ids.push(answer.body.data.id);
  }
  for (const id of ids) expect((await stack!.api('GET', `/v1/contacts/${id}`, { key })).status).toBe(200);
  expect((await stack!.api('GET', '/v1/contacts/00000000-0000-4000-8000-000000000000', { key })).status).toBe(404);

  await expectEventually(async () => {
    const gateway = await scrape('gateway');
    expect(sample(gateway, http, created) - sample(before.gateway, http, created)).toBe(5);
    expect(sample(gateway, http, read) - sample(before.gateway, http, read)).toBe(5);
    expect(sample(gateway, http, { ...read, http_response_status_code: '404' }) - sample(before.gateway, http, { ...read, http_response_status_code: '404' })).toBe(1);
    for (const id of ids) expect(gateway).not.toContain(id);

    const peopleText = await scrape('people');
    const ok = (method: string) => ({ rpc_method: method, rpc_status_code: 'OK' });
    const people = (method: string) => `crm.people.v1.PeopleService/${method}`;
    expect(sample(peopleText, rpc, ok(people('CreateContact'))) - sample(before.people, rpc, ok(people('CreateContact')))).toBe(5);
    expect(sample(peopleText, rpc, ok(people('GetContact'))) - sample(before.people, rpc, ok(people('GetContact')))).toBeGreaterThanOrEqual(5);
    expect(sample(peopleText, rpc, { rpc_method: people('GetContact'), rpc_status_code: 'NOT_FOUND' })).toBeGreaterThanOrEqual(1);
    // Every request was authenticated by the directory (or its cache): the series exists and counts.
    const authenticate = ok('crm.directory.v1.DirectoryService/Authenticate');
    expect(sample(await scrape('directory'), rpc, authenticate)).toBeGreaterThanOrEqual(sample(before.directory, rpc, authenticate));
  });
});

test('mail, events, the outbox and the engine move their series, and no label carries an id', async () => {
  const delivery = 'crm_mail_delivery_duration_seconds_count';
  const sent = { crm_mail_provider: 'smtp', crm_mail_outcome: 'sent' };
  const steps = 'crm_engine_step_duration_seconds_count';
  const queued = { crm_node_type: 'email', crm_step_outcome: 'email_queued' };
  const before = { messaging: await scrape('messaging'), flows: await scrape('flows') };

  const contact = await created('/v1/contacts', { first_name: 'Metered', email: 'metered@metrics.test' });
  const oneOff = await created('/v1/sent_emails', { contact_id: contact.id, subject: 'Hello', body: '<p>Hi</p>' });
  const flow = await oneEmailFlow('Metered flow', 'From the flow');
  await created('/v1/enrollments', { flow_id: flow.id, contact_id: contact.id });
  const mail = await expectEventually(() => {
    const received = sink.received.filter((m) => m.to.includes('metered@metrics.test'));
    expect(received).toHaveLength(2);
    return received;
  }, { timeoutMs: 60_000 });
  const first = mail.find((m) => m.subject === 'Hello')!;
  await sendToInbound(
    inboundPort,
    { from: 'metered@metrics.test', to: 'sales@mail.test', subject: 'Re: Hello', text: 'Thanks!', inReplyTo: first.messageId, references: [first.messageId!] },
    { from: 'someone@else.test', to: 'sales@mail.test', subject: 'Unrelated', text: 'Not a reply to anything' },
  );

  await expectEventually(async () => {
    const messaging = await scrape('messaging');
    expect(sample(messaging, delivery, sent) - sample(before.messaging, delivery, sent)).toBe(2);
    const inbound = (kind: string) => sample(messaging, 'crm_mail_inbound_total', { crm_mail_inbound_kind: kind }) - sample(before.messaging, 'crm_mail_inbound_total', { crm_mail_inbound_kind: kind });
    expect(inbound('reply')).toBe(1);
    expect(inbound('unmatched')).toBe(1);
    for (const gauge of ['crm_mail_queue_due', 'crm_mail_queue_oldest_due_age_seconds']) expect(has(messaging, gauge)).toBe(true);
    for (const gauge of ['crm_outbox_events', 'crm_outbox_oldest_age_seconds']) expect(messaging).toMatch(new RegExp(`^${gauge}\\{[^}]*crm_context="messaging"`, 'm'));
    expect(sample(messaging, 'crm_outbox_published_total', { crm_context: 'messaging' })).toBeGreaterThan(sample(before.messaging, 'crm_outbox_published_total', { crm_context: 'messaging' }));

    const flows = await scrape('flows');
    expect(sample(flows, steps, queued) - sample(before.flows, steps, queued)).toBe(1);
    expect(sample(flows, steps, { crm_node_type: 'end', crm_step_outcome: 'completed' })).toBeGreaterThanOrEqual(1);
    for (const gauge of ['crm_engine_due', 'crm_engine_oldest_due_age_seconds']) expect(has(flows, gauge)).toBe(true);
  }, { timeoutMs: 30_000, intervalMs: 250 });

  if (stack!.usePostgres) {
    for (const service of ['people', 'activities', 'messaging', 'flows']) {
      const text = await scrape(service);
      expect(sample(text, 'db_client_connection_limit', { db_client_connection_pool_name: service })).toBeGreaterThan(0);
      expect(text).toMatch(new RegExp(`^db_client_connection_count\\{[^}]*db_client_connection_state="idle"`, 'm'));
    }
  }
  if (stack!.useNats) {
    // Between processes, over NATS: the sends' events reach people's and flows' consumers.
    await expectEventually(async () => {
      const people = await scrape('people');
      expect(sample(people, 'messaging_process_duration_seconds_count', { messaging_destination_name: MessagingEvents.EmailSent })).toBeGreaterThanOrEqual(2);
      expect(people).toMatch(/^crm_events_consumer_pending\{[^}]*messaging_system_name="nats"/m);
      expect(people).toMatch(/^crm_events_consumer_unacked\{/m);
      const flows = await scrape('flows');
      expect(sample(flows, 'messaging_process_duration_seconds_count', { messaging_destination_name: MessagingEvents.EmailEventRecorded })).toBeGreaterThanOrEqual(1);
    }, { timeoutMs: 30_000, intervalMs: 250 });
  }
  for (const component of ['gateway', ...SERVICES]) {
    const text = await scrape(component);
    for (const line of text.split('\n')) if (!line.startsWith('#') && !line.startsWith('target_info')) expect([component, line]).toEqual([component, expect.not.stringMatching(UUID)]);
  }
  expect(oneOff.status).toBe('queued');
});

test('one send, one trace: the request, the gRPC call and its SQL, the delivery, the SMTP transaction, and on to the consumers', async () => {
  const contact = await created('/v1/contacts', { first_name: 'Traced', email: 'traced@metrics.test' });
  const traceId = randomBytes(16).toString('hex');
  const response = await stack!.api('POST', '/v1/sent_emails', {
    key,
    body: { contact_id: contact.id, subject: 'Traced', body: '<p>Hi</p>' },
    headers: { traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01` },
  });
  expect(response.status).toBe(201);
  await expectEventually(() => expect(sink.received.filter((m) => m.to.includes('traced@metrics.test'))).toHaveLength(1), { timeoutMs: 30_000 });

  await expectEventually(() => {
    const spans = otlp.spans.filter((s) => s.traceId === traceId);
    const named = (service: string, test: (name: string, attributes: Record<string, unknown>) => boolean) =>
      spans.filter((s) => s.service === service && test(s.name, s.attributes));
    expect(named('crm-gateway', (name) => /POST/.test(name))).not.toHaveLength(0);
    expect(named('crm-messaging', (name) => name.includes('QueueSend') || name.includes('CreateSentEmail'))).not.toHaveLength(0);
    expect(named('crm-messaging', (_n, a) => String(a['db.statement'] ?? '').includes('INSERT INTO deliveries'))).not.toHaveLength(0);
    const [deliver] = named('crm-messaging', (name) => name === 'deliver email');
    expect(deliver).toMatchObject({ attributes: { 'crm.mail.provider': 'smtp', 'crm.mail.outcome': 'sent', 'crm.sent_email.id': response.body.data.id } });
    // The delivery's parent is a span of the request's trace: it joined the trace, it did not start one.
    expect(spans.map((s) => s.spanId)).toContain(deliver!.parentSpanId);
    const [smtp] = named('crm-messaging', (name) => name === 'smtp send');
    expect(smtp!.parentSpanId).toBe(deliver!.spanId);
    if (stack!.useNats) {
      // The email.sent event written by the delivery, consumed by people in the same trace.
      expect(named('crm-people', (name) => name === `process ${MessagingEvents.EmailSent}`)).not.toHaveLength(0);
    }
  }, { timeoutMs: 15_000, intervalMs: 200 });

  const gateway = stack!.processes.find((p) => p.name === 'gateway')!;
  const lines = gateway.output().split('\n').filter((line) => line.includes(`"trace_id":"${traceId}"`));
  expect(lines.some((line) => line.includes('"msg":"request"') && /"span_id":"[0-9a-f]{16}"/.test(line))).toBe(true);
});

test('one enrollment, one trace: the request, the engine\'s step, the send it queued, its delivery', async () => {
  const contact = await created('/v1/contacts', { first_name: 'Enrolled', email: 'enrolled@metrics.test' });
  const flow = await oneEmailFlow('Traced flow', 'Traced step');
  const exportedBefore = otlp.spans.length;
  const traceId = randomBytes(16).toString('hex');
  const response = await stack!.api('POST', '/v1/enrollments', {
    key,
    body: { flow_id: flow.id, contact_id: contact.id },
    headers: { traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01` },
  });
  expect(response.status).toBe(201);
  await expectEventually(() => expect(sink.received.filter((m) => m.to.includes('enrolled@metrics.test'))).toHaveLength(1), { timeoutMs: 30_000 });

  await expectEventually(() => {
    const spans = otlp.spans.filter((s) => s.traceId === traceId);
    const ids = spans.map((s) => s.spanId);
    const step = spans.find((s) => s.service === 'crm-flows' && s.name === 'flow step' && String(s.attributes['crm.step.outcomes']).includes('email_queued'));
    expect(step).toMatchObject({ attributes: { 'crm.enrollment.id': response.body.data.id } });
    expect(ids).toContain(step!.parentSpanId);
    // Messaging queued the step's send in the step's trace (the batch call itself serves many
    // traces and belongs to none); the delivery joins the same trace.
    expect(spans.some((s) => s.service === 'crm-messaging' && s.name === 'queue email' && s.parentSpanId === step!.spanId)).toBe(true);
    expect(spans.some((s) => s.service === 'crm-messaging' && s.name === 'smtp send')).toBe(true);
  }, { timeoutMs: 15_000, intervalMs: 200 });
  // The polls of the engine and the delivery worker started no trace of their own meanwhile.
  const roots = otlp.spans.slice(exportedBefore).filter((s) => !s.parentSpanId && ['crm-flows', 'crm-messaging'].includes(s.service));
  expect(roots.filter((s) => /^SELECT/.test(s.name))).toEqual([]);
});
