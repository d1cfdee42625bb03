/**
 * End to end, distributed: the directory, every service and the gateway run as separate
 * `crm start <component>` processes (test/support/stack.ts), wired by environment variables exactly
 * as docker-compose wires them, and the API is driven over HTTP as a client would. Postgres and
 * NATS are this machine's when they answer (each service's schema is private to this run);
 * otherwise the services fall back to PGlite and the in-process bus.
 */
import { randomBytes } from 'node:crypto';
import { TEST_NATS_URL, expectEventually, serviceAvailable } from '@crm/kit/testing';
import { startOtlpReceiver } from '../support/otlp-receiver';
import { runCrm, runCrmJson } from '../support/processes';
import { type Stack, startStack } from '../support/stack';
import { PeopleEvents } from '@crm/proto';


// Processes start, migrate and restart here: minutes, not Jest's default seconds.
jest.setTimeout(180_000);
const useNats = serviceAvailable('NATS', TEST_NATS_URL);

let stack: Stack | undefined;
let api: Stack['api'];
let adminEnv: NodeJS.ProcessEnv;
let otlp: Awaited<ReturnType<typeof startOtlpReceiver>>;

const keys = { full: '', readOnly: '', noDelete: '', other: '' };
let workspaceId = '';
let fullKeyId = '';

beforeAll(async () => {
  otlp = await startOtlpReceiver();
  stack = await startStack({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url, OTEL_BSP_SCHEDULE_DELAY: '100' } });
  api = stack.api;
  adminEnv = stack.adminEnv;

  const workspace = await runCrmJson<{ id: string; name: string }>(['admin', 'workspace', 'create', '--name', 'Acme'], adminEnv);
  workspaceId = workspace.id;
  const other = await runCrmJson<{ id: string }>(['admin', 'workspace', 'create', '--name', 'Globex'], adminEnv);
  const full = await runCrmJson<{ id: string; key: string }>(['admin', 'key', 'create', '--workspace', workspaceId, '--scopes', '*'], adminEnv);
  keys.full = full.key;
  fullKeyId = full.id;
  keys.readOnly = (await runCrmJson<{ key: string }>(['admin', 'key', 'create', '--workspace', workspaceId, '--scopes', 'contacts:read'], adminEnv)).key;
  keys.noDelete = (
    await runCrmJson<{ key: string }>(['admin', 'key', 'create', '--workspace', workspaceId, '--scopes', 'contacts:read,contacts:write', '--env', 'test'], adminEnv)
  ).key;
  keys.other = (await runCrmJson<{ key: string }>(['admin', 'key', 'create', '--workspace', other.id, '--scopes', 'contacts:*'], adminEnv)).key;
}, 120_000);

afterAll(async () => {
  await stack?.stop();
  await otlp?.close();
});

describe('crm admin', () => {
  test('prints exactly the contracted JSON objects', async () => {
    const user = await runCrmJson(['admin', 'user', 'create', '--workspace', workspaceId, '--email', 'ana@acme.test', '--name', 'Ana Lima', '--role', 'admin'], adminEnv);
    expect(user).toMatchObject({ workspace_id: workspaceId, email: 'ana@acme.test', full_name: 'Ana Lima', role: 'admin', is_active: true });
    const key = await runCrmJson(['admin', 'key', 'create', '--workspace', workspaceId, '--scopes', 'contacts:read', '--env', 'test'], adminEnv);
    expect(Object.keys(key).sort()).toEqual(['id', 'key', 'scopes', 'workspace_id']);
    expect(key.key).toMatch(/^svc_test_[A-Za-z0-9_-]{32}$/);
    const integration = await runCrmJson(
      ['admin', 'integration', 'create', '--workspace', workspaceId, '--type', 'smtp', '--name', 'Mail', '--secret', 'hunter2-very-secret', '--config', '{"host":"smtp.acme.test"}'],
      adminEnv,
    );
    expect(integration).toMatchObject({ workspace_id: workspaceId, type: 'smtp', name: 'Mail', config: { host: 'smtp.acme.test' } });
    expect(JSON.stringify(integration)).not.toContain('hunter2');
  });

  test('fails with a message on stderr and a non-zero exit', async () => {
    const legacy = await runCrm(['admin', 'key', 'create', '--workspace', workspaceId, '--scopes', 'lists:read'], adminEnv);
    expect(legacy.code).not.toBe(0);
    expect(legacy.stdout).toBe('');
    expect(legacy.stderr).toMatch(/pools/);
    const missing = await runCrm(['admin', 'workspace', 'create'], adminEnv);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toMatch(/--name/);
    const unreachable = await runCrm(['admin', 'workspace', 'create', '--name', 'x'], { DIRECTORY_ADDR: '127.0.0.1:1' });
    expect(unreachable.code).not.toBe(0);
    expect(unreachable.stderr).toMatch(/cannot reach the directory/);
  });
});

