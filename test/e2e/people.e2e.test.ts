/**
 * End to end, distributed: organizations, pools, pool memberships, bulk members and contacts'
 * activity timestamps over HTTP, with people in its own `crm start people` process behind the
 * gateway (test/support/stack.ts). Activity events are published on NATS JetStream, as messaging
 * and activities publish them, when this machine's NATS answers.
 */
import * as grpc from '@grpc/grpc-js';
import { createNatsBus, newEvent, newId, unary } from '@crm/kit';
import { TEST_NATS_URL, expectEventually } from '@crm/kit/testing';
import { ActivitiesEvents, MessagingEvents, loadDirectory } from '@crm/proto';
import { type Stack, startStack } from '../support/stack';

jest.setTimeout(180_000);

let stack: Stack | undefined;
let api: Stack['api'];
let workspaceId = '';
let userId = '';
const keys = { full: '', user: '', other: '', membersRead: '', membersWrite: '' };

/** A key acting for a user: the admin command has no option for it, the directory's RPC does. */
async function userKey(directoryAddr: string, workspace: string, user: string): Promise<string> {
  const Client = loadDirectory().crm.directory.v1.DirectoryService;
  const client = new Client(directoryAddr, grpc.credentials.createInsecure());
  try {
    const created = await unary<unknown, { key: string }>(client, 'CreateApiKey', { workspace_id: workspace, scopes: ['*'], env: 'live', user_id: user });
    return created.key;
  } finally {
    client.close();
  }
}

