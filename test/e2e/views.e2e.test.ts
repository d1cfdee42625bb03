/**
 * End to end, distributed: the read views of issue #10 over HTTP, each service in its own `crm start`
 * process behind the gateway (test/support/stack.ts): users and integrations served by the
 * directory (its embedded store here; MongoDB has the same contract suite).
 */
import { type Stack, startStack } from '../support/stack';

jest.setTimeout(180_000);

let stack: Stack | undefined;
let api: Stack['api'];
let workspaceId = '';
const keys = { full: '', other: '', usersOnly: '', contactsOnly: '', integrationsRead: '' };
const SECRET = 'hunter2-never-shown-anywhere';

beforeAll(async () => {
  stack = await startStack();
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
  test('lists and gets integrations with their config and never their secret; read-only', async () => {
    const mail = await stack!.admin<{ id: string }>([
      'admin', 'integration', 'create', '--workspace', workspaceId, '--type', 'smtp', '--name', 'Mail', '--secret', SECRET, '--config', '{"host":"smtp.acme.test","port":2525}',
    ]);
    const chat = await stack!.admin<{ id: string }>(['admin', 'integration', 'create', '--workspace', workspaceId, '--type', 'chatapp', '--name', 'Chat', '--secret', SECRET]);

    const listed = await get('/v1/integrations?sort=type', keys.integrationsRead);
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((i: { id: string }) => i.id)).toEqual([chat.id, mail.id]);
    expect(listed.body.data[1]).toEqual({
      id: mail.id,
      svc_uid: null,
      type: 'smtp',
      name: 'Mail',
      status: 'connected',
      enabled: true,
      config: { host: 'smtp.acme.test', port: 2525 },
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect((await get('/v1/integrations?type=smtp&enabled=true&status=connected')).body.data.map((i: { id: string }) => i.id)).toEqual([mail.id]);
    expect((await get('/v1/integrations?enabled=false')).body.data).toEqual([]);
    expect((await get('/v1/integrations?status=broken')).status).toBe(400);
    expect((await get('/v1/integrations?q=mail')).status).toBe(400);
    const one = await get(`/v1/integrations/${mail.id}`, keys.integrationsRead);
    expect(one.body.data).toEqual(listed.body.data[1]);
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
  });
});