describe('contacts over HTTP', () => {
  test('create, get, patch, list and delete, identically under /v1 and /api/v1', async () => {
    const created = await api('POST', '/v1/contacts', {
      key: keys.full,
      body: { first_name: 'Ada', last_name: 'Lovelace', email: 'ada@acme.test', country: 'GB', priority: 5, favourite_engine: 'analytical' },
    });
    expect(created.status).toBe(201);
    const contact = created.body.data;
    expect(contact).toMatchObject({ first_name: 'Ada', country: 'GB', priority: 5, city: null, favourite_engine: 'analytical', svc_uid: null });
    expect(contact.created_at).toMatch(/\.\d{3}Z$/);

    for (const prefix of ['/v1', '/api/v1']) {
      const got = await api('GET', `${prefix}/contacts/${contact.id}`, { key: keys.full });
      expect(got.status).toBe(200);
      expect(got.body).toEqual({ data: contact });
    }

    const patched = await api('PATCH', `/api/v1/contacts/${contact.id}`, { key: keys.full, body: { city: 'London', country: null } });
    expect(patched.status).toBe(200);
    expect(patched.body.data).toMatchObject({ city: 'London', country: null, first_name: 'Ada' });

    const listed = await api('GET', '/v1/contacts?city=London', { key: keys.full });
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual({ data: [patched.body.data], next_cursor: null, has_more: false });

    const deleted = await api('DELETE', `/v1/contacts/${contact.id}`, { key: keys.full });
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    expect((await api('GET', `/v1/contacts/${contact.id}`, { key: keys.full })).status).toBe(404);
  });

  test("another workspace's key gets 404 for this workspace's contact", async () => {
    const { body } = await api('POST', '/v1/contacts', { key: keys.full, body: { email: 'private@acme.test' } });
    const id = body.data.id;
    for (const [method, extra] of [['GET', {}], ['PATCH', { body: { city: 'X' } }], ['DELETE', {}]] as const) {
      const response = await api(method, `/v1/contacts/${id}`, { key: keys.other, ...extra });
      expect([method, response.status, response.body.error.code]).toEqual([method, 404, 'not_found']);
    }
    const list = await api('GET', '/v1/contacts?limit=100', { key: keys.other });
    expect(list.body.data.map((c: { id: string }) => c.id)).not.toContain(id);
    expect((await api('GET', `/v1/contacts/${id}`, { key: keys.full })).status).toBe(200);
  });

  test('a key without the scope gets 403 naming the scope', async () => {
    const write = await api('POST', '/v1/contacts', { key: keys.readOnly, body: { first_name: 'No' } });
    expect(write.status).toBe(403);
    expect(write.body.error).toMatchObject({ code: 'forbidden', details: { required_scope: 'contacts:write' } });
    expect((await api('GET', '/v1/contacts', { key: keys.readOnly })).status).toBe(200);
    const { body } = await api('POST', '/v1/contacts', { key: keys.noDelete, body: { first_name: 'Keep' } });
    const del = await api('DELETE', `/v1/contacts/${body.data.id}`, { key: keys.noDelete });
    expect(del.status).toBe(403);
    expect(del.body.error.details.required_scope).toBe('contacts:delete');
  });

  test('missing, malformed, unknown and revoked keys get 401', async () => {
    expect((await api('GET', '/v1/contacts')).body.error.code).toBe('unauthorized');
    expect((await api('GET', '/v1/contacts', { headers: { authorization: 'Basic abc' } })).status).toBe(401);
    expect((await api('GET', '/v1/contacts', { key: 'svc_live_short' })).status).toBe(401);
    const flipped = keys.full.slice(0, -1) + (keys.full.endsWith('A') ? 'B' : 'A');
    expect((await api('GET', '/v1/contacts', { key: flipped })).status).toBe(401);

    const doomed = await runCrmJson<{ id: string; key: string }>(['admin', 'key', 'create', '--workspace', workspaceId, '--scopes', '*'], adminEnv);
    expect((await api('GET', '/v1/contacts', { key: doomed.key })).status).toBe(200);
    const revoked = await runCrmJson(['admin', 'key', 'revoke', doomed.id], adminEnv);
    expect(revoked).toEqual({ id: doomed.id, revoked: true });
    const revokedAt = Date.now();
    await expectEventually(async () => expect((await api('GET', '/v1/contacts', { key: doomed.key })).status).toBe(401), {
      timeoutMs: 5_000,
      intervalMs: 100,
    });
    expect(Date.now() - revokedAt).toBeLessThanOrEqual(5_000);
    expect(fullKeyId).not.toBe(doomed.id);
  });

  test('lists page by cursor with filters and sorts, and refuse a cursor from another query', async () => {
    const source = `e2e-${randomBytes(3).toString('hex')}`;
    const names = ['Cole', 'Abbot', 'Baker', 'Drake', 'Evans'];
    for (const last_name of names) {
      expect((await api('POST', '/v1/contacts', { key: keys.full, body: { last_name, source } })).status).toBe(201);
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: string = `/v1/contacts?source=${source}&sort=last_name&limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const page = await api('GET', query, { key: keys.full });
      expect(page.status).toBe(200);
      seen.push(...page.body.data.map((c: { last_name: string }) => c.last_name));
      expect(page.body.has_more).toBe(page.body.next_cursor !== null);
      cursor = page.body.next_cursor;
      pages++;
    } while (cursor);
    expect(seen).toEqual([...names].sort());
    expect(pages).toBe(3);

    const first = await api('GET', `/v1/contacts?source=${source}&sort=last_name&limit=2`, { key: keys.full });
    const replay = await api('GET', `/v1/contacts?source=${source}&sort=-last_name&cursor=${encodeURIComponent(first.body.next_cursor)}`, { key: keys.full });
    expect(replay.status).toBe(400);
    expect(replay.body.error.code).toBe('invalid_request');
    const garbage = await api('GET', '/v1/contacts?cursor=not-a-cursor', { key: keys.full });
    expect(garbage.status).toBe(400);
    const searched = await api('GET', `/v1/contacts?source=${source}&q=AKE`, { key: keys.full });
    expect(searched.body.data.map((c: { last_name: string }) => c.last_name).sort()).toEqual(['Baker', 'Drake']);
  });

  test('request errors use the envelope with the right status', async () => {
    const key = keys.full;
    const cases: [string, Promise<{ status: number; body: any; headers: Headers }>, number, string][] = [
      ['legacy path', api('GET', '/v1/sequences/x/y', { key }), 404, 'not_found'],
      ['unknown path', api('GET', '/v1/nothing-here', { key }), 404, 'not_found'],
      ['wrong method', api('PUT', '/v1/contacts', { key }), 405, 'method_not_allowed'],
      ['non-UUID id', api('GET', '/v1/contacts/42', { key }), 400, 'invalid_request'],
      ['unknown parameter', api('GET', '/v1/contacts?colour=red', { key }), 400, 'invalid_request'],
      ['limit out of range', api('GET', '/v1/contacts?limit=101', { key }), 400, 'invalid_request'],
      ['malformed JSON', api('POST', '/v1/contacts', { key, rawBody: '{"a":', headers: { 'content-type': 'application/json' } }), 400, 'invalid_request'],
      ['not JSON', api('POST', '/v1/contacts', { key, rawBody: 'a=b', headers: { 'content-type': 'application/x-www-form-urlencoded' } }), 415, 'unsupported_media_type'],
      ['too large', api('POST', '/v1/contacts', { key, body: { first_name: 'x', blob: 'y'.repeat(1_100_000) } }), 413, 'payload_too_large'],
      ['invalid body', api('POST', '/v1/contacts', { key, body: { email: 'nope', owner_id: 7 } }), 422, 'validation_failed'],
      ['duplicate email', (async () => {
        await api('POST', '/v1/contacts', { key, body: { email: 'dup@acme.test' } });
        return api('POST', '/v1/contacts', { key, body: { email: 'DUP@acme.test' } });
      })(), 409, 'conflict'],
    ];
    for (const [name, pending, status, code] of cases) {
      const response = await pending;
      expect([name, response.status, response.body?.error?.code]).toEqual([name, status, code]);
      expect(response.body.error.request_id).toBe(response.headers.get('x-request-id'));
      expect(typeof response.body.error.message).toBe('string');
    }
    const legacy = await api('GET', '/api/v1/lists', { key });
    expect(legacy.body.error.message).toContain('/api/v1/pools');
    const invalid = await api('POST', '/v1/contacts', { key, body: { email: 'nope', owner_id: 7 } });
    expect(invalid.body.error.details).toEqual(
      expect.arrayContaining([
        { field: 'email', message: 'must be an email address' },
        { field: 'owner_id', message: 'must be a UUID' },
      ]),
    );
    const wrong = await api('DELETE', '/v1/contacts', { key });
    expect(wrong.headers.get('allow')).toBe('GET, POST, HEAD');
  });

  test('X-Request-Id is echoed when sane and minted otherwise', async () => {
    const echoed = await api('GET', '/v1/contacts', { key: keys.full, headers: { 'x-request-id': 'client-abc.123' } });
    expect(echoed.headers.get('x-request-id')).toBe('client-abc.123');
    const minted = await api('GET', '/v1/contacts', { key: keys.full, headers: { 'x-request-id': 'bad id with spaces' } });
    expect(minted.headers.get('x-request-id')).toMatch(/^req_[0-9a-f-]{36}$/);
  });
});

describe('addresses past RFC 5321 limits', () => {
  const local65 = `${'a'.repeat(65)}@acme.test`;
  const reason = 'local part must be at most 64 octets (UTF-8 bytes); it has 65';

  test('a contact is refused 422 naming email, on create and on update; at the limit it is taken', async () => {
    const refused = await api('POST', '/v1/contacts', { key: keys.full, body: { first_name: 'Long', email: local65 } });
    expect([refused.status, refused.body.error.code, refused.body.error.details]).toEqual([422, 'validation_failed', [{ field: 'email', message: reason }]]);
    const created = await api('POST', '/v1/contacts', { key: keys.full, body: { first_name: 'Long', email: `${'a'.repeat(64)}@acme.test` } });
    expect(created.status).toBe(201);
    for (const email of [local65, `${'é'.repeat(32)}a@acme.test`]) {
      const patched = await api('PATCH', `/v1/contacts/${created.body.data.id}`, { key: keys.full, body: { email } });
      expect([patched.status, patched.body.error.details]).toEqual([422, [{ field: 'email', message: reason }]]);
    }
    const label = await api('POST', '/v1/contacts', { key: keys.full, body: { email: `ada@${'b'.repeat(64)}.test` } });
    expect(label.body.error.details).toEqual([{ field: 'email', message: 'each domain label must be at most 63 octets (UTF-8 bytes); one has 64' }]);
    // A send's sender is an address too.
    const send = await api('POST', '/v1/sent_emails', { key: keys.full, body: { contact_id: created.body.data.id, subject: 'Hi', body: '<p>Hi</p>', from_email: local65 } });
    expect([send.status, send.body.error.details]).toEqual([422, [{ field: 'from_email', message: reason }]]);
  });

  test('a user and an integration sender are refused naming the field', async () => {
    const user = await runCrm(['admin', 'user', 'create', '--workspace', workspaceId, '--email', local65, '--name', 'Long', '--role', 'member'], adminEnv);
    expect([user.code, user.stdout]).toEqual([1, '']);
    expect(user.stderr).toContain(`email: ${reason}`);
    const integration = await runCrm(
      ['admin', 'integration', 'create', '--workspace', workspaceId, '--type', 'smtp', '--name', 'Mail', '--secret', 's', '--config', JSON.stringify({ host: 'smtp.acme.test', from_email: local65 })],
      adminEnv,
    );
    expect([integration.code, integration.stdout]).toEqual([1, '']);
    expect(integration.stderr).toContain(`config.from_email: ${reason}`);
  });
});

describe('telemetry', () => {
  test('one trace spans gateway → gRPC → SQL', async () => {
    const traceId = randomBytes(16).toString('hex');
    const response = await api('POST', '/v1/contacts', {
      key: keys.full,
      body: { first_name: 'Traced' },
      headers: { traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01` },
    });
    expect(response.status).toBe(201);
    await expectEventually(
      () => {
        const spans = otlp.spans.filter((s) => s.traceId === traceId);
        const services = new Set(spans.map((s) => s.service));
        expect(['crm-gateway', 'crm-people'].filter((service) => services.has(service))).toEqual(['crm-gateway', 'crm-people']);
        // Any other service is in the trace only as a consumer of the contact's event (webhooks: a
        // delivery joins the trace of the change that caused it), through its consume span.
        for (const other of [...services].filter((service) => service !== 'crm-gateway' && service !== 'crm-people')) {
          expect([other, spans.some((s) => s.service === other && s.name === `process ${PeopleEvents.ContactCreated}`)]).toEqual([other, true]);
        }
        expect(spans.some((s) => s.service === 'crm-gateway' && /POST/.test(s.name))).toBe(true);
        expect(spans.some((s) => s.service === 'crm-people' && s.name.includes('CreateContact'))).toBe(true);
        expect(spans.some((s) => s.service === 'crm-people' && String(s.attributes['db.statement'] ?? '').startsWith('INSERT INTO contacts'))).toBe(true);
      },
      { timeoutMs: 10_000, intervalMs: 200 },
    );
  });
});

(useNats ? describe : describe.skip)('events on NATS JetStream', () => {
  test('a created contact is published as crm.people.contact.created with its event id as Nats-Msg-Id', async () => {
    const { connect } = await import('@nats-io/transport-node');
    const { jetstream } = await import('@nats-io/jetstream');
    const nc = await connect({ servers: TEST_NATS_URL });
    try {
      const { body } = await api('POST', '/v1/contacts', { key: keys.full, body: { first_name: 'Evented' } });
      const js = jetstream(nc);
      const consumer = await js.consumers.get('CRM', { filter_subjects: PeopleEvents.ContactCreated, deliver_policy: 'last_per_subject' as never });
      await expectEventually(
        async () => {
          const msg = await consumer.next({ expires: 1_000 });
          expect(msg).toBeTruthy();
          const event = msg!.json<{ id: string; type: string; workspace_id: string; data: { id: string } }>();
          expect(event).toMatchObject({ type: PeopleEvents.ContactCreated, workspace_id: workspaceId, data: { id: body.data.id } });
          expect(msg!.headers?.get('Nats-Msg-Id')).toBe(event.id);
        },
        { timeoutMs: 10_000, intervalMs: 100 },
      );
    } finally {
      await nc.close();
    }
  });
});