beforeAll(async () => {
  stack = await startStack();
  api = stack.api;
  const acme = await stack.workspaceWithKey('Acme', '*');
  workspaceId = acme.workspaceId;
  keys.full = acme.key;
  keys.other = (await stack.workspaceWithKey('Globex', '*')).key;
  keys.membersRead = (await stack.createKey(workspaceId, 'pools:read,pool_contacts:read')).key;
  keys.membersWrite = (await stack.createKey(workspaceId, 'pool_contacts:read,pool_contacts:write')).key;
  userId = (await stack.admin<{ id: string }>(['admin', 'user', 'create', '--workspace', workspaceId, '--email', 'rep@acme.test', '--name', 'Rep', '--role', 'member'])).id;
  keys.user = await userKey(stack.adminEnv.DIRECTORY_ADDR!, workspaceId, userId);
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

const post = (path: string, body: unknown, key = keys.full) => api('POST', path, { key, body });
const get = (path: string, key = keys.full) => api('GET', path, { key });
const contact = async (fields: Record<string, unknown> = {}) => (await post('/v1/contacts', { first_name: 'C', ...fields })).body.data.id as string;
const pool = async (fields: Record<string, unknown> = {}) => (await post('/v1/pools', { name: 'Pool', ...fields })).body.data.id as string;

describe('organizations over HTTP', () => {
  test('CRUD and lists with filters, sorts and q, identically under /api/v1', async () => {
    const created = await post('/v1/organizations', { name: 'Initech', domain: 'initech.test', website_url: 'https://initech.test', industry: 'software', country: 'US', tier: 'gold' });
    expect(created.status).toBe(201);
    const org = created.body.data;
    expect(org).toMatchObject({ name: 'Initech', domain: 'initech.test', industry: 'software', country: 'US', tier: 'gold', svc_uid: null });
    expect((await get(`/api/v1/organizations/${org.id}`)).body).toEqual({ data: org });
    const patched = await api('PATCH', `/v1/organizations/${org.id}`, { key: keys.full, body: { industry: 'fintech' } });
    expect(patched.body.data).toMatchObject({ industry: 'fintech', name: 'Initech' });
    await post('/v1/organizations', { name: 'Initrode', domain: 'initech.test', country: 'US' });
    const listed = await get('/v1/organizations?domain=initech.test&sort=name');
    expect(listed.body.data.map((o: { name: string }) => o.name)).toEqual(['Initech', 'Initrode']);
    expect((await get('/v1/organizations?q=INITECH.TEST&industry=fintech')).body.data.map((o: { id: string }) => o.id)).toEqual([org.id]);
    const invalid = await post('/v1/organizations', { website_url: 'ftp://x' });
    expect(invalid.status).toBe(422);
    expect(invalid.body.error.details).toEqual(
      expect.arrayContaining([
        { field: 'name', message: 'is required' },
        { field: 'website_url', message: 'must be an http(s) URL' },
      ]),
    );
    expect((await get('/v1/organizations?sort=country')).status).toBe(400);
    expect((await get(`/v1/organizations/${org.id}`, keys.other)).status).toBe(404);
  });

  test("deleting an organization clears its contacts' organization_id; an unknown one is 422", async () => {
    const org = (await post('/v1/organizations', { name: 'Doomed' })).body.data.id as string;
    const linked = await contact({ organization_id: org });
    const unknown = await post('/v1/contacts', { first_name: 'X', organization_id: newId() });
    expect(unknown.status).toBe(422);
    expect(unknown.body.error.details).toEqual([{ field: 'organization_id', message: 'no organization with this id in the workspace' }]);
    expect((await api('DELETE', `/v1/organizations/${org}`, { key: keys.full })).status).toBe(204);
    expect((await get(`/v1/contacts/${linked}`)).body.data.organization_id).toBeNull();
    expect((await get(`/v1/organizations/${org}`)).status).toBe(404);
  });
});

describe('search terms of one and two characters over HTTP', () => {
  /** Every page of a list, following next_cursor to the end: a short term's pages may be short. */
  const everyId = async (path: string): Promise<string[]> => {
    const ids: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await get(`${path}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(page.status).toBe(200);
      expect(page.body.has_more).toBe(page.body.next_cursor !== null);
      ids.push(...page.body.data.map((r: { id: string }) => r.id));
      cursor = page.body.next_cursor;
    } while (cursor);
    return ids;
  };

  test('match a substring case-insensitively, within one field, with % and _ literal, on contacts and organizations', async () => {
    const orsted = await contact({ first_name: 'Ørsted', last_name: 'Wind' });
    const bjorn = await contact({ first_name: 'Bjørn', email: `bjorn_${Date.now()}@ex.test` });
    const percent = await contact({ first_name: 'Cent', company_name: '100% Co' });
    const both = [bjorn, orsted].sort();
    expect((await everyId('/v1/contacts?q=%C3%B8&limit=1')).sort()).toEqual(both);
    expect((await everyId('/v1/contacts?q=%C3%98R&sort=first_name')).sort()).toEqual(both);
    // A wildcard `_` would also find "nd" in Wind and "nt" in Cent.
    expect(await everyId('/v1/contacts?q=n_')).toEqual([bjorn]);
    expect(await everyId('/v1/contacts?q=%25')).toEqual([percent]);
    expect(await everyId('/v1/contacts?q=%25&sort=last_name')).toEqual([percent]);
    // "dW" would span the end of "Ørsted" and the start of "Wind".
    expect(await everyId('/v1/contacts?q=dW')).toEqual([]);
    const org = (await post('/v1/organizations', { name: 'Ærø Ferries' })).body.data.id as string;
    expect(await everyId('/v1/organizations?q=%C3%A6R')).toEqual([org]);
    // Blank is still refused.
    const blank = await get('/v1/contacts?q=%20');
    expect([blank.status, blank.body.error.code, blank.body.error.details]).toEqual([400, 'invalid_request', { parameter: 'q' }]);
  });
});

describe('pools and memberships over HTTP', () => {
  test('pool CRUD: defaults, read-only count, enum visibility', async () => {
    const created = await post('/v1/pools', { name: 'Webinar', visibility: 'workspace', contacts_count: 7 });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({ name: 'Webinar', visibility: 'workspace', contacts_count: 0, description: null, owner_id: null });
    const id = created.body.data.id;
    expect((await api('PATCH', `/v1/pools/${id}`, { key: keys.full, body: { visibility: 'public' } })).status).toBe(422);
    expect((await api('PATCH', `/v1/pools/${id}`, { key: keys.full, body: { description: 'Q3' } })).body.data.description).toBe('Q3');
    expect((await get('/v1/pools?visibility=workspace&q=webinar')).body.data.map((p: { id: string }) => p.id)).toContain(id);
    expect((await get('/v1/pools?visibility=open')).status).toBe(400);
    expect((await api('DELETE', `/v1/pools/${id}`, { key: keys.full })).status).toBe(204);
    expect((await get(`/v1/pools/${id}`)).status).toBe(404);
  });

  test('a membership: created with added_by from the key, listed, never patched, deleted', async () => {
    const p = await pool();
    const c = await contact();
    const created = await post('/v1/pool_contacts', { pool_id: p, contact_id: c, added_by: newId() }, keys.user);
    expect(created.status).toBe(201);
    const membership = created.body.data;
    expect(membership).toMatchObject({ pool_id: p, contact_id: c, added_by: userId, svc_uid: null });
    expect(membership.added_at).toMatch(/\.\d{3}Z$/);
    expect((await get(`/v1/pools/${p}`)).body.data.contacts_count).toBe(1);

    const duplicate = await post('/v1/pool_contacts', { pool_id: p, contact_id: c });
    expect([duplicate.status, duplicate.body.error.code]).toEqual([409, 'conflict']);
    const missing = await post('/v1/pool_contacts', { pool_id: newId(), contact_id: c });
    expect([missing.status, missing.body.error.details]).toEqual([422, [{ field: 'pool_id', message: 'no pool with this id in the workspace' }]]);

    expect((await get(`/v1/pool_contacts/${membership.id}`)).body).toEqual({ data: membership });
    const listed = await get(`/v1/pool_contacts?pool_id=${p}`);
    expect(listed.body).toEqual({ data: [membership], next_cursor: null, has_more: false });
    expect((await get(`/v1/pool_contacts?added_by=${userId}&contact_id=${c}`)).body.data).toEqual([membership]);
    expect((await get('/v1/pool_contacts?q=x')).status).toBe(400);

    const patch = await api('PATCH', `/v1/pool_contacts/${membership.id}`, { key: keys.full, body: { svc_uid: 'x' } });
    expect([patch.status, patch.body.error.code, patch.headers.get('allow')]).toEqual([405, 'method_not_allowed', 'GET, DELETE, HEAD']);
    expect((await get(`/v1/pool_contacts/${membership.id}`, keys.other)).status).toBe(404);
    expect((await api('DELETE', `/v1/pool_contacts/${membership.id}`, { key: keys.full })).status).toBe(204);
    expect((await get(`/v1/pools/${p}`)).body.data.contacts_count).toBe(0);
    expect((await get('/v1/list_contacts')).body.error.message).toContain('/v1/pool_contacts');
  });

  test('bulk members: add and remove up to 500 ids, with their scopes', async () => {
    const p = await pool();
    const [a, b] = [await contact(), await contact()];
    const unknown = newId();
    const added = await post(`/v1/pools/${p}/members`, { contact_ids: [a, b, unknown] }, keys.user);
    expect(added.status).toBe(200);
    expect(added.body).toEqual({ data: { added: [a, b], already_members: [], not_found: [unknown], contacts_count: 2 } });
    const again = await post(`/v1/pools/${p}/members`, { contact_ids: [a] }, keys.membersWrite);
    expect(again.body.data).toEqual({ added: [], already_members: [a], not_found: [], contacts_count: 2 });
    const members = await get(`/v1/pool_contacts?pool_id=${p}&sort=added_at`);
    expect(members.body.data.map((m: { contact_id: string; added_by: string }) => [m.contact_id, m.added_by]).sort()).toEqual([[a, userId], [b, userId]].sort());

    const removed = await api('DELETE', `/v1/pools/${p}/members`, { key: keys.full, body: { contact_ids: [a, unknown] } });
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({ data: { removed: [a], not_members: [], not_found: [unknown], contacts_count: 1 } });

    const tooMany = await post(`/v1/pools/${p}/members`, { contact_ids: Array.from({ length: 501 }, () => newId()) });
    expect([tooMany.status, tooMany.body.error.code, tooMany.body.error.details]).toEqual([
      422,
      'validation_failed',
      [{ field: 'contact_ids', message: 'must hold 1 to 500 ids, got 501' }],
    ]);
    const maximal = await post(`/v1/pools/${p}/members`, { contact_ids: Array.from({ length: 500 }, () => newId()) });
    expect([maximal.status, maximal.body.data.not_found.length]).toEqual([200, 500]);
    expect((await post(`/v1/pools/${p}/members`, { ids: [a] })).status).toBe(422);
    expect((await post(`/v1/pools/${p}/members`, { contact_ids: ['nope'] })).body.error.details).toEqual([{ field: 'contact_ids[0]', message: 'must be a UUID' }]);
    expect((await post(`/v1/pools/${newId()}/members`, { contact_ids: [a] })).status).toBe(404);
    expect((await post(`/v1/pools/${p}/members`, { contact_ids: [a] }, keys.other)).status).toBe(404);
    expect((await post('/v1/pools/42/members', { contact_ids: [a] })).status).toBe(400);
    const wrong = await get(`/v1/pools/${p}/members`);
    expect([wrong.status, wrong.body.error.code, wrong.headers.get('allow')]).toEqual([405, 'method_not_allowed', 'POST, DELETE']);

    const readOnly = await post(`/v1/pools/${p}/members`, { contact_ids: [a] }, keys.membersRead);
    expect([readOnly.status, readOnly.body.error.details]).toEqual([403, { required_scope: 'pool_contacts:write' }]);
    const noDelete = await api('DELETE', `/v1/pools/${p}/members`, { key: keys.membersWrite, body: { contact_ids: [b] } });
    expect([noDelete.status, noDelete.body.error.details]).toEqual([403, { required_scope: 'pool_contacts:delete' }]);
    expect((await get(`/v1/pools/${p}`)).body.data.contacts_count).toBe(1);
  });

  test('a bulk add retried under its Idempotency-Key is answered once', async () => {
    const p = await pool();
    const c = await contact();
    const send = (contact_ids: string[]) =>
      api('POST', `/v1/pools/${p}/members`, { key: keys.full, body: { contact_ids }, headers: { 'idempotency-key': `add-${p}` } });
    const first = await send([c]);
    const retry = await send([c]);
    expect(first.body.data.added).toEqual([c]);
    expect([retry.status, retry.headers.get('idempotent-replayed'), retry.body]).toEqual([200, 'true', first.body]);
    expect((await send([newId()])).body.error.code).toBe('idempotency_key_reused');
    expect((await get(`/v1/pools/${p}`)).body.data.contacts_count).toBe(1);
  });

  test('deleting a contact removes it from its pools and fixes their counts', async () => {
    const [p1, p2] = [await pool(), await pool()];
    const [gone, stays] = [await contact(), await contact()];
    await post(`/v1/pools/${p1}/members`, { contact_ids: [gone, stays] });
    await post(`/v1/pools/${p2}/members`, { contact_ids: [gone] });
    expect((await api('DELETE', `/v1/contacts/${gone}`, { key: keys.full })).status).toBe(204);
    expect((await get(`/v1/pools/${p1}`)).body.data.contacts_count).toBe(1);
    expect((await get(`/v1/pools/${p2}`)).body.data.contacts_count).toBe(0);
    expect((await get(`/v1/pool_contacts?contact_id=${gone}`)).body.data).toEqual([]);
  });
});

describe('activity timestamps from events', () => {
  test('events published by messaging and activities move the contact timestamps forward only', async () => {
    if (!stack!.useNats) {
      // Without NATS each process has its own in-process bus: there is no way to publish to people.
      console.warn('NATS unreachable: activity events are covered by the people integration tests only');
      return;
    }
    const bus = await createNatsBus({ servers: TEST_NATS_URL, name: 'people-e2e' });
    try {
      const id = await contact({ first_name: 'Evented' });
      const at = (m: number) => new Date(Date.UTC(2026, 4, 15, 9, m)).toISOString();
      await bus.publish(newEvent(MessagingEvents.EmailSent, workspaceId, { sent_email_id: newId(), contact_id: id, sent_at: at(1) }));
      await bus.publish(newEvent(ActivitiesEvents.CallLogged, workspaceId, { call_log_id: newId(), contact_id: id, status: 'completed', outcome: 'connected', occurred_at: at(5) }));
      await expectEventually(async () => expect((await get(`/v1/contacts/${id}`)).body.data).toMatchObject({ last_touchpoint_at: at(5), last_engagement_at: at(5) }), {
        timeoutMs: 20_000,
        intervalMs: 100,
      });
      await bus.publish(newEvent(MessagingEvents.EmailEventRecorded, workspaceId, { email_event_id: newId(), sent_email_id: newId(), contact_id: id, event_type: 'open', occurred_at: at(3) }));
      await bus.publish(newEvent(ActivitiesEvents.TaskCompleted, workspaceId, { task_id: newId(), contact_id: id, completed_at: at(9) }));
      await expectEventually(async () => expect((await get(`/v1/contacts/${id}`)).body.data).toMatchObject({ last_touchpoint_at: at(9), last_engagement_at: at(5) }), {
        timeoutMs: 20_000,
        intervalMs: 100,
      });
      const sorted = await get(`/v1/contacts?sort=-last_touchpoint_at&limit=1`);
      expect(sorted.body.data[0].id).toBe(id);
    } finally {
      await bus.close();
    }
  });
});
