/**
 * End to end, distributed: the read views over HTTP, each service in its own `crm start` process
 * behind the gateway (test/support/stack.ts): users and integrations served by the directory (its
 * embedded store here; MongoDB has the same contract suite), and a contact's timeline and a user's
 * performance answered by messaging from its engagement ledger, fed by its own writes and by
 * activities' events over the bus.
 */
import { expectEventually, toolAvailable } from '@crm/kit/testing';
import { sendToInbound, tokenIn } from '../support/mail';
import { NATS_SERVER_BINARY, type NatsServer, startNatsServer } from '../support/nats-server';
import { freePort } from '../support/processes';
import { runCrm } from '../support/processes';
import { type SmtpSink, startSmtpSink } from '../support/smtp-sink';
import { type Stack, startStack } from '../support/stack';

jest.setTimeout(180_000);

let stack: Stack | undefined;
let sink: SmtpSink | undefined;
// Activities' events reach messaging over NATS: a private server, so the embedded pass has one too.
let nats: NatsServer | undefined;
const haveNatsServer = toolAvailable('nats-server', NATS_SERVER_BINARY !== undefined);
let inboundPort = 0;
let api: Stack['api'];
let workspaceId = '';
const keys = { full: '', other: '', usersOnly: '', contactsOnly: '', integrationsRead: '' };
const SECRET = 'hunter2-never-shown-anywhere';

beforeAll(async () => {
  sink = await startSmtpSink();
  inboundPort = await freePort();
  if (haveNatsServer) nats = await startNatsServer();
  stack = await startStack({
    ...(nats ? { env: { NATS_URL: nats.url } } : {}),
    componentEnv: { messaging: { SMTP_URL: sink.url, INBOUND_SMTP_ADDR: `127.0.0.1:${inboundPort}`, MAIL_DOMAIN: 'mail.test' } },
  });
  api = stack.api;
  const acme = await stack.workspaceWithKey('Acme', '*');
  workspaceId = acme.workspaceId;
  keys.full = acme.key;
  keys.other = (await stack.workspaceWithKey('Globex', '*')).key;
  keys.usersOnly = (await stack.createKey(workspaceId, 'users:read')).key;
  keys.contactsOnly = (await stack.createKey(workspaceId, 'contacts:read')).key;
  keys.integrationsRead = (await stack.createKey(workspaceId, 'integrations:read')).key;
}, 120_000);

afterAll(async () => {
  await stack?.stop();
  await sink?.close();
  await nats?.close();
});

const get = (path: string, key = keys.full) => api('GET', path, { key });

describe('users over HTTP', () => {
  const created: { id: string; full_name: string; role: string }[] = [];
  beforeAll(async () => {
    for (const [name, role] of [
      ['Dana Ortiz', 'member'],
      ['Ben Okafor', 'admin'],
      ['Ada Park', 'member'],
      ['Cy Young', 'owner'],
    ] as const) {
      created.push(
        await stack!.admin(['admin', 'user', 'create', '--workspace', workspaceId, '--email', `${name.split(' ')[0]!.toLowerCase()}@acme.test`, '--name', name, '--role', role]) as never,
      );
    }
  });

  test('lists with sort, cursor paging, typed filters and q; gets one; 404 across workspaces', async () => {
    const first = await get('/v1/users?sort=full_name&limit=3', keys.usersOnly);
    expect(first.status).toBe(200);
    expect(first.body.data.map((u: { full_name: string }) => u.full_name)).toEqual(['Ada Park', 'Ben Okafor', 'Cy Young']);
    expect(first.body.has_more).toBe(true);
    expect(Object.keys(first.body.data[0]).sort()).toEqual(['created_at', 'email', 'full_name', 'id', 'is_active', 'role', 'svc_uid', 'updated_at']);
    const second = await get(`/api/v1/users?sort=full_name&limit=3&cursor=${first.body.next_cursor}`, keys.usersOnly);
    expect(second.body).toMatchObject({ has_more: false, next_cursor: null });
    expect(second.body.data.map((u: { full_name: string }) => u.full_name)).toEqual(['Dana Ortiz']);

    expect((await get('/v1/users?role=member&sort=-full_name')).body.data.map((u: { full_name: string }) => u.full_name)).toEqual(['Dana Ortiz', 'Ada Park']);
    expect((await get('/v1/users?is_active=true')).body.data).toHaveLength(4);
    expect((await get('/v1/users?q=OKAFOR')).body.data.map((u: { id: string }) => u.id)).toEqual([created[1]!.id]);
    expect((await get('/v1/users?q=cy%40acme')).body.data.map((u: { id: string }) => u.id)).toEqual([created[3]!.id]);

    for (const bad of ['role=root', 'is_active=yes', 'sort=email', 'limit=201', 'since=yesterday', 'owner_id=x']) {
      const answer = await get(`/v1/users?${bad}`);
      expect(answer.status).toBe(400);
      expect(answer.body.error.code).toBe('invalid_request');
    }
    // A cursor is bound to its query and its workspace.
    expect((await get(`/v1/users?sort=-full_name&limit=3&cursor=${first.body.next_cursor}`)).status).toBe(400);
    expect((await get(`/v1/users?sort=full_name&limit=3&cursor=${first.body.next_cursor}`, keys.other)).status).toBe(400);

    const one = await get(`/v1/users/${created[0]!.id}`, keys.usersOnly);
    expect(one.status).toBe(200);
    expect(one.body.data).toMatchObject({ id: created[0]!.id, full_name: 'Dana Ortiz', role: 'member', is_active: true });
    expect((await get(`/v1/users/${created[0]!.id}`, keys.other)).status).toBe(404);
    expect((await get('/v1/users', keys.other)).body.data).toEqual([]);
    expect((await get('/v1/users/not-a-uuid')).status).toBe(400);
  });

  test('needs users:read, and offers no writes', async () => {
    expect((await get('/v1/users', keys.contactsOnly)).status).toBe(403);
    expect((await get(`/v1/users/${created[0]!.id}`, keys.contactsOnly)).status).toBe(403);
    const post = await api('POST', '/v1/users', { key: keys.full, body: { email: 'x@acme.test' } });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
  });
});

describe('integrations over HTTP', () => {
  test('lists and gets integrations with their config, the status their server check found, and never their secret; read-only', async () => {
    // A server that is there (the sink: no AUTH, so none is tried) and one whose host does not resolve.
    const mail = await stack!.admin<{ id: string; status: string }>([
      'admin', 'integration', 'create', '--workspace', workspaceId, '--type', 'smtp', '--name', 'Mail', '--secret', SECRET, '--config', `{"host":"127.0.0.1","port":${sink!.port}}`,
    ]);
    const relay = await stack!.admin<{ id: string }>([
      'admin', 'integration', 'create', '--workspace', workspaceId, '--type', 'smtp', '--name', 'Old relay', '--secret', SECRET, '--config', '{"host":"smtp.acme.test","port":2525}',
    ]);
    // The command line prints one `config` (the directory answers it in Integration fields 11 and 10),
    // and the outcome of the check made before it answered.
    expect(mail).toMatchObject({ id: expect.any(String), status: 'connected', status_reason: null, config: { host: '127.0.0.1', port: sink!.port } });
    expect(relay).toMatchObject({ status: 'error', status_reason: 'getaddrinfo ENOTFOUND smtp.acme.test', config: { host: 'smtp.acme.test', port: 2525 } });
    expect(mail).not.toHaveProperty('legacy_config');
    // A type the CRM does nothing with is refused, naming the field.
    const fax = await runCrm(['admin', 'integration', 'create', '--workspace', workspaceId, '--type', 'fax', '--name', 'Fax', '--secret', SECRET], stack!.adminEnv);
    expect(fax.code).not.toBe(0);
    expect(fax.stderr).toMatch(/type: must be one of smtp/);

    const listed = await get('/v1/integrations?sort=type', keys.integrationsRead);
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((i: { id: string }) => i.id)).toEqual([mail.id, relay.id]);
    expect(listed.body.data[0]).toEqual({
      id: mail.id,
      svc_uid: null,
      type: 'smtp',
      name: 'Mail',
      status: 'connected',
      status_reason: null,
      enabled: true,
      config: { host: '127.0.0.1', port: sink!.port },
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect((await get('/v1/integrations?type=smtp&enabled=true&status=connected')).body.data.map((i: { id: string }) => i.id)).toEqual([mail.id]);
    expect((await get('/v1/integrations?status=error')).body.data).toEqual([expect.objectContaining({ id: relay.id, status_reason: 'getaddrinfo ENOTFOUND smtp.acme.test' })]);
    expect((await get('/v1/integrations?type=fax')).status).toBe(400);
    expect((await get('/v1/integrations?enabled=false')).body.data).toEqual([]);
    expect((await get('/v1/integrations?status=broken')).status).toBe(400);
    expect((await get('/v1/integrations?q=mail')).status).toBe(400);
    const one = await get(`/v1/integrations/${mail.id}`, keys.integrationsRead);
    expect(one.body.data).toEqual(listed.body.data[0]);
    expect((await get(`/v1/integrations/${mail.id}`, keys.other)).status).toBe(404);
    expect((await get('/v1/integrations', keys.usersOnly)).status).toBe(403);

    for (const [method, path] of [
      ['POST', '/v1/integrations'],
      ['PATCH', `/v1/integrations/${mail.id}`],
      ['DELETE', `/v1/integrations/${mail.id}`],
      ['PUT', `/api/v1/integrations/${mail.id}`],
    ] as const) {
      const answer = await api(method, path, { key: keys.full, body: method === 'DELETE' ? undefined : { enabled: false } });
      expect(answer.status).toBe(405);
      expect(answer.body.error.code).toBe('method_not_allowed');
    }
    expect((await get(`/v1/integrations/${mail.id}`)).body.data.enabled).toBe(true);

    // Neither a response nor any process's log carries the secret.
    for (const answer of [listed, one]) expect(JSON.stringify(answer.body)).not.toContain(SECRET);
    for (const process of stack!.processes) expect(process.output()).not.toContain(SECRET);
    // Each process took a free port of its own for /metrics (METRICS_PORT=0): none was refused one.
    for (const process of stack!.processes) expect(process.output()).not.toMatch(/metrics not served/);
  });
});

(haveNatsServer ? describe : describe.skip)('a contact\'s timeline and a user\'s performance over HTTP', () => {
  const HUMAN = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Safari/605.1.15';
  // A workspace of its own: Acme has an smtp integration (above) pointing at a server that is not there.
  const own = { workspaceId: '', full: '', usersOnly: '', contactsOnly: '' };
  beforeAll(async () => {
    const initech = await stack!.workspaceWithKey('Initech', '*');
    own.workspaceId = initech.workspaceId;
    own.full = initech.key;
    own.usersOnly = (await stack!.createKey(initech.workspaceId, 'users:read')).key;
    own.contactsOnly = (await stack!.createKey(initech.workspaceId, 'contacts:read')).key;
  });
  const get = (path: string, key = own.full) => api('GET', path, { key });
  const post = async (path: string, body: unknown) => {
    const answer = await api('POST', path, { key: own.full, body });
    expect(answer.status).toBe(201);
    return answer.body.data;
  };

  test('a send, an open, a reply, a call, a meeting and a task appear in order and in the counts; other workspaces get 404', async () => {
    const rep = await stack!.admin<{ id: string }>(['admin', 'user', 'create', '--workspace', own.workspaceId, '--email', 'perf@acme.test', '--name', 'Perf Rep', '--role', 'member']);
    const performance = async (window = '24h') => (await get(`/v1/users/${rep.id}/performance?window=${window}`, own.usersOnly)).body.data;
    const zero = await performance();
    expect(zero).toMatchObject({ user_id: rep.id, window: '24h', emails_sent: 0, emails_opened: 0, calls_placed: 0, tasks_completed: 0 });
    expect(Date.parse(zero.window_end) - Date.parse(zero.window_start)).toBe(86_400_000);

    const contact = await post('/v1/contacts', { first_name: 'Tia', email: 'tia@example.com', owner_id: rep.id });
    const timeline = async (query = '') => get(`/v1/contacts/${contact.id}/timeline${query}`, own.contactsOnly);
    expect((await timeline()).body).toEqual({ data: [], next_cursor: null, has_more: false });

    // 1. A send, delivered.
    const queued = await post('/v1/sent_emails', { contact_id: contact.id, owner_id: rep.id, subject: 'Quick question', body: '<p>Hi Tia</p>' });
    const sent = await expectEventually(async () => {
      const read = await get(`/v1/sent_emails/${queued.id}`);
      expect(read.body.data.status).toBe('sent');
      return read.body.data;
    }, { timeoutMs: 30_000 });
    const raw = sink!.received.find((m) => m.messageId === sent.message_id)!.raw;
    // 2. An open at once is a mail scanner's (flagged, not counted); a person opens after the grace period.
    await fetch(`${stack!.baseUrl}/t/o/${tokenIn(raw, 'o')}`, { headers: { 'user-agent': HUMAN } });
    await expectEventually(async () => expect(Date.now() - Date.parse(sent.sent_at)).toBeGreaterThan(5_500), { timeoutMs: 10_000 });
    await fetch(`${stack!.baseUrl}/t/o/${tokenIn(raw, 'o')}`, { headers: { 'user-agent': HUMAN } });
    // 3. A reply, through the inbound SMTP listener.
    await sendToInbound(inboundPort, { from: 'tia@example.com', to: 'perf@acme.test', subject: 'Re: Quick question', text: 'Yes!', inReplyTo: sent.message_id, references: [sent.message_id], messageId: '<tia-1@example.com>' });
    // 4–6. A call, a meeting and a task, logged in activities and carried to messaging by events.
    await post('/v1/call_logs', { contact_id: contact.id, owner_id: rep.id, status: 'completed', outcome: 'connected', duration_seconds: 75 });
    await post('/v1/meetings', { contact_id: contact.id, owner_id: rep.id, title: 'Demo', scheduled_start: '2026-12-02T15:00:00Z', scheduled_end: '2026-12-02T15:30:00Z' });
    const task = await post('/v1/tasks', { contact_id: contact.id, assignee_id: rep.id, title: 'Send the deck' });
    expect((await api('PATCH', `/v1/tasks/${task.id}`, { key: own.full, body: { status: 'completed' } })).status).toBe(200);

    const order = ['task', 'task', 'meeting', 'call_log', 'email_event', 'email_event', 'email_event', 'sent_email'];
    const items = await expectEventually(async () => {
      const page = await timeline();
      expect(page.status).toBe(200);
      expect(page.body.data.map((e: { kind: string }) => e.kind)).toEqual(order);
      return page.body.data;
    }, { timeoutMs: 30_000 });
    expect(items.filter((e: { kind: string }) => e.kind === 'email_event').map((e: { payload: { event_type: string; is_bot: boolean } }) => [e.payload.event_type, e.payload.is_bot])).toEqual([
      ['reply', false],
      ['open', false],
      ['open', true],
    ]);
    expect(items.map((e: { payload: { action?: string } }) => e.payload.action).slice(0, 2)).toEqual(['completed', 'created']);
    expect(items[7]).toMatchObject({ kind: 'sent_email', id: queued.id });

    // Paging two at a time gives the same rows; filters narrow them.
    const paged: unknown[] = [];
    let cursor = '';
    do {
      const page = await timeline(`?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      paged.push(...page.body.data);
      cursor = page.body.next_cursor ?? '';
    } while (cursor);
    expect(paged).toEqual(items);
    expect((await timeline('?kind=call_log')).body.data.map((e: { summary: string }) => e.summary)).toEqual(['Call completed (connected), 75 s']);
    for (const bad of ['kind=chat', 'limit=0', 'limit=101', 'since=soon', 'sort=occurred_at', 'cursor=abc.def']) expect((await timeline(`?${bad}`)).status).toBe(400);

    await expectEventually(async () =>
      expect(await performance()).toMatchObject({
        emails_sent: 1,
        emails_opened: 1,
        emails_replied: 1,
        emails_clicked: 0,
        calls_placed: 1,
        call_talk_seconds: 75,
        meetings_scheduled: 1,
        tasks_completed: 1,
      }),
    );
    for (const window of ['7d', '30d', '90d']) expect((await performance(window)).emails_sent).toBe(1);
    for (const bad of ['window=1y', 'window=', 'days=7']) expect((await get(`/v1/users/${rep.id}/performance?${bad}`)).status).toBe(400);

    // Another workspace's contact and user do not exist for this key, and scopes hold.
    expect((await get(`/v1/contacts/${contact.id}/timeline`, keys.other)).status).toBe(404);
    expect((await get(`/v1/users/${rep.id}/performance`, keys.other)).status).toBe(404);
    expect((await get('/v1/contacts/00000000-0000-4000-8000-000000000000/timeline')).status).toBe(404);
    expect((await get(`/v1/contacts/${contact.id}/timeline`, own.usersOnly)).status).toBe(403);
    expect((await get(`/v1/users/${rep.id}/performance`, own.contactsOnly)).status).toBe(403);
    expect((await api('POST', `/v1/contacts/${contact.id}/timeline`, { key: own.full, body: {} })).status).toBe(405);
  });
});
